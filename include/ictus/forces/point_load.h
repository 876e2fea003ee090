// A force or torque given by formulas of time and state, applied to one body.
#pragma once

#include <array>
#include <optional>

#include "ictus/force.h"

namespace ictus {

/// A force applied at a body-fixed point, or a torque, whose components are
/// formulas (muParser) of t, parameters and position/velocity channels.
/// Either three components or a fixed direction times a scalar formula.
/// Power: F . v_P for a force, tau . w for a torque (booked as applied work).
class PointLoad final : public ForceElement {
 public:
  enum class Kind { kForce, kTorque };
  enum class Axes { kWorld, kBody };

  /// Components given separately, in `axes`.
  PointLoad(std::string name, Kind kind, BodyIndex body, Vec3 point_B,
            std::array<Expression, 3> components, Axes axes, SourceLocation where = {});
  /// A fixed unit direction (in `axes`) times a scalar formula.
  PointLoad(std::string name, Kind kind, BodyIndex body, Vec3 point_B, Vec3 direction,
            Expression magnitude, Axes axes, SourceLocation where = {});
  PointLoad(const PointLoad& other);
  ~PointLoad() override;

  std::string_view kind() const override { return kind_ == Kind::kForce ? "force" : "torque"; }
  std::unique_ptr<ForceElement> clone() const override;
  void prepare(ForceBuildContext& ctx) override;
  std::vector<BodyIndex> bodies() const override { return {body_}; }
  ForcePower apply(const ForceContext& ctx, LoadAccumulator& loads) const override;
  std::vector<std::string> channel_names() const override;
  std::string channel_unit(int k) const override;
  double channel_value(int k, const ForceContext& ctx) const override;

 private:
  /// The load vector in world axes at the current state.
  Vec3 value_W(const BodyKinematics& kin) const;

  Kind kind_;
  BodyIndex body_;
  Vec3 point_B_;
  std::array<Expression, 3> components_;
  std::optional<Vec3> direction_;
  Expression magnitude_;
  Axes axes_;
  std::vector<std::unique_ptr<internal::CompiledExpression>> compiled_;
};

}  // namespace ictus
