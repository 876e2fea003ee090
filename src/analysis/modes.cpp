// Linearised modes of the constrained system (docs/statics-and-modes.md
// section 3).
//
// About a state of rest q0 on the constraints, with q(z) the configuration
// moved by N z and projected back onto the constraints and u = N z':
//   N^T M N z'' = N^T M a(q(z), N z')
//   => M_r z'' + C_r z' + K_r z = 0,
//   M_r = N^T M N,  C_r = -N^T M (da/du) N,  K_r = -N^T M (da/dq) N
// (at equilibrium N^T M a = 0, so the change of N with q adds nothing to K_r).
// da/dq and da/du by central differences of System::derivative; the
// quadratic eigenproblem through its first-order companion form
//   [z; z']' = [0 I; -M_r^-1 K_r  -M_r^-1 C_r] [z; z'],
// whose eigenvalues lambda = -zeta omega +- i omega sqrt(1 - zeta^2) give the
// natural frequency |lambda| and the damping ratio -Re(lambda) / |lambda|.
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ictus/analysis.h"
#include "tangent.h"

namespace ictus {
namespace {

std::vector<std::complex<double>> normalised_shape(const Eigen::VectorXcd& phi) {
  std::vector<std::complex<double>> shape(static_cast<std::size_t>(phi.size()));
  if (phi.size() == 0) return shape;
  Eigen::Index top = 0;
  phi.cwiseAbs().maxCoeff(&top);
  const std::complex<double> pivot = phi(top);
  for (Eigen::Index i = 0; i < phi.size(); ++i)
    shape[static_cast<std::size_t>(i)] = std::abs(pivot) > 0.0 ? phi(i) / pivot : phi(i);
  return shape;
}

}  // namespace

ModalResult compute_modes(System& system, double t, const VecX& y0, const ModalOptions& options) {
  internal::ConstrainedTangent tangent(system, t, y0);
  const int n = tangent.bodies();
  const MatX& mass = tangent.mass();
  const VecX y = tangent.move(y0, VecX::Zero(6 * n));
  const MatX basis = tangent.null_space(y);
  const auto dof = basis.cols();

  ModalResult result;
  result.time = t;
  result.state = y;
  result.dof = static_cast<int>(dof);
  result.mass = basis.transpose() * mass * basis;
  result.stiffness.resize(dof, dof);
  result.damping.resize(dof, dof);
  for (Eigen::Index c = 0; c < dof; ++c) {
    const double h = options.step / std::max(tangent.physical_size(basis.col(c)), 1e-300);
    const VecX plus = tangent.acceleration(tangent.move(y, h * basis.col(c)));
    const VecX minus = tangent.acceleration(tangent.move(y, -h * basis.col(c)));
    result.stiffness.col(c) = -basis.transpose() * mass * (plus - minus) / (2 * h);
    // velocities along N satisfy D u = 0; central differences cancel the
    // quadratic (gyroscopic, centripetal) terms exactly at u = 0
    VecX moving = y;
    moving.segment(7 * n, 6 * n) = h * basis.col(c);
    const VecX vplus = tangent.acceleration(moving);
    moving.segment(7 * n, 6 * n) = -h * basis.col(c);
    const VecX vminus = tangent.acceleration(moving);
    result.damping.col(c) = -basis.transpose() * mass * (vplus - vminus) / (2 * h);
  }
  tangent.coordinates(y, basis, options.step, result.coordinates, result.coordinate_map);
  const MatX& map = result.coordinate_map;

  if (dof == 0) return result;
  // undamped natural frequencies: K_sym phi = omega^2 M_r phi
  const MatX k_sym = 0.5 * (result.stiffness + result.stiffness.transpose());
  const Eigen::GeneralizedSelfAdjointEigenSolver<MatX> undamped(k_sym, result.mass);
  const double k_max = undamped.eigenvalues().cwiseAbs().maxCoeff();
  const double rigid_k = std::max(options.rigid_tolerance * options.rigid_tolerance * k_max,
                                  tangent.stiffness_floor());
  std::vector<Mode> rigid;
  for (Eigen::Index i = 0; i < dof; ++i) {
    const double k = undamped.eigenvalues()(i);
    result.undamped_frequencies.push_back(k >= 0.0 ? std::sqrt(k) : -std::sqrt(-k));
    if (std::abs(k) <= rigid_k) {
      Mode m;
      m.kind = Mode::Kind::kRigid;
      m.shape =
          normalised_shape((map * undamped.eigenvectors().col(i)).cast<std::complex<double>>());
      rigid.push_back(m);
    }
  }

  // the damped eigenproblem in companion form
  const Eigen::PartialPivLU<MatX> lu(result.mass);
  MatX a = MatX::Zero(2 * dof, 2 * dof);
  a.topRightCorner(dof, dof).setIdentity();
  a.bottomLeftCorner(dof, dof) = -lu.solve(result.stiffness);
  a.bottomRightCorner(dof, dof) = -lu.solve(result.damping);
  const Eigen::EigenSolver<MatX> eig(a);
  const Eigen::VectorXcd lambdas = eig.eigenvalues();
  const double l_max = lambdas.cwiseAbs().maxCoeff();
  std::vector<Mode> modes;
  for (Eigen::Index i = 0; i < lambdas.size(); ++i) {
    const std::complex<double> l = lambdas(i);
    const double size = std::abs(l);
    // counted above
    if (!rigid.empty() &&
        size <= std::max(options.rigid_tolerance * l_max, std::sqrt(tangent.stiffness_floor())))
      continue;
    Mode m;
    m.eigenvalue = l;
    m.omega_n = size;
    if (std::abs(l.imag()) <= 1e-9 * size) {
      m.kind = l.real() < 0.0 ? Mode::Kind::kReal : Mode::Kind::kDivergent;
      m.eigenvalue = {l.real(), 0.0};
      m.zeta = std::numeric_limits<double>::quiet_NaN();
    } else {
      if (l.imag() < 0.0) continue;  // the conjugate of one listed
      m.kind = Mode::Kind::kOscillatory;
      m.omega_d = l.imag();
      m.zeta = -l.real() / size;
    }
    m.shape = normalised_shape(map * eig.eigenvectors().col(i).head(dof));
    modes.push_back(m);
  }
  std::stable_sort(modes.begin(), modes.end(),
                   [](const Mode& p, const Mode& q) { return p.omega_n < q.omega_n; });
  result.modes = rigid;
  result.modes.insert(result.modes.end(), modes.begin(), modes.end());
  return result;
}

}  // namespace ictus
