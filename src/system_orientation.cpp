// Orientation channels (seed 002): Bryant angles x-y-z, Euler angles z-x-z and
// the direction-cosine matrix of every body (R_WB) and of every joint (the
// follower's joint frame in the base's), docs/channels.md.
#include <fmt/format.h>

#include "ictus/orientation_angles.h"
#include "system_impl.h"

namespace ictus {

// R advanced by dt along the present angular velocities (dt = 0: R itself)
Mat3 System::Impl::orientation_matrix(std::size_t item, double dt) const {
  const auto bodies = static_cast<std::size_t>(n);
  if (item < bodies) return quat_exp(kin[item].w_W * dt).toRotationMatrix() * kin[item].R_WB;
  const Joint& joint = live_joints[item - bodies];
  const BodyKinematics& kb = kinematics(joint.base);
  const BodyKinematics& kf = kinematics(joint.follower);
  const Mat3 axes_base = quat_exp(kb.w_W * dt).toRotationMatrix() * kb.R_WB * joint.frame_base.axes;
  const Mat3 axes_follower =
      quat_exp(kf.w_W * dt).toRotationMatrix() * kf.R_WB * joint.frame_follower.axes;
  return axes_base.transpose() * axes_follower;
}

namespace {
Vec3 angles_of(const Mat3& R, std::size_t slot) {
  return slot % 2 == 0 ? bryant_angles(R) : euler_zxz_angles(R);
}
// at gimbal lock as bryant_angles and euler_zxz_angles decide it (the third angle 0)
bool locked(const Mat3& R, std::size_t slot) {
  return (slot % 2 == 0 ? std::hypot(R(0, 0), R(0, 1)) : std::hypot(R(2, 0), R(2, 1))) <
         kGimbalLock;
}
}  // namespace

// unwrapped around the angles expected from the last accepted ones and their
// rates, so that a step may turn a body by more than half a turn (as joint
// angles, system_dynamics.cpp)
Vec3 System::Impl::orientation_angles(std::size_t slot) const {
  const Vec3 expected =
      orientation_reference[slot] + orientation_rate_reference[slot] * (t - reference_time);
  return unwrap_outer_angles(angles_of(orientation_matrix(slot / 2, 0.0), slot), expected);
}

// the rates of the outer angles by a difference along the angular velocity.
// Near gimbal lock they are not defined (only the sum or difference of the
// outer angles is): held at zero, except where the motion stays exactly at the
// lock (a spin about z under Euler z-x-z), where the first angle carries the
// whole turn and its rate is that of the difference
// Only the slots whose channels were looked up or read are followed: a slot
// is independent of the others, so skipping one changes no other's values.
void System::Impl::update_orientation_reference() {
  constexpr double kDt = 1e-7;
  for (std::size_t slot = 0; slot < orientation_reference.size(); ++slot) {
    if (orientation_followed[slot] == 0) continue;
    const Mat3 R = orientation_matrix(slot / 2, 0.0), R_ahead = orientation_matrix(slot / 2, kDt);
    const Vec3 now = orientation_angles(slot);
    const Vec3 ahead = unwrap_outer_angles(angles_of(R_ahead, slot), now);
    const Vec3 rate = (ahead - now) / kDt;
    const double middle = slot % 2 == 0 ? std::cos(now[1]) : std::sin(now[1]);
    orientation_reference[slot] = now;
    if (std::abs(middle) > 1e-3)
      orientation_rate_reference[slot] = rate;
    else if (locked(R, slot) && locked(R_ahead, slot))
      orientation_rate_reference[slot] = Vec3(rate[0], 0.0, 0.0);
    else
      orientation_rate_reference[slot] = Vec3::Zero();
  }
}

// per item, 3 Bryant, 3 Euler and 9 direction-cosine channels, in this order
// (register_orientation_channels)
constexpr int kChannelsPerItem = 15;

void System::Impl::note_channel_read(int channel) {
  const int offset = channel - orientation_channels_begin;
  if (offset < 0 || offset >= kChannelsPerItem * static_cast<int>(orientation_followed.size() / 2))
    return;
  const int within = offset % kChannelsPerItem;
  if (within < 6)
    orientation_followed[static_cast<std::size_t>(2 * (offset / kChannelsPerItem) + within / 3)] =
        1;
}

void System::Impl::register_orientation_channels() {
  orientation_channels_begin = static_cast<int>(channel_info.size());
  constexpr const char* kBryant[] = {"bryant_x", "bryant_y", "bryant_z"};
  constexpr const char* kEuler[] = {"euler_phi", "euler_theta", "euler_psi"};
  const auto bodies = static_cast<std::size_t>(n);
  const std::size_t items = bodies + live_joints.size();
  for (std::size_t item = 0; item < items; ++item) {
    const bool body = item < bodies;
    const std::string& name = body ? model.bodies()[item].name : live_joints[item - bodies].name;
    const char* whose = body ? "body axes in world" : "follower's joint frame in the base's";
    for (int k = 0; k < 3; ++k)
      add_channel(fmt::format("{}.{}", name, kBryant[k]), "rad", Stage::kKinematics,
                  fmt::format("Bryant angle {} of R = Rx Ry Rz ({})", k + 1, whose),
                  [this, item, k] { return orientation_angles(2 * item)(k); });
    for (int k = 0; k < 3; ++k)
      add_channel(fmt::format("{}.{}", name, kEuler[k]), "rad", Stage::kKinematics,
                  fmt::format("Euler angle {} of R = Rz Rx Rz ({})", k + 1, whose),
                  [this, item, k] { return orientation_angles(2 * item + 1)(k); });
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        add_channel(fmt::format("{}.R{}{}", name, i + 1, j + 1), "1", Stage::kKinematics,
                    fmt::format("direction cosine R({},{}) ({})", i + 1, j + 1, whose),
                    [this, item, i, j] { return orientation_matrix(item, 0.0)(i, j); });
  }
}

}  // namespace ictus
