// The pieces of M u' = f + D^T lambda that the System offers to steppers
// that assemble their own equations (mechanical_system.h): forces, mass
// products, constraint forces, residuals, multipliers.
#include "system_impl.h"

namespace ictus {

int System::constraint_count() const {
  return static_cast<int>(impl_->rows.size());
}

void System::add_forces(double t, const VecX& y, double c, Eigen::Ref<VecX> r) {
  Impl& s = *impl_;
  if (!s.is_current(t, y)) s.compute_kinematics(t, y);
  s.compute_loads();  // the loads include the gyroscopic term -w x J w
  for (int b = 0; b < s.n; ++b) {
    const BodyLoad& load = s.loads[static_cast<std::size_t>(b)];
    r.segment<3>(6 * b) += c * load.force_W;
    // a point mass's rotation is frozen: no torque turns it (add_mass_times)
    if (!s.model.bodies()[static_cast<std::size_t>(b)].point_mass)
      r.segment<3>(6 * b + 3) += c * load.torque_B;
  }
  s.dynamics_valid = false;  // the loads were recomputed without a solve
}

void System::add_mass_times(double c, Eigen::Ref<const VecX> w, Eigen::Ref<VecX> r) const {
  const Model& m = impl_->model;
  for (int b = 0; b < impl_->n; ++b) {
    const Body& body = m.bodies()[static_cast<std::size_t>(b)];
    r.segment<3>(6 * b) += (c * body.mass) * w.segment<3>(6 * b);
    // a point mass: identity rows for its frozen rotation keep the implicit
    // steppers' iteration matrix regular (with add_forces: w' = 0)
    if (body.point_mass)
      r.segment<3>(6 * b + 3) += c * w.segment<3>(6 * b + 3);
    else
      r.segment<3>(6 * b + 3) += c * (body.inertia * w.segment<3>(6 * b + 3));
  }
}

void System::add_constraint_forces(double t, const VecX& y, double c, Eigen::Ref<const VecX> lambda,
                                   Eigen::Ref<VecX> r) {
  Impl& s = *impl_;
  if (!s.is_current(t, y)) s.compute_kinematics(t, y);
  s.compute_rows();
  // a dependent contact row's share too (system_dependent_contacts.cpp)
  for (int k = 0; k < s.D.rows(); ++k)
    if (s.row_carries(k))
      s.D.add_transpose(k, c * lambda(k), [&r](BodyIndex b) { return r.segment<6>(6 * b); });
}

void System::constraint_residuals(double t, const VecX& y, Eigen::Ref<VecX> phi,
                                  Eigen::Ref<VecX> phi_dot) {
  Impl& s = *impl_;
  if (!s.is_current(t, y)) s.compute_kinematics(t, y);
  s.compute_rows();
  for (int k = 0; k < s.D.rows(); ++k) {
    const ConstraintRow& row = s.rows[static_cast<std::size_t>(k)];
    phi(k) = row.has_position_error ? row.position_error : 0.0;
    phi_dot(k) = s.row_rate(k) - row.target;
  }
}

void System::multipliers(Eigen::Ref<VecX> out) const {
  const Impl& s = *impl_;
  for (int k = 0; k < static_cast<int>(s.rows.size()); ++k) out(k) = s.multiplier(k);
}

}  // namespace ictus
