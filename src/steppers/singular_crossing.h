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
// steps.
#pragma once

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
  /// The predicted crossing instant if it lies inside (t0, t1).
  std::optional<double> passed(double t0, double t1) const;

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

}  // namespace ictus::internal
