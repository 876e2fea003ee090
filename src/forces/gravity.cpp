#include "ictus/forces/gravity.h"

namespace ictus {

Gravity::Gravity(Vec3 g, SourceLocation where)
    : ForceElement("gravity", std::move(where)), g_(std::move(g)) {}

std::unique_ptr<ForceElement> Gravity::clone() const {
  return std::make_unique<Gravity>(*this);
}

void Gravity::prepare(ForceBuildContext& ctx) {
  masses_.clear();
  for (const Body& b : ctx.bodies()) masses_.push_back(b.mass);
}

ForcePower Gravity::apply(const ForceContext& ctx, LoadAccumulator& loads) const {
  for (std::size_t b = 0; b < masses_.size(); ++b) {
    const auto index = static_cast<BodyIndex>(b);
    const BodyKinematics& kin = ctx.body(index);
    loads.add_force_at(index, kin, masses_[b] * g_, kin.p_W);
  }
  return {};  // conservative: accounted for by the potential
}

double Gravity::potential_energy(const ForceContext& ctx) const {
  double v = 0.0;
  for (std::size_t b = 0; b < masses_.size(); ++b)
    v -= masses_[b] * g_.dot(ctx.body(static_cast<BodyIndex>(b)).p_W);
  return v;
}

}  // namespace ictus
