// Static equilibrium of the constrained system (docs/statics-and-modes.md
// section 2).
//
// At rest (v = 0) the equations of motion M a - D^T p = f, D a = c give, for
// any N spanning null(D), N^T M a = N^T f: the reduced residual
//   r(z) = N^T M a(q(z), 0)
// is the generalised unbalanced load whatever the constraint rows demand of
// the accelerations (Baumgarte terms, a driver's rate), and r = 0 is the
// principle of virtual work. Newton's method on r with the Jacobian by central
// differences, a trust region and backtracking; positions go back onto the
// constraints after every update (System::project).
#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>

#include "ictus/analysis.h"
#include "ictus/error.h"
#include "tangent.h"

namespace ictus {
namespace {

// Largest unbalanced force and moment over the bodies, loads per body [F; M].
struct Unbalance {
  double force = 0.0;
  double moment = 0.0;
  int body = -1;  // the body with the largest of the two (moment / L)
};

Unbalance unbalance(const VecX& loads, double length) {
  Unbalance u;
  double worst = -1.0;
  for (Eigen::Index b = 0; 6 * b < loads.size(); ++b) {
    const double f = loads.segment<3>(6 * b).norm();
    const double m = loads.segment<3>(6 * b + 3).norm();
    u.force = std::max(u.force, f);
    u.moment = std::max(u.moment, m);
    if (std::max(f, m / length) > worst) {
      worst = std::max(f, m / length);
      u.body = static_cast<int>(b);
    }
  }
  return u;
}

// The loads the model carries at y: every channel in N or N m (reactions,
// multipliers, driver loads, spring forces) and the weights.
double load_scale(System& system, double t, const VecX& y, double length) {
  system.evaluate(t, y, Stage::kDynamics);
  double scale = 0.0;
  for (int k = 0; k < system.channel_count(); ++k) {
    const ChannelInfo& c = system.channel_info(k);
    if (c.unit == "N") scale = std::max(scale, std::abs(system.channel_value(k)));
    if (c.unit == "N m") scale = std::max(scale, std::abs(system.channel_value(k)) / length);
  }
  double weight = 0.0;
  for (const Body& b : system.model().bodies()) weight += b.mass * system.model().gravity().norm();
  return std::max(scale, weight);
}

// Every channel at y, the dynamics-stage ones static: with every force
// element off the same evaluation gives the reactions that the constraint
// rows' own demands (a driver's rate and acceleration, Baumgarte terms) call
// for; the equations are linear in (a, p, f), so the difference is the
// static part (at equilibrium its accelerations vanish).
std::vector<ChannelValue> static_channels(System& system, double t, const VecX& y) {
  const int count = system.channel_count();
  std::vector<ChannelValue> out(static_cast<std::size_t>(count));
  system.evaluate(t, y, Stage::kDynamics);
  for (int k = 0; k < count; ++k) {
    const ChannelInfo& c = system.channel_info(k);
    out[static_cast<std::size_t>(k)] = {c.name, c.unit, system.channel_value(k)};
  }
  std::vector<std::string> switched;
  for (const std::string& e : system.switchable_elements())
    if (!system.switch_is_structural(e) && system.enabled(e)) {
      system.set_enabled(e, false);
      switched.push_back(e);
    }
  system.evaluate(t, y, Stage::kDynamics);
  for (int k = 0; k < count; ++k) {
    const ChannelInfo& c = system.channel_info(k);
    // violations are norms, not linear in the loads
    if (c.stage == Stage::kDynamics && !c.name.starts_with("system."))
      out[static_cast<std::size_t>(k)].value -= system.channel_value(k);
  }
  for (const std::string& e : switched) system.set_enabled(e, true);
  system.evaluate(t, y, Stage::kDynamics);
  return out;
}

std::string format_vec(const Eigen::Ref<const Vec3>& v) {
  return fmt::format("({:.4g}, {:.4g}, {:.4g})", v.x(), v.y(), v.z());
}

}  // namespace

StaticResult solve_static(System& system, double t, const VecX& y0, const StaticOptions& options) {
  internal::ConstrainedTangent tangent(system, t, y0);
  const int n = tangent.bodies();
  const MatX& mass = tangent.mass();
  const double length = tangent.length_scale();
  const Model& model = system.model();

  VecX y = tangent.move(y0, VecX::Zero(6 * n));
  MatX basis = tangent.null_space(y);
  const auto dof = basis.cols();
  auto residual = [&](const VecX& state, const MatX& b) -> VecX {
    return b.transpose() * (mass * tangent.acceleration(state));
  };
  // Jacobian dr/dz by central differences, the basis frozen at y
  auto jacobian = [&](const VecX& state, const MatX& b) {
    MatX jac(dof, dof);
    for (Eigen::Index c = 0; c < dof; ++c) {
      const double h = 1e-6 / std::max(tangent.physical_size(b.col(c)), 1e-300);
      jac.col(c) = (residual(tangent.move(state, h * b.col(c)), b) -
                    residual(tangent.move(state, -h * b.col(c)), b)) /
                   (2 * h);
    }
    return jac;
  };

  VecX r = residual(y, basis);
  const double scale =
      std::max({load_scale(system, t, y, length), unbalance(mass * basis * r, length).force,
                unbalance(mass * basis * r, length).moment / length, 1e-12});
  const double force_tolerance = options.tolerance * scale;
  auto converged = [&](const VecX& res, const MatX& b) {
    const Unbalance u = unbalance(mass * b * res, length);
    return u.force <= force_tolerance && u.moment <= force_tolerance * length;
  };

  StaticResult result;
  result.time = t;
  result.dof = static_cast<int>(dof);
  result.load_scale = scale;
  result.length_scale = length;
  MatX jac;
  std::string failure;
  int iteration = 0;
  for (;; ++iteration) {
    if (iteration > 0) {
      basis = tangent.null_space(y);
      r = residual(y, basis);
    }
    if (converged(r, basis)) break;
    if (iteration == options.max_iterations) {
      failure = fmt::format("Newton's method did not converge in {} iterations", iteration);
      break;
    }
    jac = jacobian(y, basis);
    // least squares, minimum norm: a singular stiffness (nothing resists
    // the loads in some direction) gives no step there
    VecX dz = jac.completeOrthogonalDecomposition().solve(-r);
    const double size = tangent.physical_size(basis * dz);
    if (size > options.max_step) dz *= options.max_step / size;
    bool accepted = false;
    double alpha = 1.0;
    for (int halving = 0; halving < 30 && !accepted; ++halving, alpha *= 0.5) {
      const VecX trial = tangent.move(y, alpha * (basis * dz));
      if (residual(trial, basis).norm() < r.norm()) {
        y = trial;
        accepted = true;
      }
    }
    if (!accepted) {
      failure = fmt::format("Newton's method stalled after {} iterations", iteration);
      break;
    }
  }

  if (!failure.empty()) {
    // name what is unbalanced: the body, and the generalised forces on the
    // named coordinates (virtual work)
    const VecX loads = mass * basis * r;
    const Unbalance u = unbalance(loads, length);
    std::vector<NamedCoordinate> names;
    MatX map;
    tangent.coordinates(y, basis, 1e-5, names, map);
    const VecX q = internal::ConstrainedTangent::generalised_forces(map, r);
    std::vector<std::pair<double, std::string>> listed;
    for (Eigen::Index i = 0; i < q.size(); ++i) {
      const NamedCoordinate& c = names[static_cast<std::size_t>(i)];
      listed.emplace_back(-std::abs(q(i)) * (c.unit == "rad" ? 1.0 / length : 1.0),
                          fmt::format("{} {:.4g} {}", c.name, q(i), c.unit == "rad" ? "N m" : "N"));
    }
    std::sort(listed.begin(), listed.end());
    std::string generalised;
    for (std::size_t i = 0; i < listed.size() && i < 4; ++i) {
      if (i > 0 && listed[i].first > 1e-9 * listed[0].first) break;  // zero ones
      generalised += (i == 0 ? "" : ", ") + listed[i].second;
    }
    std::string singular;
    if (jac.size() > 0) {
      // the zero-stiffness directions, and of them the one the loads push along
      const Eigen::SelfAdjointEigenSolver<MatX> eig(0.5 * (jac + jac.transpose()));
      const double biggest = eig.eigenvalues().cwiseAbs().maxCoeff();
      VecX along = VecX::Zero(dof);
      VecX first;
      for (Eigen::Index i = 0; i < eig.eigenvalues().size(); ++i) {
        if (std::abs(eig.eigenvalues()(i)) > std::max(1e-8 * biggest, tangent.stiffness_floor()))
          continue;
        const VecX v = eig.eigenvectors().col(i);
        if (first.size() == 0) first = v;
        along += v * v.dot(r);
      }
      if (first.size() > 0) {
        const VecX dirs = map * (along.norm() > 0.0 ? along : first);
        Eigen::Index top = 0;
        if (dirs.size() > 0) dirs.cwiseAbs().maxCoeff(&top);
        singular = fmt::format(
            "; the stiffness vanishes along {}: nothing (spring, stop, driver) resists the "
            "loads there",
            dirs.size() > 0 ? names[static_cast<std::size_t>(top)].name : "a free direction");
      }
    }
    const std::string body = model.bodies()[static_cast<std::size_t>(u.body)].name;
    throw ModelError(
        {}, "static analysis",
        fmt::format(
            "no static equilibrium near the start: {}; the loads are still unbalanced by {:.4g} N "
            "and {:.4g} N m (tolerance {:.3g} N, {:.3g} N m), largest on body '{}' (force {} N, "
            "moment {} N m); generalised forces: {}{}",
            failure, u.force, u.moment, force_tolerance, force_tolerance * length, body,
            format_vec(loads.segment<3>(6 * u.body)), format_vec(loads.segment<3>(6 * u.body + 3)),
            generalised.empty() ? "none named" : generalised, singular));
  }

  const Unbalance u = unbalance(mass * basis * r, length);
  result.iterations = iteration;
  result.unbalanced_force = u.force;
  result.unbalanced_moment = u.moment;
  result.state = y;
  // stability: K_r = -dr/dz in M-orthonormal coordinates, its eigenvalues omega^2
  if (dof > 0) {
    const MatX stiffness = -jacobian(y, basis);
    const Eigen::SelfAdjointEigenSolver<MatX> eig(0.5 * (stiffness + stiffness.transpose()));
    const double biggest = eig.eigenvalues().cwiseAbs().maxCoeff();
    for (Eigen::Index i = 0; i < eig.eigenvalues().size(); ++i) {
      const double k = eig.eigenvalues()(i);
      result.stiffness_eigenvalues.push_back(k);
      if (k < -std::max(1e-8 * biggest, tangent.stiffness_floor())) result.stable = false;
    }
    if (!result.stable)
      result.notes.push_back(
          "the equilibrium is unstable: the stiffness about it has a negative eigenvalue "
          "(`ictus modes` shows the divergent direction)");
    else if (eig.eigenvalues().minCoeff() < std::max(1e-8 * biggest, tangent.stiffness_floor()))
      result.notes.push_back(
          "the equilibrium is neutral in some direction (zero stiffness): the loads vanish "
          "there, and so does any restoring load");
  }
  result.channels = static_channels(system, t, y);
  return result;
}

}  // namespace ictus
