#include "ictus/shape_contact_points.h"

#include <fmt/format.h>

#include "ictus/constraints/distance.h"
#include "ictus/constraints/point_on_plane.h"

namespace ictus {

ConstraintRow ShapeContactPoint::gap_row(const BodyKinematics& base_kin,
                                         const BodyKinematics& follower_kin, double t) const {
  ConstraintRow row;
  const ConstraintContext ctx{base_kin, follower_kin, t, MotionSample{held, 0.0, 0.0}};
  constraint->evaluate(ctx, std::span<ConstraintRow>(&row, 1));
  return row;
}

std::vector<ShapeContactPoint> shape_contact_points(const std::vector<Shape>& shapes, BodyIndex a,
                                                    BodyIndex b) {
  using Type = Shape::Type;
  std::vector<ShapeContactPoint> points;
  for (const Shape& sa : shapes) {
    if (sa.body != a) continue;
    for (const Shape& sb : shapes) {
      if (sb.body != b) continue;
      if (sa.type == Type::kSphere && sb.type == Type::kSphere) {
        const double held = sa.radius + sb.radius;
        ShapeContactPoint p;
        p.base = a;
        p.follower = b;
        p.constraint = std::make_shared<Distance>(sa.center_B, sb.center_B, held, true);
        p.held = held;
        points.push_back(std::move(p));
        continue;
      }
      const bool plane_first = sa.type == Type::kPlane;
      const Shape& plane = plane_first ? sa : sb;
      const Shape& other = plane_first ? sb : sa;
      auto on_plane = [&](const Vec3& point_B, double held) {
        ShapeContactPoint p;
        p.base = plane.body;
        p.follower = other.body;
        p.constraint =
            std::make_shared<PointOnPlane>(plane.center_B, plane.normal_B, point_B, true);
        p.held = held;
        p.on_plane = true;
        p.plane_point_B = plane.center_B;
        p.plane_normal_B = plane.normal_B;
        p.point_B = point_B;
        p.radius = held;
        points.push_back(std::move(p));
      };
      switch (other.type) {
        case Type::kSphere:
          on_plane(other.center_B, other.radius);
          break;
        case Type::kCapsule:
          on_plane(other.center_B - other.half_length * other.axis_B, other.radius);
          on_plane(other.center_B + other.half_length * other.axis_B, other.radius);
          break;
        case Type::kBox:
          for (int k = 0; k < 8; ++k) {
            const Vec3 corner((k & 1) ? 1.0 : -1.0, (k & 2) ? 1.0 : -1.0, (k & 4) ? 1.0 : -1.0);
            on_plane(other.center_B + other.half_extents.cwiseProduct(corner), 0.0);
          }
          break;
        case Type::kPlane:
          break;  // two planes: rejected by Model::check_shape_contact
      }
    }
  }
  return points;
}

std::string shape_contact_side_name(const std::string& contact, std::size_t index,
                                    std::size_t count) {
  return count == 1 ? contact : fmt::format("{}.p{}", contact, index);
}

}  // namespace ictus
