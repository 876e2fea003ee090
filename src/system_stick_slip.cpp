// Stick/slip elements (seed 003, issue 16): the System's side of the
// set-valued law at zero rate. The element adds its slip force itself; the
// System holds its coordinate by a driver row (a joint coordinate) or a
// distance row (two points) while it sticks
// (System::Impl::build_holds) and reports the friction force. The switching
// (when to stick, when to slip) is decided by the Simulation
// (src/element_switching.cpp).
#include "ictus/forces/joint_friction.h"
#include "ictus/system.h"
#include "system_impl.h"

namespace ictus {

int System::stick_slip_count() const {
  return static_cast<int>(impl_->stick_slip_forces.size());
}

const ForceElement& System::stick_slip_element(int k) const {
  return *impl_->forces[static_cast<std::size_t>(
      impl_->stick_slip_forces[static_cast<std::size_t>(k)])];
}

bool System::stick_slip_enabled(int k) const {
  const Impl& s = *impl_;
  if (s.force_enabled[static_cast<std::size_t>(s.stick_slip_forces[static_cast<std::size_t>(k)])] ==
      0)
    return false;
  // a contact tangent acts only while its contact is closed: open, its
  // normal force is zero and it has nothing to hold or decide
  // (System::set_contact_closed releases it; ElementSwitching::wake decides
  // it when the contact closes)
  for (const Impl::FrictionJoint& fj : s.friction_joints)
    if (fj.stick_slip == k) return fj.contact_side < 0 || contact_closed(fj.contact_side);
  return true;
}

bool System::set_stick_slip_mode(int k, int mode) {
  Impl& s = *impl_;
  ForceElement& f =
      *s.forces[static_cast<std::size_t>(s.stick_slip_forces[static_cast<std::size_t>(k)])];
  Impl::DriverRuntime& d =
      s.drivers[static_cast<std::size_t>(s.hold_driver[static_cast<std::size_t>(k)])];
  Impl::Instance& hold = s.instances[static_cast<std::size_t>(d.instance)];
  const int before = f.mode();
  f.set_mode(mode);
  s.forget_evaluation();  // formula slots may read the element's channels
  if (mode == kStick && before != kStick) {
    // held where it is: the value at the instant of sticking
    if (d.hold_rotation) {
      d.held_rotation = s.kinematics(hold.base).R_WB.transpose() * s.kinematics(hold.follower).R_WB;
    } else if (d.hold_own_row) {
      const ForceContext ctx(s.kin, s.t);
      d.held = f.slip_coordinate(ctx);
    } else if (d.hold_distance) {
      d.held = (s.kinematics(hold.follower).point(d.hold_point_follower) -
                s.kinematics(hold.base).point(d.hold_point_base))
                   .norm();
    } else {
      d.held = d.coordinate == Driver::Coordinate::kAngle ? s.joint_angle(d.joint) - d.offset
                                                          : s.joint_translation(d.joint) - d.offset;
    }
  }
  const char on = mode == kStick ? 1 : 0;
  if (hold.enabled == on) return false;
  hold.enabled = on;
  s.mark_structure_changed();
  return true;
}

double System::stick_slip_coordinate(int k) {
  Impl& s = *impl_;
  const ForceContext ctx(s.kin, s.t);
  return stick_slip_element(k).slip_coordinate(ctx);
}

double System::stick_slip_rate(int k) {
  Impl& s = *impl_;
  const ForceContext ctx(s.kin, s.t);
  return stick_slip_element(k).slip_rate(ctx);
}

double System::stick_slip_limit(int k) {
  Impl& s = *impl_;
  if (s.friction_joint_of_stick_slip(k) != nullptr) s.ensure_dynamics();  // mu_s |N|
  const ForceContext ctx(s.kin, s.t);
  return stick_slip_element(k).slip_limit(ctx);
}

double System::friction_force(int k) {
  Impl& s = *impl_;
  const ForceElement& f = stick_slip_element(k);
  if (!stick_slip_enabled(k)) return 0.0;
  if (s.friction_joint_of_stick_slip(k) != nullptr) {
    s.ensure_dynamics();
    return static_cast<const ReactionFriction&>(f).force();
  }
  if (f.mode() != kStick) return -f.mode() * stick_slip_limit(k);
  s.ensure_dynamics();
  const int row = s.hold_row(k);
  return row < 0 ? 0.0 : s.multiplier(row);
}

// A locked element (a driver on its joint, whose hold is dependent on the
// driver's row and dropped) is moved by the others whatever its force, which
// is zero: F_max - |lambda| never tells that the driver has started to turn
// it, and held by nothing its coordinate would leave the value it is stuck
// at. It stays stuck while the others keep it at rest: its acceleration
// within the drift a decision at zero rate takes for rest (Impl::kLockedDrift
// of what its force scale gives it free), and its rate within
// Impl::locked_rate (a slow drive below that acceleration, or one with no
// normal force and so no scale, turns it all the same). Its margin, in
// force, reaches zero at either, and it slips the way they move it
// (slip_mode_from_hold).
double System::stuck_margin(int k) {
  Impl& s = *impl_;
  const double margin = stick_slip_limit(k) - std::abs(friction_force(k));
  if (!s.locked_by_others(k)) return margin;
  const double force_scale = s.locked_force_scale(k);
  const double scale = force_scale > 0.0 ? force_scale : 1.0;  // only the sign counts then
  const double rate = std::abs(stick_slip_rate(k));
  double locked = scale * (1.0 - rate / s.locked_rate());
  const double free = s.hold_free_response(k);
  if (free > 0.0 && force_scale > 0.0)
    locked = std::min(locked,
                      force_scale - std::abs(s.hold_acceleration(k)) / (Impl::kLockedDrift * free));
  // its force is zero (its hold dropped): with no normal force its margin
  // is zero too, and only the others' motion can take it below
  return margin > 0.0 ? std::min(margin, locked) : locked;
}

bool System::search_contact_splits() {
  Impl& s = *impl_;
  if (s.contact_split_search) return false;
  s.contact_split_search = true;
  s.dynamics_valid = false;  // the next solve splits anew
  return true;
}

bool System::contact_splits_searched() const {
  return impl_->contact_split_search;
}

bool System::stick_slip_locked(int k) const {
  return impl_->locked_by_others(k);
}

double System::Impl::locked_rate() const {
  return 1e3 * model.settings().integrator.atol;
}

bool System::Impl::locked_by_others(int k) const {
  const auto ki = static_cast<std::size_t>(k);
  const DriverRuntime& d = drivers[static_cast<std::size_t>(hold_driver[ki])];
  if (d.hold_rotation || force_enabled[static_cast<std::size_t>(stick_slip_forces[ki])] == 0 ||
      forces[static_cast<std::size_t>(stick_slip_forces[ki])]->mode() != kStick)
    return false;
  const int row = hold_row(k);
  return row >= 0 && dropped[static_cast<std::size_t>(row)] != 0 && !held_with_other_holds(row);
}

double System::Impl::hold_acceleration(int k) const {
  const int row = hold_row(k);
  const internal::RowBodies& hold = row_bodies[static_cast<std::size_t>(row)];
  const ConstraintRow& r = rows[static_cast<std::size_t>(row)];
  double a = -r.gamma;
  if (hold.base != kGround) a += r.J_base.dot(accelerations[static_cast<std::size_t>(hold.base)]);
  if (hold.follower != kGround)
    a += r.J_follower.dot(accelerations[static_cast<std::size_t>(hold.follower)]);
  return a;
}

double System::Impl::hold_free_response(int k) {
  const int row = hold_row(k);
  const internal::RowBodies& hold = row_bodies[static_cast<std::size_t>(row)];
  return free_response_along(stick_slip_forces[static_cast<std::size_t>(k)],
                             rows[static_cast<std::size_t>(row)], hold.base, hold.follower);
}

double System::Impl::locked_force_scale(int k) {
  if (const FrictionJoint* fj = friction_joint_of_stick_slip(k); fj != nullptr)
    return locked_force_scale(*fj, friction_element(*fj), 0.0);
  const ForceContext ctx(kin, t);
  return forces[static_cast<std::size_t>(stick_slip_forces[static_cast<std::size_t>(k)])]
      ->slip_limit(ctx);
}

int System::stick_slip_group(int k) const {
  return impl_->stick_slip_group(k);
}

void System::Impl::stick_slip_bodies(int k, BodyIndex& base, BodyIndex& follower) const {
  const DriverRuntime& hold =
      drivers[static_cast<std::size_t>(hold_driver[static_cast<std::size_t>(k)])];
  const Instance& inst = instances[static_cast<std::size_t>(hold.instance)];
  base = inst.base;
  follower = inst.follower;
  if (inst.joint >= 0) {
    base = live_joints[static_cast<std::size_t>(inst.joint)].base;
    follower = live_joints[static_cast<std::size_t>(inst.joint)].follower;
  }
}

int System::Impl::stick_slip_group(int k) const {
  BodyIndex base = kGround, follower = kGround;
  stick_slip_bodies(k, base, follower);
  return group_of_bodies(base, follower);
}

}  // namespace ictus
