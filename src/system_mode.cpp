// Saving and restoring what a run changes in a System (system_impl.h:
// System::ModeSnapshot), so that a run continued from a copy is bitwise the
// run continued in place.
#include <algorithm>
#include <stdexcept>

#include "ictus/forces/joint_friction.h"
#include "system_impl.h"

namespace ictus {

std::shared_ptr<const System::ModeSnapshot> System::save_mode() const {
  const Impl& s = *impl_;
  auto m = std::make_shared<ModeSnapshot>();
  m->bodies = s.n;
  m->instance_count = s.instances.size();
  m->live_joints = s.live_joints;
  for (const Impl::Instance& i : s.instances) {
    m->instance_enabled.push_back(i.enabled);
    m->instance_constraint.push_back(i.constraint);  // immutable: shared, not copied
  }
  m->joint_enabled = s.joint_enabled;
  m->force_enabled = s.force_enabled;
  m->newly_active = s.newly_active;
  m->joint_newly_enabled = s.joint_newly_enabled;
  m->joint_enabled_before = s.joint_enabled_before;
  m->dropped = s.dropped;
  m->self_stress = s.self_stress;
  m->singular_window = s.singular_window;
  m->structure_sine = s.structure_sine;
  m->sine_checked_at_ratio = s.sine_checked_at_ratio;
  m->built_sine = s.built_sine;
  m->structure_rank = s.structure_rank;
  m->rank_lowered = s.rank_lowered;
  m->structure_assembled = s.structure_assembled;
  for (const Impl::DriverRuntime& d : s.drivers) {
    m->driver_offset.push_back(d.offset);
    m->driver_held.push_back(d.held);
    m->driver_held_rotation.push_back(d.held_rotation);
  }
  for (const auto& f : s.forces) {
    m->force_mode.push_back(f->mode());
    const auto* ball = dynamic_cast<const JointFrictionElement*>(f.get());
    m->force_slip_axis.push_back(ball != nullptr ? ball->slip_axis_B() : Vec3::Zero());
    m->force_rest_rate.push_back(ball != nullptr ? ball->rest_rate() : 0.0);
  }
  m->structure_version = s.structure_version;
  m->warnings = s.warnings;
  m->warning_repeats = s.warning_repeats;
  m->dependent_rows_named = s.dependent_rows_named;
  m->energy_reference = s.energy_reference;
  m->last_impact_time = s.last_impact_time;
  m->contact_split_search = s.contact_split_search;
  m->impulses = s.impulses;
  m->joint_impulse_force = s.joint_impulse_force;
  m->joint_impulse_moment = s.joint_impulse_moment;
  m->angle_reference = s.angle_reference;
  m->angle_rate_reference = s.angle_rate_reference;
  m->reference_time = s.reference_time;
  m->orientation_reference = s.orientation_reference;
  m->orientation_rate_reference = s.orientation_rate_reference;
  return m;
}

void System::restore_mode(const ModeSnapshot& m, double t, const VecX& y) {
  Impl& s = *impl_;
  if (m.bodies != s.n || m.instance_count != s.instances.size() ||
      m.force_enabled.size() != s.forces.size() || m.driver_offset.size() != s.drivers.size() ||
      m.live_joints.size() != s.live_joints.size())
    throw std::invalid_argument("restore: the snapshot was taken from a System of another model");
  // element-wise: force elements hold references to the live joints
  std::copy(m.live_joints.begin(), m.live_joints.end(), s.live_joints.begin());
  for (std::size_t i = 0; i < s.instances.size(); ++i) {
    s.instances[i].enabled = m.instance_enabled[i];
    s.instances[i].constraint = m.instance_constraint[i];
  }
  s.joint_enabled = m.joint_enabled;
  s.force_enabled = m.force_enabled;
  s.joint_enabled_before = m.joint_enabled_before;
  for (std::size_t d = 0; d < s.drivers.size(); ++d) {
    s.drivers[d].offset = m.driver_offset[d];
    s.drivers[d].held = m.driver_held[d];
    s.drivers[d].held_rotation = m.driver_held_rotation[d];
  }
  for (std::size_t f = 0; f < s.forces.size(); ++f) {
    s.forces[f]->set_mode(m.force_mode[f]);
    if (auto* ball = dynamic_cast<JointFrictionElement*>(s.forces[f].get())) {
      ball->set_slip_axis_B(m.force_slip_axis[f]);
      ball->set_rest_rate(m.force_rest_rate[f]);
    }
  }
  // the structure of the saved run, with its dependent rows (not detected
  // again: at another state the pivots could choose other rows)
  s.compute_kinematics(t, y);
  s.adopt_redundancy = &m;
  s.rebuild_structure();
  s.adopt_redundancy = nullptr;
  s.newly_active = m.newly_active;
  s.joint_newly_enabled = m.joint_newly_enabled;
  s.structure_version = m.structure_version;
  s.warnings = m.warnings;
  s.warning_repeats = m.warning_repeats;
  s.dependent_rows_named = m.dependent_rows_named;
  s.energy_reference = m.energy_reference;
  s.last_impact_time = m.last_impact_time;
  s.contact_split_search = m.contact_split_search;
  s.impulses = m.impulses;
  s.joint_impulse_force = m.joint_impulse_force;
  s.joint_impulse_moment = m.joint_impulse_moment;
  s.angle_reference = m.angle_reference;
  s.angle_rate_reference = m.angle_rate_reference;
  s.reference_time = m.reference_time;
  s.orientation_reference = m.orientation_reference;
  s.orientation_rate_reference = m.orientation_rate_reference;
  s.forget_evaluation();
  s.dynamics_valid = false;
}

}  // namespace ictus
