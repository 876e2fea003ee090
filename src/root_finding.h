// Locating a zero crossing inside one step, on the stepper's dense output.
#pragma once

#include <cmath>

namespace ictus::internal {

/// The Illinois method (regula falsi that halves the value kept at an end
/// chosen twice in a row; Dowell & Jarratt, BIT 11, 1971) on [a, b], where
/// `a` is on the side before the crossing and `b` on the crossed side.
/// `evaluate(c)` returns the function at c and `crossed(value)` tells its
/// side. fa and fb are the values at a and b, with opposite signs as the
/// sides demand. Returns the first point found on the crossed side, within
/// `tolerance` of the crossing (at most 200 iterations).
template <class Evaluate, class Crossed>
double locate_crossing(double a, double b, double fa, double fb, double tolerance,
                       Evaluate&& evaluate, Crossed&& crossed) {
  int side = 0;
  for (int iter = 0; iter < 200 && b - a > tolerance; ++iter) {
    double c = (a * fb - b * fa) / (fb - fa);
    if (!(c > a && c < b)) c = 0.5 * (a + b);
    const double fc = evaluate(c);
    if (crossed(fc)) {
      b = c;
      fb = fc;
      if (side == 1) fa *= 0.5;
      side = 1;
    } else {
      a = c;
      fa = fc;
      if (side == -1) fb *= 0.5;
      side = -1;
    }
  }
  return b;
}

/// The side a function takes just after a point: its value g there, unless
/// that value is at the level of its change `change` over a short look-ahead
/// h (then the point is a root, up to round-off or the location tolerance,
/// and the direction of the motion decides: the sign of the change, i.e. of
/// dg/dt). The look-ahead is never trusted as a value: a root of g between
/// the point and the look-ahead would give the side past that root, which the
/// next step must locate as a crossing of its own (issue 9, defect 3).
/// `g` counts as a root when its linear extrapolation reaches zero within
/// kRootFraction h, far below the 1e-9 s look-ahead and above the 1e-14 s
/// tolerance of locate_crossing. Returns a value whose sign is the side
/// (0 when g and its change are both 0: no side).
inline double side_just_after(double g, double change) {
  constexpr double kRootFraction = 1e-3;
  if (std::abs(g) > kRootFraction * std::abs(change) || change == 0.0) return g;
  return change;
}

}  // namespace ictus::internal
