// Unilateral contacts as a time-stepping stepper sees them (Moreau-Jean,
// docs/theory/contact.md, mechanical_system.h: TimeSteppingRows): the
// equality rows and the contact rows, dense, at a state; the impulses of a
// step for the channels; the energy audit of a step. The contact sides' hold
// rows stay open: the stepper imposes the contacts through its own
// complementarity problem.
#include <algorithm>
#include <array>
#include <limits>
#include <span>

#include "dense_rows.h"
#include "ictus/forces/reaction_friction.h"
#include "ictus/system.h"
#include "system_impl.h"

namespace ictus {

int System::unilateral_count() const {
  return static_cast<int>(impl_->contact_sides.size());
}

namespace {

// Resizes only when the shape differs (the structure changed).
void shape(MatX& m, Eigen::Index rows, Eigen::Index cols) {
  if (m.rows() != rows || m.cols() != cols) m.resize(rows, cols);
}
void shape(VecX& v, Eigen::Index rows) {
  if (v.size() != rows) v.resize(rows);
}

}  // namespace

void System::time_stepping_rows(double t, const VecX& y, TimeSteppingRows& out) {
  Impl& s = *impl_;
  if (!s.is_current(t, y)) s.compute_kinematics(t, y);
  s.compute_rows();
  const int nv = 6 * s.n;
  Eigen::Index equality = 0;
  for (std::size_t r = 0; r < s.rows.size(); ++r)
    if (s.dropped[r] == 0) ++equality;
  shape(out.D, equality, nv);
  shape(out.target, equality);
  Eigen::RowVectorXd& work = s.time_stepping_row;
  if (work.size() != nv) work.resize(nv);
  Eigen::Index i = 0;
  for (std::size_t r = 0; r < s.rows.size(); ++r) {
    if (s.dropped[r] != 0) continue;
    const internal::RowBodies& rb = s.row_bodies[r];
    internal::scatter_row(s.rows[r], rb.base, rb.follower, 1.0, work);
    out.D.row(i) = work;
    out.target(i) = s.rows[r].target;
    ++i;
  }
  const auto sides = static_cast<Eigen::Index>(s.contact_sides.size());
  shape(out.G, sides, nv);
  shape(out.gap, sides);
  shape(out.restitution, sides);
  shape(out.resolution, sides);
  for (Eigen::Index k = 0; k < sides; ++k) {
    const Impl::ContactSide& side = s.contact_sides[static_cast<std::size_t>(k)];
    const Impl::DriverRuntime& d = s.drivers[static_cast<std::size_t>(side.driver)];
    const Impl::Instance& inst = s.instances[static_cast<std::size_t>(d.instance)];
    // a joint limit's hold acts between the joint's bodies, a shape point's
    // between its own
    const BodyIndex base =
        d.joint >= 0 ? s.live_joints[static_cast<std::size_t>(d.joint)].base : inst.base;
    const BodyIndex follower =
        d.joint >= 0 ? s.live_joints[static_cast<std::size_t>(d.joint)].follower : inst.follower;
    ConstraintRow row;
    const ConstraintContext ctx{s.kinematics(base), s.kinematics(follower), s.t,
                                MotionSample{d.held, 0.0, 0.0}};
    inst.constraint->evaluate(ctx, std::span<ConstraintRow>(&row, 1));
    internal::scatter_row(row, base, follower, side.sign, work);
    out.G.row(k) = work;
    out.gap(k) = s.contact_gap(static_cast<int>(k));
    out.restitution(k) = side.restitution;
    // at least a metre's (or radian's) round-off: a coordinate near zero
    // (a limit at 0) is computed from positions of that order
    out.resolution(k) = std::max(contact_gap_resolution(static_cast<int>(k)),
                                 10.0 * std::numeric_limits<double>::epsilon());
  }
  // Coulomb friction: each frictional side's slip rates along its tangents,
  // the rows of its friction elements' holds (ContactFrictionElement)
  bool friction = false;
  for (const auto& f : s.side_friction) friction = friction || f[0] >= 0;
  shape(out.T, friction ? 2 * sides : 0, nv);
  shape(out.mu, sides);
  shape(out.mu_static, sides);
  out.mu.setZero();
  out.mu_static.setZero();
  for (Eigen::Index k = 0; k < sides && friction; ++k) {
    const std::array<int, 2>& f = s.side_friction[static_cast<std::size_t>(k)];
    for (std::size_t axis = 0; axis < 2; ++axis) {
      out.T.row(2 * k + static_cast<Eigen::Index>(axis)).setZero();
      if (f[axis] < 0) continue;
      const Impl::FrictionJoint& fj = s.friction_joints[static_cast<std::size_t>(f[axis])];
      const auto& e =
          static_cast<const ReactionFriction&>(*s.forces[static_cast<std::size_t>(fj.force)]);
      out.mu(k) = e.kinetic_lever();
      out.mu_static(k) = e.static_lever();
      internal::scatter_row(internal::slip_rate_row(s, fj), fj.base, fj.follower, 1.0, work);
      out.T.row(2 * k + static_cast<Eigen::Index>(axis)) = work;
    }
  }
}

void System::hand_contact_friction_to_stepper() {
  Impl& s = *impl_;
  // the stepper's complementarity problem imposes the friction; the
  // elements' event-driven stick/slip (their hold rows) stays off
  for (const Impl::FrictionJoint& fj : s.friction_joints)
    if (fj.contact_side >= 0) s.force_enabled[static_cast<std::size_t>(fj.force)] = 0;
  s.dynamics_valid = false;
}

void System::record_contact_impulses(double h, Eigen::Ref<const VecX> impulse) {
  Impl& s = *impl_;
  s.time_stepping = true;
  s.time_step = h;
  // the normal impulses, then (with friction) two tangential ones per side
  const std::size_t count = 3 * s.contact_sides.size();
  if (s.step_impulses.size() != count) s.step_impulses.resize(count);  // once, at the first step
  std::fill(s.step_impulses.begin(), s.step_impulses.end(), 0.0);
  for (Eigen::Index k = 0; k < impulse.size() && k < static_cast<Eigen::Index>(count); ++k)
    s.step_impulses[static_cast<std::size_t>(k)] = impulse(k);
}

double System::Impl::energy_balance(double time, const VecX& state) {
  compute_kinematics(time, state);
  const int aux = layout.audit_offset();
  return kinetic_energy() + potential_energy() - state(aux + kAuxAppliedWork) -
         state(aux + kAuxDriverWork) + state(aux + kAuxDissipated) - energy_reference;
}

double System::book_step_energy(double t0, const VecX& y0, double t1, VecX& y1, double theta,
                                double impact_loss, double constraint_work) {
  Impl& s = *impl_;
  const int aux = s.layout.audit_offset();
  const double h = t1 - t0;
  // the applied power and the elements' dissipation, theta-weighted like
  // the forces of the step
  s.compute_kinematics(t0, y0);
  s.compute_loads();
  const ForcePower p0 = s.power;
  const double balance0 = s.energy_balance(t0, y0);
  y1.tail(kAuxCount) = y0.tail(kAuxCount);
  s.compute_kinematics(t1, y1);
  s.compute_loads();
  const ForcePower p1 = s.power;
  y1(aux + kAuxAppliedWork) += h * ((1.0 - theta) * p0.applied + theta * p1.applied);
  y1(aux + kAuxDissipated) += h * ((1.0 - theta) * p0.dissipated + theta * p1.dissipated);
  y1(aux + kAuxDriverWork) += constraint_work;
  y1(aux + kAuxImpactLoss) += impact_loss;
  y1(aux + kAuxDissipated) += impact_loss;
  // what the balance still lacks is the scheme's own dissipation
  const double scheme = -(s.energy_balance(t1, y1) - balance0);
  y1(aux + kAuxDissipated) += scheme;
  s.forget_evaluation();
  s.dynamics_valid = false;
  return scheme;
}

}  // namespace ictus
