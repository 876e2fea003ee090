// Elementary constraints (seed 002): the building blocks of every joint.
//
// Each elementary constraint between a base body i and a follower body j
// contributes one or three rows of the velocity-level constraint equation
//
//     D u = h(t)                     (seed 000 eq. 1)
//
// where u stacks, per body, the centre-of-mass velocity v_W and the angular
// velocity w_B in the body frame. Differentiating once more gives the
// acceleration-level row used by the dynamics,
//
//     D u' = gamma,   gamma = h'(t) - D'(q, u) u.
//
// Holonomic rows also give a position-level violation Delta(q, t) whose time
// derivative is D u - h; it drives the Baumgarte terms (seed 000 eq. 7) and
// the projection onto the constraint manifold. Rotation locks are holonomic
// only in pairs or triples; their position-level violation is supplied by
// the owning joint (docs/theory/constraints.md).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "ictus/body.h"
#include "ictus/math.h"

namespace ictus {

/// One row of D with its right-hand sides, for one evaluation.
struct ConstraintRow {
  Vec6 J_base = Vec6::Zero();      ///< d(row)/d[v_W; w_B] of the base body
  Vec6 J_follower = Vec6::Zero();  ///< d(row)/d[v_W; w_B] of the follower body
  double gamma = 0.0;              ///< acceleration-level right-hand side h' - D'u
  double target = 0.0;             ///< velocity-level right-hand side h
  double position_error = 0.0;     ///< Delta, valid if has_position_error
  bool has_position_error = false;
};

/// Prescribed value of a driven coordinate and its first two time derivatives.
struct MotionSample {
  double value = 0.0;
  double rate = 0.0;
  double acceleration = 0.0;
};

/// Everything an elementary constraint needs to evaluate its rows.
struct ConstraintContext {
  const BodyKinematics& base;
  const BodyKinematics& follower;
  double t;
  MotionSample motion;  ///< meaningful only for driven constraints
};

/// Interface of an elementary constraint. Geometry is given in the body
/// frames (centre-of-mass frames) of the base and follower bodies.
class ElementaryConstraint {
 public:
  virtual ~ElementaryConstraint() = default;

  /// Short kind name, as in the model file ("point_on_plane").
  virtual std::string_view kind() const = 0;
  /// Number of rows of D (1 or 3).
  virtual int row_count() const = 0;
  /// Label of row k, e.g. "x" for the x row of a point coincidence.
  virtual std::string row_label(int /*k*/) const { return {}; }
  /// True if the rows have a position-level meaning on their own.
  virtual bool holonomic() const { return true; }
  /// True if the constraint prescribes a motion (a driver).
  virtual bool driven() const { return false; }
  /// True if the multipliers are moments [N m] rather than forces [N].
  virtual bool rows_are_moments() const { return false; }
  /// Fills `rows` (size row_count()).
  virtual void evaluate(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const = 0;
  /// Fills only the rows' gamma, the one part of a row that depends on the
  /// velocities: the rest (Jacobians, target, Delta) is a function of the
  /// positions and time and is left as evaluate() wrote it at the same
  /// positions and time. The System calls it when only the velocities
  /// changed (docs/performance.md, "Evaluation skipping").
  virtual void evaluate_gamma(const ConstraintContext& ctx,
                              std::span<ConstraintRow> rows) const = 0;
};

}  // namespace ictus
