// What a stepper may ask of a mechanism, and nothing more.
//
// A stepper sees the state layout (state_layout.h), the index-1 dynamics
//   v' = a(t, q, v)      (accelerations with the constraint forces and the
//                         Baumgarte terms of seed 000 eqs. 6-7 included)
// and the rates of the energy-audit quadratures. It never sees bodies,
// joints or constraint rows. Implicit steppers linearise a(t, q, v) through
// jacobian(); the two-pass scheme of seed 003 freezes the nonlinear force
// elements (force.h: ForcePart) at a chosen state.
#pragma once

#include <vector>

#include "ictus/math.h"
#include "ictus/state_layout.h"

namespace ictus {

/// Dense matrix for the iteration matrices of the implicit steppers.
using MatX = Eigen::MatrixXd;

class MechanicalSystem {
 public:
  virtual ~MechanicalSystem() = default;

  virtual const StateLayout& layout() const = 0;

  /// Accelerations and audit rates at (t, y): rates = [v' (6 per body) |
  /// audit' (layout().audit)]. Does not allocate once the structure is
  /// analysed. Throws SimulationError if no accelerations exist (an
  /// inconsistent constraint set) or a value is not finite.
  virtual void accelerations(double t, const VecX& y, Eigen::Ref<VecX> rates) = 0;

  /// The first-order form y' = F(t, y), quaternion rates included.
  void derivative(double t, const VecX& y, Eigen::Ref<VecX> dy);

  /// Jacobians of the accelerations with respect to a position increment
  /// (A_q, at q (+) dq, dq -> 0) and to the velocities (A_v), each
  /// velocity_size() square, at (t, y); `rates` is accelerations(t, y).
  /// The default is a forward finite difference over every coordinate
  /// (2 * velocity_size() evaluations), allocation-free after the first call.
  virtual void jacobian(double t, const VecX& y, const VecX& rates, MatX& A_q, MatX& A_v);
  /// Sizes the work of jacobian() (steppers call it in reset, outside the
  /// step loop).
  void reserve_jacobian_work();

  /// Per body, the number of its coupling group (0, 1, ...): a body's
  /// accelerations depend only on the states of the bodies in its group.
  /// The sparse Jacobians of the SUNDIALS steppers take their pattern from
  /// it. The default, every body in group 0, is always correct.
  virtual std::vector<int> coupling_groups() const;

  /// Moves y onto the constraints (positions, then velocities) if their
  /// violation exceeds the model's projection tolerance; true if y changed.
  /// The structural steppers call it after every step: their O(h^2) drift
  /// would otherwise reach the reactions through the Baumgarte terms.
  virtual bool project(double /*t*/, VecX& /*y*/) { return false; }

  /// True if some force element has a nonlinear part that the two-pass
  /// scheme may freeze (seed 003).
  virtual bool has_nonlinear_forces() const { return false; }
  /// From now on, the nonlinear parts of the force elements act as at
  /// (t, y) whatever state accelerations() is called at; nullptr unfreezes.
  virtual void freeze_nonlinear_forces(double /*t*/, const VecX* /*y*/) {}

 private:
  VecX y_perturbed_, rates_perturbed_, increment_;  // finite-difference work
};

}  // namespace ictus
