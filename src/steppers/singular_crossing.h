// Stepping across a singular configuration (issue 13 defect 2;
// docs/theory/equations.md, "Singular configurations").
//
// Where the rank of D falls (a parallelogram whose links become collinear)
// the accelerations of the index-1 equations are singular: a state off the
// constraints by e gives the branch direction an acceleration of order
// e / s^2 at a distance s from the crossing, and dopri5's stages lie off
// the constraints by O(h^2). The motion itself is smooth there. Two things
// make an explicit step see the smooth motion:
//   * near the crossing every stage is projected onto the constraints
//     (positions and velocities, to round-off), so e is round-off and the
//     stage's neighbourhood of the crossing shrinks to about sqrt(e);
//   * the step that passes the crossing is placed so that the crossing
//     falls in the middle of the widest gap between its stage abscissae
//     (0.3 h to 0.8 h for dopri5): no stage comes nearer than a quarter of
//     the step.
// The crossing instant is predicted from the distance d the System reports
// at each accepted step (MechanicalSystem::singularity_distance, the square
// smallest sine between a row of the scaled D and the others), which falls
// linearly in time to zero there: t* = t + d / (-d'), d' from the last two
// steps. That prediction places steps; it is too rough to log the passage at
// (a chain's distance is not linear far from the crossing): every accepted
// step near a crossing is searched on the dense output instead
// (find_passage), and the passage is logged where the distance is least.
#pragma once

#include <algorithm>
#include <optional>
#include <span>

namespace ictus::internal {

class SingularCrossing {
 public:
  /// `abscissae`: the stage abscissae c_i of the method, in [0, 1].
  explicit SingularCrossing(std::span<const double> abscissae);

  /// Forgets the history (a restart after an event).
  void reset();
  /// After an accepted step that ends at t, at distance d: the step to take
  /// next instead of the controller's `h` (h itself when no crossing is
  /// near).
  double next_step(double t, double d, double h);
  /// True while the last accepted state is near a crossing: stages are
  /// projected.
  bool near() const { return near_; }
  /// A rejected step [t, t + h] that was to pass the crossing: the retry
  /// (the controller's `h_retry`) ends before it, with a quarter of the
  /// step to spare, and the next step is placed again.
  double after_rejection(double t, double h, double h_retry) const;
  /// Whether the step just accepted, ending at distance d, came near enough
  /// to a singular configuration to be searched for a passage (find_passage):
  /// d at either end of it below kNear. Ask before next_step().
  bool step_was_near(double d) const { return std::min(d, last_d_ < 0.0 ? d : last_d_) < kNear; }

  /// Below this distance the stages are projected and the steps placed.
  static constexpr double kNear = 0.05;
  /// Smallest relative fall of the distance per step that counts as an
  /// approach.
  static constexpr double kFall = 0.01;

 private:
  double centre_ = 0.5;  // where the crossing falls in the step that passes it
  double last_t_ = 0.0, last_d_ = -1.0;
  double crossing_ = -1.0;  // the predicted instant, while one is ahead
  bool near_ = false;
  int after_crossing_ = 0;  // steps still projected after an approach
};

/// Where the distance `d(t)` to a singular configuration (V-shaped through a
/// crossing: it falls linearly to zero and rises again) has a minimum inside
/// (t0, t1), by golden-section search on the stepper's dense output, to a
/// distance of 1e-7 or 60 evaluations; nullopt when d falls or rises over
/// the whole step (its minimum at an end: no passage inside). A passage that
/// no stage came near, and whose crossing was not predicted (a step that
/// passed it whole), is found here, so that every passage is logged.
template <class Distance>
std::optional<double> find_passage(double t0, double t1, Distance&& d) {
  const double h = t1 - t0;
  if (!(h > 0.0)) return std::nullopt;
  // the slopes at both ends: falling at t0 and rising at t1
  const double nudge = 1e-3 * h;
  if (!(d(t0 + nudge) < d(t0)) || !(d(t1 - nudge) < d(t1))) return std::nullopt;
  constexpr double kGolden = 0.6180339887498949;
  constexpr double kFound = 1e-7;
  double a = t0, b = t1;
  double c = b - kGolden * (b - a), e = a + kGolden * (b - a);
  double dc = d(c), de = d(e);
  for (int k = 0; k < 60 && std::min(dc, de) > kFound; ++k) {
    if (dc < de) {
      b = e;
      e = c;
      de = dc;
      c = b - kGolden * (b - a);
      dc = d(c);
    } else {
      a = c;
      c = e;
      dc = de;
      e = a + kGolden * (b - a);
      de = d(e);
    }
  }
  return dc < de ? c : e;
}

}  // namespace ictus::internal
