// Uniform gravity acting on every body.
#pragma once

#include "ictus/force.h"

namespace ictus {

/// F = m g at each centre of mass; potential V = -sum m g . p_W.
class Gravity final : public ForceElement {
 public:
  explicit Gravity(Vec3 g, SourceLocation where = {});

  std::string_view kind() const override { return "gravity"; }
  std::unique_ptr<ForceElement> clone() const override;
  void prepare(ForceBuildContext& ctx) override;
  std::vector<BodyIndex> bodies() const override { return {}; }
  ForcePower apply(const ForceContext& ctx, LoadAccumulator& loads) const override;
  double potential_energy(const ForceContext& ctx) const override;
  /// m g at the centre of mass depends on no coordinate: the Jacobian is zero.
  void add_jacobian(const ForceContext& /*ctx*/, ForceJacobian& /*J*/) const override {}
  const Vec3& g() const { return g_; }

 private:
  Vec3 g_;
  std::vector<double> masses_;
};

}  // namespace ictus
