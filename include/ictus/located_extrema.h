// Extrema of channels located on the integrator's dense output (issue 17):
// between samples, to the integration tolerance, whatever output_step is.
#pragma once

#include <limits>
#include <vector>

#include "ictus/simulation.h"

namespace ictus {

/// The largest value of sign x channel seen so far (sign = +1: a maximum,
/// -1: a minimum), with its time. At an event the channel may jump: the
/// extremum is then a one-sided limit, and the other one is kept beside it.
struct LocatedExtremum {
  double value = 0.0;  ///< of the channel itself (not multiplied by the sign)
  double t = 0.0;
  bool found = false;
  bool located = false;  ///< on the dense output; false: a sample
  int side = 0;          ///< -1: the limit from the left at an event at t, +1: from the right
  double other_side = std::numeric_limits<double>::quiet_NaN();  ///< the other limit there
};

/// The values of some channels at the two ends of a smooth piece [a, b] and
/// their rates there (one-sided differences on the dense output, into the
/// piece), from four evaluations of the System shared by all channels.
class PieceEnds {
 public:
  void resize(std::size_t channels);
  /// Probes [a, b]; the start is taken over from the previous piece's end
  /// when `continues` (the same instant, no event between: the motion is
  /// smooth there) instead of evaluated again.
  void probe(DenseMotion& motion, const std::vector<int>& channels, Stage stage, double a, double b,
             bool continues);
  /// The spacing of the differences on [a, b].
  static double difference_step(double a, double b) { return 1e-6 * (b - a); }
  double a = 0.0, b = 0.0;
  std::vector<double> value_a, rate_a, value_b, rate_b;
  std::vector<double> previous_b;  ///< value_b of the previous piece (NaN before the first)
};

/// The time in (a, b) where sign x channel turns from rising to falling, a
/// root of its central-difference rate on the dense output (evaluated up to
/// `stage`), searched first near `guess`.
double locate_turn(DenseMotion& motion, int channel, Stage stage, double sign, double a, double b,
                   double guess);

/// Takes `value` at `t` as the extremum if it exceeds it (times sign).
void consider(LocatedExtremum& e, double sign, double value, double t, bool located, int side);

/// The extremum of sign x channel over [lo, hi], part of the smooth piece
/// [a, b] (the ends of which are events where after_event / at_event say
/// so), into `e`; v_lo, r_lo, v_hi, r_hi are values and rates at lo and hi.
void locate_in_piece(LocatedExtremum& e, DenseMotion& motion, int channel, Stage stage, double sign,
                     double lo, double hi, double v_lo, double r_lo, double v_hi, double r_hi,
                     int side_lo, int side_hi);

}  // namespace ictus
