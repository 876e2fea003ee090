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

void PieceEnds::probe(DenseMotion& motion, const std::vector<int>& channels, double a_new,
                      double b_new, bool continues) {
  const double h = difference_step(a_new, b_new);
  const std::size_t n = channels.size();
  if (!std::isnan(b)) std::copy(value_b.begin(), value_b.end(), previous_b.begin());
  if (continues && b == a_new) {
    // the end of the previous piece: the same state, and a smooth motion through it
    std::copy(value_b.begin(), value_b.end(), value_a.begin());
    std::copy(rate_b.begin(), rate_b.end(), rate_a.begin());
  } else {
    const System& at_a = motion.at(a_new);
    for (std::size_t k = 0; k < n; ++k) value_a[k] = at_a.channel_value(channels[k]);
    const System& ahead = motion.at(a_new + h);
    for (std::size_t k = 0; k < n; ++k)
      rate_a[k] = h > 0.0 ? (ahead.channel_value(channels[k]) - value_a[k]) / h : 0.0;
  }
  const System& behind = motion.at(b_new - h);
  for (std::size_t k = 0; k < n; ++k) rate_b[k] = behind.channel_value(channels[k]);
  const System& at_b = motion.at(b_new);
  for (std::size_t k = 0; k < n; ++k) {
    value_b[k] = at_b.channel_value(channels[k]);
    rate_b[k] = h > 0.0 ? (value_b[k] - rate_b[k]) / h : 0.0;
  }
  a = a_new;
  b = b_new;
}

double locate_turn(DenseMotion& motion, int channel, double sign, double a, double b) {
  // the central difference of the interpolant: its truncation error,
  // f''' h^2 / 6, moves the root by far less than the integration tolerance,
  // and round-off (eps |f| / h) stays below it for h = 1e-6 of the step
  const double h = PieceEnds::difference_step(a, b);
  auto rate = [&](double t) {
    const double lo = std::max(a, t - h), hi = std::min(b, t + h);
    const double f_hi = motion.at(hi).channel_value(channel);
    const double f_lo = motion.at(lo).channel_value(channel);
    return sign * (f_hi - f_lo) / (hi - lo);
  };
  // the ends' rates were probed one-sided (or in the previous step): a turn
  // at an end itself is that end
  const double rate_a = rate(a), rate_b = rate(b);
  if (rate_a <= 0.0) return a;
  if (rate_b > 0.0) return b;
  const double tolerance = 1e-13 * std::max(1.0, std::abs(b));
  return internal::locate_crossing(a, b, rate_a, rate_b, tolerance, rate,
                                   [](double r) { return r <= 0.0; });
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

void locate_in_piece(LocatedExtremum& e, DenseMotion& motion, int channel, double sign, double lo,
                     double hi, double v_lo, double r_lo, double v_hi, double r_hi, int side_lo,
                     int side_hi) {
  consider(e, sign, v_lo, lo, true, side_lo);
  consider(e, sign, v_hi, hi, true, side_hi);
  // a turn inside: rising at lo, falling at hi (the steps resolve the motion:
  // one turn at most per step)
  if (!(sign * r_lo > 0.0 && sign * r_hi < 0.0)) return;
  // worth locating only if it may beat the extremum so far: the rise from
  // the higher end is bounded by the interval times the larger end rate
  const double bound =
      std::max(sign * v_lo, sign * v_hi) + (hi - lo) * std::max(std::abs(r_lo), std::abs(r_hi));
  if (e.found && bound < sign * e.value) return;
  const double t = locate_turn(motion, channel, sign, lo, hi);
  consider(e, sign, motion.at(t).channel_value(channel), t, true, 0);
}

}  // namespace ictus
