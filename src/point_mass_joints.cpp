#include "point_mass_joints.h"

#include <fmt/format.h>

#include <array>
#include <vector>

namespace ictus::internal {

namespace {

BodyKinematics pose(const Model& model, BodyIndex b, const Vec3& shift, const Quat& turn) {
  BodyKinematics k;
  if (b == kGround) return k;
  const Body& body = model.bodies()[static_cast<std::size_t>(b)];
  k.p_W = body.position + shift;
  k.R_WB = (turn * body.orientation).toRotationMatrix();
  return k;
}

bool is_point_mass(const Model& model, BodyIndex b) {
  return b != kGround && model.bodies()[static_cast<std::size_t>(b)].point_mass;
}

}  // namespace

void check_point_mass_joints(const Model& model) {
  // The rows' angular part for a body is built from its body-fixed points and
  // directions; when only its origin takes part it is exactly zero in every
  // configuration. Two configurations (the initial one and a generic
  // displacement and turn of both bodies) avoid a coincidental zero.
  const std::array<Vec3, 2> shifts{Vec3::Zero(), Vec3(0.37, -0.61, 0.83)};
  const std::array<Quat, 2> turns{Quat::Identity(),
                                  Quat(Eigen::AngleAxisd(0.9, Vec3(1.0, 2.0, -1.5).normalized()))};
  std::vector<ConstraintRow> rows;
  for (const Joint& j : model.joints()) {
    if (!is_point_mass(model, j.base) && !is_point_mass(model, j.follower)) continue;
    for (const JointMember& m : j.members) {
      rows.assign(static_cast<std::size_t>(m.constraint->row_count()), ConstraintRow{});
      for (std::size_t c = 0; c < shifts.size(); ++c) {
        const BodyKinematics base = pose(model, j.base, shifts[c], turns[c]);
        const BodyKinematics follower = pose(model, j.follower, -shifts[c], turns[c].conjugate());
        m.constraint->evaluate({base, follower, model.settings().start, {}}, rows);
        for (const ConstraintRow& row : rows)
          for (const auto& [body, J] :
               {std::pair{j.base, &row.J_base}, std::pair{j.follower, &row.J_follower}}) {
            if (!is_point_mass(model, body) || J->tail<3>().isZero(0.0)) continue;
            throw ModelError(
                j.where, fmt::format("joint '{}'", j.name),
                fmt::format("'{}.{}' ({}) acts on the rotation of body '{}', a point mass; a "
                            "point mass has no rotation: attach it at its origin with a "
                            "spherical joint, a distance or a point_on_plane constraint",
                            j.name, m.label, m.constraint->kind(), model.body_name(body)));
          }
      }
    }
  }
}

}  // namespace ictus::internal
