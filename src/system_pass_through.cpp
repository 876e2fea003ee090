// The warning for a constraint that an event left off while the follower is
// behind it (issue 9, defect 6): an event-switched stop whose bounces
// accumulate (Zeno) stops being switched on, and the body passes through it
// without an error. Until contact is unilateral, the run says so.
#include <fmt/format.h>

#include "ictus/constraints/point_on_plane.h"
#include "system_impl.h"

namespace ictus {

// The gap of a point_on_plane member is its position-level value
// n . (P - A): negative when the follower point is behind the plane.
constexpr double kPassedThrough = 1e-6;  // [m], beyond what event location leaves

void System::Impl::mark_event_switched_constraints() {
  event_switched.assign(instances.size(), 0);
  passed_through_warned.assign(instances.size(), 0);
  for (const Event& e : model.events())
    for (const auto* actions : {&e.on_true, &e.on_false})
      for (const Action& a : *actions) {
        if (a.kind != Action::Kind::kEnable && a.kind != Action::Kind::kDisable) continue;
        for (std::size_t i = 0; i < instances.size(); ++i) {
          const Instance& inst = instances[i];
          if (inst.joint < 0 || inst.driver >= 0) continue;
          const std::string& joint = live_joints[static_cast<std::size_t>(inst.joint)].name;
          if (a.target == joint || a.target == joint + "." + inst.label) event_switched[i] = 1;
        }
      }
}

void System::Impl::warn_passed_through(double time) {
  for (std::size_t i = 0; i < instances.size(); ++i) {
    if (event_switched[i] == 0 || passed_through_warned[i] != 0) continue;
    const Instance& inst = instances[i];
    if (joint_enabled[static_cast<std::size_t>(inst.joint)] != 0 && inst.enabled != 0) continue;
    const auto* plane = dynamic_cast<const PointOnPlane*>(inst.constraint.get());
    if (plane == nullptr) continue;
    const Joint& joint = live_joints[static_cast<std::size_t>(inst.joint)];
    const ConstraintContext ctx{kinematics(joint.base), kinematics(joint.follower), time, {}};
    ConstraintRow row;
    plane->evaluate(ctx, {&row, 1});
    if (!(row.position_error < -kPassedThrough)) continue;
    passed_through_warned[i] = 1;
    warnings.push_back(fmt::format(
        "t = {:.9g} s: '{}.{}' is switched off by an event while its gap is {:.3g} m: the "
        "follower has passed through it (bounces of an event-switched stop that accumulate "
        "are missed; give the stop no restitution, or end the run before)",
        time, joint.name, inst.label, row.position_error));
  }
}

}  // namespace ictus
