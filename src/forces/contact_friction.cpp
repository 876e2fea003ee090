#include "ictus/forces/contact_friction.h"

#include <fmt/format.h>

namespace ictus {

ContactFrictionElement::ContactFrictionElement(const std::string& side,
                                               const ShapeContactPoint& point,
                                               const ContactFriction& friction, int axis)
    : ReactionFriction(fmt::format("{}.friction_{}", side, axis == 0 ? 'x' : 'y'), friction.where,
                       friction.mu, friction.static_coefficient(), 1.0),
      side_(side),
      axis_(axis),
      base_(point.base),
      follower_(point.follower),
      point_B_(point.point_B) {
  // the plane's tangents: its body's x axis projected onto it (y when x is
  // its normal), and normal x that
  const Mat3 axes = frame_from_z(point.plane_normal_B, Vec3::UnitX());
  tangent_row_ =
      std::make_shared<PointOnPlane>(point.plane_point_B, axes.col(axis), point.point_B, true);
}

std::unique_ptr<ForceElement> ContactFrictionElement::clone() const {
  return std::make_unique<ContactFrictionElement>(*this);
}

bool ContactFrictionElement::hold_constraint(
    BodyIndex* base, BodyIndex* follower, std::shared_ptr<const ElementaryConstraint>* row) const {
  *base = base_;
  *follower = follower_;
  *row = tangent_row_;
  return true;
}

ConstraintRow ContactFrictionElement::row(const ForceContext& ctx) const {
  ConstraintRow r;
  const ConstraintContext cc{ctx.body(base_), ctx.body(follower_), ctx.t(), MotionSample{}};
  tangent_row_->evaluate(cc, std::span<ConstraintRow>(&r, 1));
  return r;
}

double ContactFrictionElement::slip_coordinate(const ForceContext& ctx) const {
  return row(ctx).position_error;  // t . (P - A) - 0
}

double ContactFrictionElement::slip_rate(const ForceContext& ctx) const {
  const ConstraintRow r = row(ctx);
  double rate = 0.0;
  for (const auto& [body, J] : {std::pair{base_, &r.J_base}, {follower_, &r.J_follower}})
    if (body != kGround) {
      const BodyKinematics& k = ctx.body(body);
      rate += J->head<3>().dot(k.v_W) + J->tail<3>().dot(k.w_B);
    }
  return rate;
}

void ContactFrictionElement::add_slip_load(const ForceContext& ctx, LoadAccumulator& loads,
                                           double F) const {
  const BodyKinematics& kb = ctx.body(base_);
  const BodyKinematics& kf = ctx.body(follower_);
  const Vec3 t = kb.R_WB * tangent_row_->normal_base();
  const Vec3 p = kf.point(point_B_);
  loads.add_force_at(follower_, kf, F * t, p);
  loads.add_force_at(base_, kb, -F * t, p);
}

}  // namespace ictus
