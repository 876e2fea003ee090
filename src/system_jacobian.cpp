// Load Jacobians of the System (docs/theory/jacobians.md): the force
// elements' blocks (analytic or element-local finite differences), the
// gyroscopic term, and the global finite difference that the tests check
// them against.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ictus/system.h"
#include "system_impl.h"

namespace ictus {

namespace {

// Installs perturbed kinematics in the System before an element is applied,
// so that the formula slots it reads (joint coordinates, body channels) see
// them too; the caller restores the unperturbed ones afterwards.
class SystemProbe final : public ForceProbe {
 public:
  explicit SystemProbe(System::Impl& s) : s_(s) {}
  void element_loads(const ForceElement& element, std::span<const BodyKinematics> bodies, double t,
                     ForcePart part, std::span<BodyLoad> loads) override {
    std::copy(bodies.begin(), bodies.end(), s_.kin.begin());
    s_.refresh_slots(s_.kinematic_slots);
    std::fill(loads.begin(), loads.end(), BodyLoad{});
    const ForceContext ctx(s_.kin, t);
    LoadAccumulator accumulator(loads);
    element.apply_part(ctx, accumulator, part);
  }

 private:
  System::Impl& s_;
};

void gather_loads(const System::Impl& s, VecX& f) {
  for (int b = 0; b < s.n; ++b) {
    const BodyLoad& l = s.loads[static_cast<std::size_t>(b)];
    f.segment<3>(6 * b) = l.force_W;
    f.segment<3>(6 * b + 3) = l.torque_B;
  }
}

// Central differences of compute_loads() over every coordinate: 24 n load
// evaluations of the whole system. Deliberately plain (no colouring): a
// formula may read any body's channels, and the cross-check must not rely on
// the sparsity it is meant to verify.
void global_difference(System::Impl& s, double t, MatX& K_q, MatX& K_v) {
  const StateLayout& l = s.layout;
  const int nv = l.velocity_size();
  const VecX& y = s.jacobian_state;
  VecX& f_plus = s.jacobian_plus;
  VecX& f_minus = s.jacobian_minus;
  VecX& dq = s.jacobian_increment;
  f_plus.resize(nv);
  f_minus.resize(nv);
  dq.setZero(nv);
  VecX& yp = s.jacobian_perturbed;
  // step eps^(1/3) scaled to the coordinate: O(h^2) truncation and O(eps/h)
  // round-off balance (relative error ~ 1e-10 for smooth loads)
  const double root3_eps = std::cbrt(std::numeric_limits<double>::epsilon());
  auto loads_at = [&](const VecX& state, VecX& f) {
    s.compute_kinematics(t, state);
    s.compute_loads();
    gather_loads(s, f);
  };
  for (int j = 0; j < nv; ++j) {
    const double x = j % 6 < 3 ? y(7 * (j / 6) + j % 6) : 0.0;
    const double h = root3_eps * std::max(std::abs(x), 1.0);
    for (const double sign : {1.0, -1.0}) {
      dq(j) = sign * h;
      yp = y;
      integrate_positions(l, l.positions(y), dq, l.positions(yp));
      loads_at(yp, sign > 0 ? f_plus : f_minus);
    }
    dq(j) = 0.0;
    K_q.col(j) = (f_plus - f_minus) / (2.0 * h);
  }
  for (int j = 0; j < nv; ++j) {
    const double v = y(l.velocity_offset() + j);
    const double h = root3_eps * std::max(std::abs(v), 1.0);
    for (const double sign : {1.0, -1.0}) {
      yp = y;
      yp(l.velocity_offset() + j) += sign * h;
      loads_at(yp, sign > 0 ? f_plus : f_minus);
    }
    K_v.col(j) = (f_plus - f_minus) / (2.0 * h);
  }
}

}  // namespace

void System::force_jacobian(double t, const VecX& y, MatX& K_q, MatX& K_v, JacobianMethod method) {
  Impl& s = *impl_;
  const int nv = s.layout.velocity_size();
  K_q.setZero(nv, nv);
  K_v.setZero(nv, nv);
  s.jacobian_state = y;  // y may be the System's own copy, which evaluations overwrite
  if (method == JacobianMethod::kGlobalFiniteDifference) {
    global_difference(s, t, K_q, K_v);
    s.compute_kinematics(t, s.jacobian_state);
    return;
  }
  s.compute_kinematics(t, s.jacobian_state);
  s.jacobian_kinematics = s.kin;
  ForceJacobian& J = s.jacobian_work;
  J.clear();
  SystemProbe probe(s);
  J.probe = &probe;
  const ForceContext ctx(s.jacobian_kinematics, t);
  for (std::size_t f = 0; f < s.forces.size(); ++f) {
    if (s.force_enabled[f] == 0) continue;
    J.probe_used = false;
    if (method == JacobianMethod::kAnalytic)
      s.forces[f]->add_jacobian(ctx, J);
    else
      s.forces[f]->add_jacobian_fd(ctx, J, ForcePart::kAll);
    if (J.probe_used) {  // back to the unperturbed state for the next element
      std::copy(s.jacobian_kinematics.begin(), s.jacobian_kinematics.end(), s.kin.begin());
      s.refresh_slots(s.kinematic_slots);
    }
  }
  J.probe = nullptr;
  for (const ForceJacobian::Block& b : J.blocks()) {
    K_q.block<6, 6>(6 * b.load_body, 6 * b.coordinate_body) += b.position;
    K_v.block<6, 6>(6 * b.load_body, 6 * b.coordinate_body) += b.velocity;
  }
  // gyroscopic torque tau_B = -w x (J w) = (J w) x w (Euler's equations):
  // d tau_B / d w_B = [J w]x - [w]x J; no position dependence in body axes
  for (int b = 0; b < s.n; ++b) {
    const auto i = static_cast<std::size_t>(b);
    const Mat3& inertia = s.model.bodies()[i].inertia;
    const Vec3& w = s.kin[i].w_B;
    K_v.block<3, 3>(6 * b + 3, 6 * b + 3) += skew(inertia * w) - skew(w) * inertia;
  }
  s.dynamics_valid = false;
}

}  // namespace ictus
