#include "ictus/located_extrema.h"

#include <algorithm>
#include <cmath>

#include "../root_finding.h"

namespace ictus {

void PieceEnds::resize(std::size_t channels) {
  value_a.assign(channels, 0.0);
  rate_a.assign(channels, 0.0);
  value_b.assign(channels, 0.0);
  rate_b.assign(channels, 0.0);
  previous_b.assign(channels, std::numeric_limits<double>::quiet_NaN());
  a = b = std::numeric_limits<double>::quiet_NaN();
}

void PieceEnds::probe(DenseMotion& motion, const std::vector<int>& channels, Stage stage,
                      double a_new, double b_new, bool continues) {
  const double h = difference_step(a_new, b_new);
  const std::size_t n = channels.size();
  if (!std::isnan(b)) std::copy(value_b.begin(), value_b.end(), previous_b.begin());
  if (continues && b == a_new) {
    // the end of the previous piece: the same state, and a smooth motion through it
    std::copy(value_b.begin(), value_b.end(), value_a.begin());
    std::copy(rate_b.begin(), rate_b.end(), rate_a.begin());
  } else {
    const System& at_a = motion.at(a_new, stage);
    for (std::size_t k = 0; k < n; ++k) value_a[k] = at_a.channel_value(channels[k]);
    const System& ahead = motion.at(a_new + h, stage);
    for (std::size_t k = 0; k < n; ++k)
      rate_a[k] = h > 0.0 ? (ahead.channel_value(channels[k]) - value_a[k]) / h : 0.0;
  }
  const System& behind = motion.at(b_new - h, stage);
  for (std::size_t k = 0; k < n; ++k) rate_b[k] = behind.channel_value(channels[k]);
  const System& at_b = motion.at(b_new, stage);
  for (std::size_t k = 0; k < n; ++k) {
    value_b[k] = at_b.channel_value(channels[k]);
    rate_b[k] = h > 0.0 ? (value_b[k] - rate_b[k]) / h : 0.0;
  }
  a = a_new;
  b = b_new;
}

double locate_turn(DenseMotion& motion, int channel, Stage stage, double sign, double a, double b,
                   double guess) {
  // the central difference of the interpolant: its truncation error (third
  // derivative times h^2 / 6) moves the root by far less than the integration
  // tolerance, and round-off (eps |f| / h) stays below it for h = 1e-6 of the step
  const double h = PieceEnds::difference_step(a, b);
  auto rate = [&](double t) {
    const double lo = std::max(a, t - h), hi = std::min(b, t + h);
    const double f_hi = motion.at(hi, stage).channel_value(channel);
    const double f_lo = motion.at(lo, stage).channel_value(channel);
    return sign * (f_hi - f_lo) / (hi - lo);
  };
  // a time to 1e-9 of the step: far below the integration tolerance's
  // effect, and above the round-off of the rate near its root
  const double tolerance = std::max(1e-9 * (b - a), 1e-15 * std::max(1.0, std::abs(b)));
  auto falling = [](double r) { return r <= 0.0; };
  // first a narrow bracket around the guess (the turn of the cubic through
  // the ends' values and rates), where regula falsi needs few evaluations;
  // else the side of it where the rate changes sign
  const double width = 2e-2 * (b - a);
  const double near_a = std::max(a, guess - width), near_b = std::min(b, guess + width);
  const double rate_near_a = rate(near_a), rate_near_b = rate(near_b);
  double lo = near_a, hi = near_b, rate_lo = rate_near_a, rate_hi = rate_near_b;
  if (rate_near_a <= 0.0) {
    // the ends' rates were probed one-sided (or in the previous step): a turn
    // at an end itself is that end
    lo = a;
    rate_lo = rate(a);
    hi = near_a;
    rate_hi = rate_near_a;
    if (rate_lo <= 0.0) return a;
  } else if (rate_near_b > 0.0) {
    lo = near_b;
    rate_lo = rate_near_b;
    hi = b;
    rate_hi = rate(b);
    if (rate_hi > 0.0) return b;
  }
  return internal::locate_crossing(lo, hi, rate_lo, rate_hi, tolerance, rate, falling);
}

void consider(LocatedExtremum& e, double sign, double value, double t, bool located, int side) {
  if (!std::isfinite(value)) return;
  const bool better = !e.found || sign * value > sign * e.value ||
                      (sign * value == sign * e.value && located && !e.located);
  if (!better) return;
  e.found = true;
  e.value = value;
  e.t = t;
  e.located = located;
  e.side = side;
  e.other_side = std::numeric_limits<double>::quiet_NaN();
}

void locate_in_piece(LocatedExtremum& e, DenseMotion& motion, int channel, Stage stage, double sign,
                     double lo, double hi, double v_lo, double r_lo, double v_hi, double r_hi,
                     int side_lo, int side_hi) {
  consider(e, sign, v_lo, lo, true, side_lo);
  consider(e, sign, v_hi, hi, true, side_hi);
  // a turn inside: rising at lo, falling at hi (the steps resolve the motion:
  // one turn at most per step)
  const double g_lo = sign * v_lo, g_hi = sign * v_hi, q0 = sign * r_lo, q1 = sign * r_hi;
  if (!(q0 > 0.0 && q1 < 0.0)) return;
  const double length = hi - lo;
  // rates no larger than the round-off of the values over the difference
  // step are no turn of the motion (a channel at round-off level, a constant)
  const double noise = 1e3 * std::numeric_limits<double>::epsilon() *
                       std::max(std::abs(v_lo), std::abs(v_hi)) /
                       PieceEnds::difference_step(lo, hi);
  if (q0 <= noise && -q1 <= noise) return;
  // the cubic through the ends' values and rates: its rate q(s), s in [0, 1],
  // is the quadratic with q(0) = q0, q(1) = q1 and the ends' mean rate, i.e.
  // q(s) = q0 + (q1 - q0) s + c s (1 - s); its root and the cubic's value
  // there estimate the turn
  const double c = 6.0 * ((g_hi - g_lo) / length - 0.5 * (q0 + q1));
  double s_turn = q0 / (q0 - q1);  // the root of the linear part
  if (std::abs(c) > 1e-300) {
    // -c s^2 + (c + q1 - q0) s + q0 = 0: the root in (0, 1)
    const double bq = c + q1 - q0, disc = std::sqrt(std::max(0.0, bq * bq + 4.0 * c * q0));
    const double r1 = (bq - disc) / (2.0 * c), r2 = (bq + disc) / (2.0 * c);
    if (r1 > 0.0 && r1 < 1.0)
      s_turn = r1;
    else if (r2 > 0.0 && r2 < 1.0)
      s_turn = r2;
  }
  const double s2 = s_turn * s_turn;
  const double estimate =
      g_lo + length * (q0 * s_turn + 0.5 * (q1 - q0) * s2 + c * (0.5 * s2 - s2 * s_turn / 3.0));
  // worth locating only if it may beat the extremum so far: the cubic's error
  // is a small part (O(h^2)) of the turn's rise above its ends
  const double rise = std::max(0.0, estimate - std::max(g_lo, g_hi));
  if (e.found && estimate + 0.05 * rise < sign * e.value) return;
  const double t = locate_turn(motion, channel, stage, sign, lo, hi, lo + s_turn * length);
  consider(e, sign, motion.at(t, stage).channel_value(channel), t, true, 0);
}

}  // namespace ictus
