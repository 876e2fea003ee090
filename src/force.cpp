#include "ictus/force.h"

#include <fmt/format.h>

namespace ictus {

const BodyKinematics& ForceContext::body(BodyIndex b) const {
  static const BodyKinematics kGroundKinematics{};
  return b == kGround ? kGroundKinematics : bodies_[static_cast<std::size_t>(b)];
}

void LoadAccumulator::add_force_at(BodyIndex b, const BodyKinematics& kin, const Vec3& force_W,
                                   const Vec3& p_W) {
  if (b == kGround) return;
  BodyLoad& load = loads_[static_cast<std::size_t>(b)];
  load.force_W += force_W;
  load.torque_B += kin.R_WB.transpose() * (p_W - kin.p_W).cross(force_W);
}

void LoadAccumulator::add_torque_W(BodyIndex b, const BodyKinematics& kin, const Vec3& torque_W) {
  if (b == kGround) return;
  loads_[static_cast<std::size_t>(b)].torque_B += kin.R_WB.transpose() * torque_W;
}

const std::string& ForceElement::hold_joint() const {
  static const std::string kNone;
  return kNone;
}

std::string ForceElement::element_label() const {
  return fmt::format("force '{}'", name_);
}

}  // namespace ictus
