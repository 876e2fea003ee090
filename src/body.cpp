#include "ictus/body.h"

#include <fmt/format.h>
#include <Eigen/Eigenvalues>

#include <cmath>

namespace ictus {

namespace {
bool finite(const auto& m) {
  return m.allFinite();
}
}  // namespace

void Body::validate() const {
  const std::string element = fmt::format("body '{}'", name);
  if (!std::isfinite(mass) || mass <= 0.0)
    throw ModelError(where, element, fmt::format("mass must be positive, got {}", mass));
  if (!finite(inertia)) throw ModelError(where, element, "inertia must be finite");
  if (point_mass) {
    validate_point_mass(element);
  } else {
    validate_inertia(element);
  }
  if (!finite(position) || !finite(velocity) || !finite(angular_velocity) ||
      !finite(orientation.coeffs()))
    throw ModelError(where, element, "initial state must be finite");
  if (std::abs(orientation.norm() - 1.0) > 1e-9)
    throw ModelError(where, element,
                     fmt::format("orientation quaternion must have unit norm, got norm {:.12g}",
                                 orientation.norm()));
}

void Body::validate_point_mass(const std::string& element) const {
  if (!inertia.isZero(0.0))
    throw ModelError(where, element, "a point mass has no inertia; its inertia must be zero");
  if (!angular_velocity.isZero(0.0))
    throw ModelError(where, element,
                     "a point mass does not rotate; its angular velocity must be zero");
}

void Body::validate_inertia(const std::string& element) const {
  if ((inertia - inertia.transpose()).norm() > 1e-12 * inertia.norm())
    throw ModelError(where, element, "inertia tensor must be symmetric");
  const Eigen::SelfAdjointEigenSolver<Mat3> eig(inertia);
  const Vec3 principal = eig.eigenvalues();  // ascending
  if (principal(0) <= 0.0)
    throw ModelError(
        where, element,
        fmt::format("inertia must be positive definite; principal moments are {:.6g}, {:.6g}, "
                    "{:.6g} kg m^2",
                    principal(0), principal(1), principal(2)));
  // a real mass distribution has J1 + J2 >= J3 for its principal moments
  if (principal(0) + principal(1) < principal(2) * (1.0 - 1e-9))
    throw ModelError(
        where, element,
        fmt::format("inertia is not physically realisable: principal moments {:.6g} + {:.6g} "
                    "< {:.6g} (no mass distribution has J1 + J2 < J3)",
                    principal(0), principal(1), principal(2)));
}

}  // namespace ictus
