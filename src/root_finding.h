// Locating a zero crossing inside one step, on the stepper's dense output.
#pragma once

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

}  // namespace ictus::internal
