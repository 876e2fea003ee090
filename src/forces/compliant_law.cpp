#include "ictus/forces/compliant_law.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

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

double CompliantLaw::hunt_crossley_damping(Law law, double restitution, double speed) {
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

double CompliantLaw::hunt_crossley_restitution(Law law, double beta, double speed) {
  return law == Law::kHertz ? hertz_restitution(beta * speed) : linear_restitution(beta * speed);
}

void CompliantLaw::validate(const SourceLocation& where, const std::string& element) const {
  if (!(stiffness > 0.0) || !std::isfinite(stiffness))
    throw ModelError(where, element,
                     fmt::format("a compliant contact needs a stiffness > 0, got {}", stiffness));
  if (!(damping >= 0.0) || !std::isfinite(damping))
    throw ModelError(where, element, fmt::format("damping must be >= 0, got {}", damping));
}

void CompliantLaw::normal(double d, double d_rate, double* N, double* elastic) const {
  switch (law) {
    case Law::kKelvinVoigt:
      *elastic = stiffness * d;
      *N = *elastic + damping * d_rate;
      break;
    case Law::kHuntCrossley:
      *elastic = stiffness * d;
      *N = *elastic * (1.0 + damping * d_rate);
      break;
    case Law::kHertz:
      *elastic = stiffness * d * std::sqrt(d);
      *N = *elastic * (1.0 + damping * d_rate);
      break;
  }
  if (clip) *N = std::max(*N, 0.0);
}

double CompliantLaw::potential(double d) const {
  return law == Law::kHertz ? 0.4 * stiffness * d * d * std::sqrt(d) : 0.5 * stiffness * d * d;
}

double CompliantLaw::restitution_at_impact_speed() const {
  if (!(impact_speed > 0.0) || law == Law::kKelvinVoigt) return 0.0;
  return hunt_crossley_restitution(law, damping, impact_speed);
}

}  // namespace ictus
