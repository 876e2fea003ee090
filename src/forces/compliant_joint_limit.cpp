#include "ictus/forces/compliant_joint_limit.h"

#include <fmt/format.h>

#include <cmath>

#include "ictus/joint.h"

namespace ictus {

namespace {

// Restitution of the linear Hunt-Crossley law for a = beta v: the root e in
// [0, min(1, 1/a)) of a (1 + e) = ln((1 + a)/(1 - a e)) (shared/reference:
// integrate u du / (1 + beta u) = -omega^2 d dd over the contact).
double linear_restitution(double a) {
  if (a <= 0.0) return 1.0;
  auto f = [a](double e) { return a * (1.0 + e) - std::log((1.0 + a) / (1.0 - a * e)); };
  double lo = 0.0;  // f(0) = a - ln(1 + a) > 0
  double hi = std::min(1.0, (1.0 - 1e-15) / a);
  if (f(hi) > 0.0) return hi;
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double mid = 0.5 * (lo + hi);
    (f(mid) > 0.0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// Restitution of the Hertz Hunt-Crossley law for b = beta v, in scaled
// variables u'' = -u^1.5 (1 + b u'), u(0) = 0, u'(0) = 1 (e depends on b
// only): RK4 until u returns to zero, the crossing by linear interpolation.
double hertz_restitution(double b) {
  auto rate = [b](double u, double v) {
    const double d = std::max(u, 0.0);
    return -d * std::sqrt(d) * (1.0 + b * v);
  };
  const double h = 1e-4;
  double u = 0.0;
  double v = 1.0;
  for (int i = 0; i < 1000000; ++i) {
    const double k1u = v, k1v = rate(u, v);
    const double k2u = v + 0.5 * h * k1v, k2v = rate(u + 0.5 * h * k1u, v + 0.5 * h * k1v);
    const double k3u = v + 0.5 * h * k2v, k3v = rate(u + 0.5 * h * k2u, v + 0.5 * h * k2v);
    const double k4u = v + h * k3v, k4v = rate(u + h * k3u, v + h * k3v);
    const double u1 = u + h / 6.0 * (k1u + 2 * k2u + 2 * k3u + k4u);
    const double v1 = v + h / 6.0 * (k1v + 2 * k2v + 2 * k3v + k4v);
    if (u1 <= 0.0 && i > 0) {
      const double s = u / (u - u1);
      return -(v + s * (v1 - v));
    }
    u = u1;
    v = v1;
  }
  return 0.0;  // did not come out (no rebound)
}

}  // namespace

double CompliantJointLimit::hunt_crossley_damping(Law law, double restitution, double speed) {
  const double e = restitution;
  if (e >= 1.0) return 0.0;
  if (law == Law::kHertz) return 8.0 * (1.0 - e) / (5.0 * e * speed);  // Flores et al. 2011
  // linear: a = beta v from a (1 + e) = ln((1 + a)/(1 - a e)), decreasing e(a)
  double lo = 0.0;
  double hi = 1.0;
  while (linear_restitution(hi) > e) hi *= 2.0;
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (linear_restitution(mid) > e ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi) / speed;
}

double CompliantJointLimit::hunt_crossley_restitution(Law law, double beta, double speed) {
  return law == Law::kHertz ? hertz_restitution(beta * speed) : linear_restitution(beta * speed);
}

CompliantJointLimit::CompliantJointLimit(std::string name, std::string joint, Coordinate coordinate,
                                         Parameters p, SourceLocation where)
    : ForceElement(std::move(name), std::move(where)),
      joint_(std::move(joint)),
      coordinate_(coordinate),
      p_(p) {
  if (!(p_.stiffness > 0.0) || !std::isfinite(p_.stiffness))
    throw ModelError(
        this->where(), element_label(),
        fmt::format("a compliant contact needs a stiffness > 0, got {}", p_.stiffness));
  if (!(p_.damping >= 0.0) || !std::isfinite(p_.damping))
    throw ModelError(this->where(), element_label(),
                     fmt::format("damping must be >= 0, got {}", p_.damping));
  if (!p_.lower && !p_.upper)
    throw ModelError(this->where(), element_label(),
                     "a joint limit needs 'lower', 'upper' or both");
  if (p_.lower && p_.upper && !(*p_.lower <= *p_.upper))
    throw ModelError(
        this->where(), element_label(),
        fmt::format("'lower' ({}) must not exceed 'upper' ({})", *p_.lower, *p_.upper));
  const bool two = p_.lower && p_.upper;
  if (p_.lower) sides_.push_back({1.0, *p_.lower, two ? "lower." : ""});
  if (p_.upper) sides_.push_back({-1.0, *p_.upper, two ? "upper." : ""});
}

std::unique_ptr<ForceElement> CompliantJointLimit::clone() const {
  return std::make_unique<CompliantJointLimit>(*this);
}

void CompliantJointLimit::prepare(ForceBuildContext& ctx) {
  const Joint& j = ctx.joint(joint_, element_label(), where());
  const bool angle = coordinate_ == Coordinate::kAngle;
  if (angle ? !j.has_angle : !j.has_translation)
    throw ModelError(where(), element_label(),
                     fmt::format("joint '{}' ({}) has no {} coordinate to limit", j.name, j.type,
                                 angle ? "angle" : "translation"));
  base_ = j.base;
  follower_ = j.follower;
  axis_base_ = j.frame_base.axes.col(2);
  origin_follower_ = j.frame_follower.origin;
  q_ = ctx.bind_channel(joint_ + (angle ? ".angle" : ".x"), element_label(), where());
  q_rate_ = ctx.bind_channel(joint_ + (angle ? ".omega" : ".v"), element_label(), where());
}

void CompliantJointLimit::normal(double d, double d_rate, double* N, double* elastic) const {
  switch (p_.law) {
    case Law::kKelvinVoigt:
      *elastic = p_.stiffness * d;
      *N = *elastic + p_.damping * d_rate;
      break;
    case Law::kHuntCrossley:
      *elastic = p_.stiffness * d;
      *N = *elastic * (1.0 + p_.damping * d_rate);
      break;
    case Law::kHertz:
      *elastic = p_.stiffness * d * std::sqrt(d);
      *N = *elastic * (1.0 + p_.damping * d_rate);
      break;
  }
  if (p_.clip) *N = std::max(*N, 0.0);
}

ForcePower CompliantJointLimit::apply(const ForceContext& ctx, LoadAccumulator& loads) const {
  ForcePower power;
  double generalised = 0.0;  // along the coordinate, on the follower
  for (const Side& s : sides_) {
    const double d = -gap(s);
    if (!(d > 0.0)) continue;
    const double d_rate = -s.sign * *q_rate_;
    double N = 0.0, elastic = 0.0;
    normal(d, d_rate, &N, &elastic);
    generalised += s.sign * N;
    // the elastic part is the potential's; the rest is dissipated
    power.dissipated += (N - elastic) * d_rate;
  }
  if (generalised == 0.0) return power;
  const BodyKinematics& kb = ctx.body(base_);
  const BodyKinematics& kf = ctx.body(follower_);
  const Vec3 axis_W = kb.R_WB * axis_base_;
  if (coordinate_ == Coordinate::kAngle) {
    loads.add_torque_W(follower_, kf, generalised * axis_W);
    loads.add_torque_W(base_, kb, -generalised * axis_W);
  } else {
    const Vec3 p = kf.point(origin_follower_);
    loads.add_force_at(follower_, kf, generalised * axis_W, p);
    loads.add_force_at(base_, kb, -generalised * axis_W, p);
  }
  return power;
}

double CompliantJointLimit::potential_energy(const ForceContext& /*ctx*/) const {
  double V = 0.0;
  for (const Side& s : sides_) {
    const double d = -gap(s);
    if (!(d > 0.0)) continue;
    V += p_.law == Law::kHertz ? 0.4 * p_.stiffness * d * d * std::sqrt(d)
                               : 0.5 * p_.stiffness * d * d;
  }
  return V;
}

double CompliantJointLimit::restitution_at_impact_speed() const {
  if (!(p_.impact_speed > 0.0) || p_.law == Law::kKelvinVoigt) return 0.0;
  return hunt_crossley_restitution(p_.law, p_.damping, p_.impact_speed);
}

std::vector<std::string> CompliantJointLimit::channel_names() const {
  std::vector<std::string> names;
  for (const Side& s : sides_)
    for (const char* c : {"gap", "gap_rate", "normal", "state"}) names.push_back(s.prefix + c);
  names.push_back("restitution");
  return names;
}

std::string CompliantJointLimit::channel_unit(int k) const {
  const bool angle = coordinate_ == Coordinate::kAngle;
  if (k == static_cast<int>(4 * sides_.size())) return "";
  switch (k % 4) {
    case 0:
      return angle ? "rad" : "m";
    case 1:
      return angle ? "rad/s" : "m/s";
    case 2:
      return angle ? "N m" : "N";
    default:
      return "";
  }
}

double CompliantJointLimit::channel_value(int k, const ForceContext& /*ctx*/) const {
  if (k == static_cast<int>(4 * sides_.size())) return restitution_at_impact_speed();
  const Side& s = sides_[static_cast<std::size_t>(k / 4)];
  const double g = gap(s);
  switch (k % 4) {
    case 0:
      return g;
    case 1:
      return s.sign * *q_rate_;
    case 2: {
      if (!(g < 0.0)) return 0.0;
      double N = 0.0, elastic = 0.0;
      normal(-g, -s.sign * *q_rate_, &N, &elastic);
      return N;
    }
    default:
      return g < 0.0 ? 1.0 : 0.0;
  }
}

}  // namespace ictus
