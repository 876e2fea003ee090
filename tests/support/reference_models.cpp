#include "support/reference_models.h"

#include <fmt/format.h>

namespace ictus::test {

Model make_chain(int links) {
  constexpr double kLength = 0.1;
  constexpr double kMass = 0.1;
  Model model;
  model.set_name(fmt::format("chain of {} links", links));
  model.set_gravity(Vec3(0.0, 0.0, -9.81));
  const double transverse = kMass * kLength * kLength / 12.0;
  for (int k = 0; k < links; ++k) {
    Body b;
    b.name = fmt::format("link{}", k);
    b.mass = kMass;
    b.inertia = Vec3(1e-6, transverse, transverse).asDiagonal();  // rod along body x
    b.position = Vec3((k + 0.5) * kLength, 0.0, 0.0);
    model.add_body(b);
  }
  for (int k = 0; k < links; ++k) {
    JointPlacement place;
    place.origin_W = Vec3(k * kLength, 0.0, 0.0);
    place.axes_W = frame_from_z(Vec3::UnitY());
    model.add_joint(fmt::format("hinge{}", k), "revolute",
                    k == 0 ? std::string("ground") : fmt::format("link{}", k - 1),
                    fmt::format("link{}", k), place);
  }
  model.settings().until = 1.0;
  model.settings().output_step = 0.01;
  return model;
}

}  // namespace ictus::test
