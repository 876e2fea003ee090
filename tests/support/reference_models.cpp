#include "support/reference_models.h"

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "ictus/model_file.h"

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

Model make_pendulums(int count) {
  constexpr double kMass = 0.1;
  Model model;
  model.set_name(fmt::format("{} independent pendulums", count));
  model.set_gravity(Vec3(0.0, 0.0, -9.81));
  for (int k = 0; k < count; ++k) {
    const double f = count > 1 ? double(k) / (count - 1) : 0.0;
    const double length = 0.1 + 0.1 * f;
    const double angle = 0.25 * kPi * f;  // below the horizontal
    const Vec3 pivot(0.0, 0.3 * k, 0.0);
    const Vec3 along(std::cos(angle), 0.0, -std::sin(angle));
    Body b;
    b.name = fmt::format("rod{}", k);
    b.mass = kMass;
    const double transverse = kMass * length * length / 12.0;
    b.inertia = Vec3(1e-6, transverse, transverse).asDiagonal();  // rod along body x
    b.position = pivot + 0.5 * length * along;
    b.orientation = Quat(Eigen::AngleAxisd(angle, Vec3::UnitY()));
    model.add_body(b);
    JointPlacement place;
    place.origin_W = pivot;
    place.axes_W = frame_from_z(Vec3::UnitY());
    model.add_joint(fmt::format("hinge{}", k), "revolute", "ground", b.name, place);
  }
  model.settings().until = 1.0;
  model.settings().output_step = 0.01;
  return model;
}

std::string parallelogram_chain_text(int count, double until) {
  std::string text = "parameters: {r: 0.3, d: 1.0, mc: 1.0, mk: 0.5, w0: 4.0}\nbodies:\n";
  for (int i = 0; i <= count; ++i)
    text += fmt::format(
        "  crank{0}: {{mass: mk, inertia: [mk*r^2/12, mk*r^2/12, mk*r^2/12], "
        "position: [{0}*d, r/2, 0]}}\n",
        i);
  for (int i = 0; i < count; ++i)
    text += fmt::format(
        "  coupler{0}: {{mass: mc, inertia: [mc*d^2/12, mc*d^2/12, mc*d^2/12], "
        "position: [{0}*d + d/2, r, 0]}}\n",
        i);
  text += "joints:\n";
  for (int i = 0; i <= count; ++i)
    text += fmt::format(
        "  pivot{0}: {{type: revolute, between: [ground, crank{0}], at: [{0}*d, 0, 0], "
        "axis: [0, 0, 1]}}\n",
        i);
  for (int i = 0; i < count; ++i)
    text += fmt::format(
        "  left{0}: {{type: revolute, between: [crank{0}, coupler{0}], at: [{0}*d, r, 0], "
        "axis: [0, 0, 1]}}\n"
        "  right{0}: {{type: revolute, between: [crank{1}, coupler{0}], at: [{1}*d, r, 0], "
        "axis: [0, 0, 1]}}\n",
        i, i + 1);
  text += "gravity: [0, -9.81, 0]\ninitial_velocities: {pivot0.omega: w0}\n" +
          fmt::format("simulate: {{until: {}, output_step: 0.01}}\n", until);
  return text;
}

Model make_parallelogram_chain(int count) {
  return parse_model(parallelogram_chain_text(count, 3.0),
                     fmt::format("parallelogram_chain_{}.yaml", count));
}

}  // namespace ictus::test
