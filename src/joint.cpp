#include "ictus/joint.h"

#include <fmt/format.h>

#include <functional>
#include <map>

#include "ictus/constraints/perpendicular.h"
#include "ictus/constraints/point_coincidence.h"
#include "ictus/constraints/point_on_plane.h"
#include "ictus/constraints/rotation_lock.h"
#include "text_util.h"

namespace ictus {

void place_joint(Joint& joint, const JointPlacement& placement, const Vec3& p_base,
                 const Quat& q_base, const Vec3& p_follower, const Quat& q_follower) {
  const Mat3 R_base = q_base.toRotationMatrix();
  const Mat3 R_follower = q_follower.toRotationMatrix();
  joint.frame_base.origin = R_base.transpose() * (placement.origin_W - p_base);
  joint.frame_base.axes = R_base.transpose() * placement.axes_W;
  joint.frame_follower.origin = R_follower.transpose() * (placement.origin_W - p_follower);
  joint.frame_follower.axes = R_follower.transpose() * placement.axes_W;
}

namespace {

constexpr const char* kAxisNames[] = {"x", "y", "z"};

// Each standard joint is a recipe of elementary constraints expressed in the
// joint frames (seed 002: a joint is a set of elementary constraints).
void add_point(Joint& j) {
  j.members.push_back(
      {std::make_shared<PointCoincidence>(j.frame_base.origin, j.frame_follower.origin), "point"});
}
void add_lock(Joint& j, int axis) {
  j.members.push_back(
      {std::make_shared<RotationLock>(j.frame_base.axes.col(axis), j.frame_follower.axes.col(axis)),
       fmt::format("lock_{}", kAxisNames[axis])});
}
void add_plane(Joint& j, int normal_axis) {
  j.members.push_back(
      {std::make_shared<PointOnPlane>(j.frame_base.origin, j.frame_base.axes.col(normal_axis),
                                      j.frame_follower.origin),
       fmt::format("plane_{}", kAxisNames[normal_axis])});
}

using Recipe = std::function<void(Joint&)>;

const std::map<std::string, Recipe>& recipes() {
  static const std::map<std::string, Recipe> kRecipes = {
      {"fixed",
       [](Joint& j) {
         add_point(j);
         add_lock(j, 0);
         add_lock(j, 1);
         add_lock(j, 2);
       }},
      {"revolute",
       [](Joint& j) {
         add_point(j);
         add_lock(j, 0);
         add_lock(j, 1);
         j.has_angle = true;
       }},
      {"prismatic",
       [](Joint& j) {
         add_plane(j, 0);
         add_plane(j, 1);
         add_lock(j, 0);
         add_lock(j, 1);
         add_lock(j, 2);
         j.has_translation = true;
       }},
      {"cylindrical",
       [](Joint& j) {
         add_plane(j, 0);
         add_plane(j, 1);
         add_lock(j, 0);
         add_lock(j, 1);
         j.has_angle = true;
         j.has_translation = true;
       }},
      {"spherical", [](Joint& j) { add_point(j); }},
      {"universal",
       [](Joint& j) {
         // pins: x of the base frame (fixed in the base), y of the follower frame
         add_point(j);
         j.members.push_back({std::make_shared<Perpendicular>(j.frame_base.axes.col(0),
                                                              j.frame_follower.axes.col(1)),
                              "cross"});
       }},
      {"planar",
       [](Joint& j) {
         add_plane(j, 2);
         add_lock(j, 0);
         add_lock(j, 1);
         j.has_angle = true;
       }},
      {"point_on_line",
       [](Joint& j) {
         add_plane(j, 0);
         add_plane(j, 1);
         j.has_translation = true;
       }},
  };
  return kRecipes;
}

}  // namespace

std::vector<std::string> standard_joint_types() {
  std::vector<std::string> names;
  for (const auto& [name, recipe] : recipes()) names.push_back(name);
  return names;
}

void add_standard_constraints(Joint& joint) {
  const auto it = recipes().find(joint.type);
  if (it == recipes().end())
    throw ModelError(joint.where, fmt::format("joint '{}'", joint.name),
                     fmt::format("unknown joint type '{}'{}; known types: {}, custom", joint.type,
                                 internal::did_you_mean(joint.type, standard_joint_types()),
                                 internal::join_names(standard_joint_types())));
  it->second(joint);
}

}  // namespace ictus
