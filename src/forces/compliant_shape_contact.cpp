#include "ictus/forces/compliant_shape_contact.h"

#include <fmt/format.h>

#include <algorithm>

namespace ictus {

namespace {
// [v_W; w_B] of a body (zero for the ground), the velocity a row acts on.
Vec6 body_velocity(const BodyKinematics& k) {
  Vec6 u;
  u << k.v_W, k.w_B;
  return u;
}
}  // namespace

CompliantShapeContact::CompliantShapeContact(std::string name,
                                             std::vector<ShapeContactPoint> points,
                                             CompliantLaw law, SourceLocation where)
    : ForceElement(std::move(name), std::move(where)), points_(std::move(points)), law_(law) {
  law_.validate(this->where(), element_label());
  if (points_.empty())
    throw ModelError(this->where(), element_label(),
                     "the shapes of the pair have no contact point");
}

std::unique_ptr<ForceElement> CompliantShapeContact::clone() const {
  return std::make_unique<CompliantShapeContact>(*this);
}

std::vector<BodyIndex> CompliantShapeContact::bodies() const {
  std::vector<BodyIndex> out;
  for (const ShapeContactPoint& p : points_)
    for (const BodyIndex b : {p.base, p.follower})
      if (b != kGround && std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
  return out;
}

CompliantShapeContact::Gap CompliantShapeContact::gap(const ShapeContactPoint& p,
                                                      const ForceContext& ctx) const {
  const BodyKinematics& kb = ctx.body(p.base);
  const BodyKinematics& kf = ctx.body(p.follower);
  Gap out;
  out.row = p.gap_row(kb, kf, ctx.t());
  out.rate = out.row.J_base.dot(body_velocity(kb)) + out.row.J_follower.dot(body_velocity(kf));
  return out;
}

ForcePower CompliantShapeContact::apply(const ForceContext& ctx, LoadAccumulator& loads) const {
  ForcePower power;
  for (const ShapeContactPoint& p : points_) {
    const Gap g = gap(p, ctx);
    const double d = -g.row.position_error;
    if (!(d > 0.0)) continue;
    const double d_rate = -g.rate;
    double N = 0.0, elastic = 0.0;
    law_.normal(d, d_rate, &N, &elastic);
    // the elastic part is the potential's; the rest is dissipated
    power.dissipated += (N - elastic) * d_rate;
    if (N == 0.0) continue;
    // G^T N: the row's [force_W; torque_B] on each body
    for (const auto& [b, J] : {std::pair{p.base, &g.row.J_base}, {p.follower, &g.row.J_follower}}) {
      if (b == kGround) continue;
      const BodyKinematics& k = ctx.body(b);
      loads.add_force_at(b, k, N * J->head<3>(), k.p_W);
      loads.add_torque_W(b, k, k.R_WB * (N * J->tail<3>()));
    }
  }
  return power;
}

double CompliantShapeContact::potential_energy(const ForceContext& ctx) const {
  double V = 0.0;
  for (const ShapeContactPoint& p : points_) {
    const double d = -gap(p, ctx).row.position_error;
    if (d > 0.0) V += law_.potential(d);
  }
  return V;
}

std::vector<std::string> CompliantShapeContact::channel_names() const {
  std::vector<std::string> names;
  for (std::size_t p = 0; p < points_.size(); ++p)
    for (const char* c : {"gap", "gap_rate", "normal", "state"})
      names.push_back(points_.size() == 1 ? std::string(c) : fmt::format("p{}.{}", p, c));
  names.emplace_back("restitution");
  return names;
}

std::string CompliantShapeContact::channel_unit(int k) const {
  if (k == static_cast<int>(4 * points_.size())) return "";
  switch (k % 4) {
    case 0:
      return "m";
    case 1:
      return "m/s";
    case 2:
      return "N";
    default:
      return "";
  }
}

double CompliantShapeContact::channel_value(int k, const ForceContext& ctx) const {
  if (k == static_cast<int>(4 * points_.size())) return law_.restitution_at_impact_speed();
  const Gap g = gap(points_[static_cast<std::size_t>(k / 4)], ctx);
  const double gap_value = g.row.position_error;
  switch (k % 4) {
    case 0:
      return gap_value;
    case 1:
      return g.rate;
    case 2: {
      if (!(gap_value < 0.0)) return 0.0;
      double N = 0.0, elastic = 0.0;
      law_.normal(-gap_value, -g.rate, &N, &elastic);
      return N;
    }
    default:
      return gap_value < 0.0 ? 1.0 : 0.0;
  }
}

}  // namespace ictus
