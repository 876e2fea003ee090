#include "ictus/forces/point_load.h"

#include <fmt/format.h>

#include "../compiled_expression.h"

namespace ictus {

PointLoad::PointLoad(std::string name, Kind kind, BodyIndex body, Vec3 point_B,
                     std::array<Expression, 3> components, Axes axes, SourceLocation where)
    : ForceElement(std::move(name), std::move(where)),
      kind_(kind),
      body_(body),
      point_B_(std::move(point_B)),
      components_(std::move(components)),
      axes_(axes) {}

PointLoad::PointLoad(std::string name, Kind kind, BodyIndex body, Vec3 point_B, Vec3 direction,
                     Expression magnitude, Axes axes, SourceLocation where)
    : ForceElement(std::move(name), std::move(where)),
      kind_(kind),
      body_(body),
      point_B_(std::move(point_B)),
      direction_(std::move(direction)),
      magnitude_(std::move(magnitude)),
      axes_(axes) {}

// compiled formulas belong to one System: a copy starts uncompiled
PointLoad::PointLoad(const PointLoad& other)
    : ForceElement(other),
      kind_(other.kind_),
      body_(other.body_),
      point_B_(other.point_B_),
      components_(other.components_),
      direction_(other.direction_),
      magnitude_(other.magnitude_),
      axes_(other.axes_) {}

PointLoad::~PointLoad() = default;

std::unique_ptr<ForceElement> PointLoad::clone() const {
  return std::make_unique<PointLoad>(*this);
}

void PointLoad::prepare(ForceBuildContext& ctx) {
  compiled_.clear();
  if (direction_) {
    compiled_.push_back(ctx.compile(magnitude_, element_label()));
  } else {
    for (const Expression& e : components_) compiled_.push_back(ctx.compile(e, element_label()));
  }
}

Vec3 PointLoad::value_W(const BodyKinematics& kin) const {
  Vec3 v;
  if (direction_) {
    v = *direction_ * compiled_[0]->evaluate();
  } else {
    for (int k = 0; k < 3; ++k) v(k) = compiled_[static_cast<std::size_t>(k)]->evaluate();
  }
  return axes_ == Axes::kBody ? Vec3(kin.R_WB * v) : v;
}

ForcePower PointLoad::apply(const ForceContext& ctx, LoadAccumulator& loads) const {
  const BodyKinematics& kin = ctx.body(body_);
  const Vec3 value = value_W(kin);
  if (kind_ == Kind::kForce) {
    loads.add_force_at(body_, kin, value, kin.point(point_B_));
    return {value.dot(kin.point_velocity(point_B_)), 0.0};
  }
  loads.add_torque_W(body_, kin, value);
  return {value.dot(kin.w_W), 0.0};
}

std::vector<std::string> PointLoad::channel_names() const {
  if (kind_ == Kind::kForce) return {"Fx", "Fy", "Fz", "power"};
  return {"Tx", "Ty", "Tz", "power"};
}

std::string PointLoad::channel_unit(int k) const {
  if (k == 3) return "W";
  return kind_ == Kind::kForce ? "N" : "N m";
}

double PointLoad::channel_value(int k, const ForceContext& ctx) const {
  const BodyKinematics& kin = ctx.body(body_);
  const Vec3 value = value_W(kin);
  if (k < 3) return value(k);
  return kind_ == Kind::kForce ? value.dot(kin.point_velocity(point_B_)) : value.dot(kin.w_W);
}

}  // namespace ictus
