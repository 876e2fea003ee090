#include "impact_energy.h"

namespace ictus::internal {

double external_impulse_work(std::span<const ExternalImpulse> external,
                             const std::vector<BodyKinematics>& kin,
                             const Eigen::Ref<const VecX>& velocities_before,
                             const Eigen::Ref<const VecX>& velocities_after) {
  double work = 0.0;
  for (const ExternalImpulse& e : external) {
    const BodyKinematics& k = kin[static_cast<std::size_t>(e.body)];
    // the generalized impulse on (v_W, omega_B): the linear impulse and its
    // moment about the body's origin with the angular impulse, in the body frame
    Vec6 impulse;
    impulse.head<3>() = e.linear_W;
    impulse.tail<3>() = k.R_WB.transpose() * ((k.R_WB * e.point_B).cross(e.linear_W) + e.angular_W);
    const Eigen::Index at = 6 * static_cast<Eigen::Index>(e.body);
    const Vec6 mean = 0.5 * (velocities_before.segment<6>(at) + velocities_after.segment<6>(at));
    work += impulse.dot(mean);
  }
  return work;
}

}  // namespace ictus::internal
