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

#include <limits>
#include <vector>

#include "ictus/math.h"
#include "ictus/state_layout.h"

namespace ictus {

/// Dense matrix for the iteration matrices of the implicit steppers.
using MatX = Eigen::MatrixXd;

/// What a time-stepping scheme with unilateral contacts (Moreau-Jean,
/// docs/theory/contact.md) assembles, dense, velocity_size() columns. The
/// matrices are resized only when the constraint structure changes.
struct TimeSteppingRows {
  MatX D;            ///< the active, independent equality rows (joints, drivers)
  VecX target;       ///< their velocity targets: D u = target
  MatX G;            ///< one row per contact side: its gap rate is G u
  VecX gap;          ///< the gap of each side
  VecX resolution;   ///< the smallest gap each side resolves (round-off of its coordinate)
  VecX restitution;  ///< Newton's coefficient of each side
  /// Coulomb friction (docs/theory/friction.md, "Friction at contacts"):
  /// two rows per contact side, its slip rates along the plane's x and y
  /// tangents (T u), and its coefficient mu (0: frictionless; T then has
  /// zero rows for it). T has no rows when no contact has friction.
  MatX T;
  VecX mu;
  VecX mu_static;  ///< the static coefficient (>= mu) of each side
};

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
  /// The same to `tolerance` (m or rad, velocities likewise), whatever the
  /// model's projection settings: the stages an explicit stepper evaluates
  /// near a singular configuration (steppers/singular_crossing.h).
  virtual bool project_to(double /*t*/, VecX& /*y*/, double /*tolerance*/) { return false; }
  /// How far the last evaluation was from a configuration where the rank of
  /// the constraints falls (a parallelogram's links collinear): a distance
  /// that falls linearly in time to zero as a motion passes one (the
  /// smallest sine between a row of the scaled D and the others, relative
  /// to the mechanism's own where that was below 0.1 when its structure was
  /// built: a long chain); +inf when no such configuration is near, or
  /// without rows.
  virtual double singularity_distance() { return std::numeric_limits<double>::infinity(); }
  /// The same distance at the state y (between the stepper's stages, on its
  /// dense output), asked of the geometry whatever the pivots of S; the rank
  /// decision is left as it is. +inf without rows.
  virtual double singularity_distance_at(double /*t*/, const VecX& /*y*/) {
    return std::numeric_limits<double>::infinity();
  }
  /// A step passed a singular configuration at about t (state y there)
  /// without any stage near it: the System logs the passage.
  virtual void note_singular_passage(double /*t*/, const VecX& /*y*/) {}

  /// True if some force element has a nonlinear part that the two-pass
  /// scheme may freeze (seed 003).
  virtual bool has_nonlinear_forces() const { return false; }
  /// From now on, the nonlinear parts of the force elements act as at
  /// (t, y) whatever state accelerations() is called at; nullptr unfreezes.
  virtual void freeze_nonlinear_forces(double /*t*/, const VecX* /*y*/) {}

  // --- the pieces of M u' = f + D^T lambda, for steppers that assemble their
  // own equations (Moreau-Jean time-stepping, index-3 HHT): the defaults are
  // those of an unconstrained system with M = I and f = the accelerations.

  /// Number of constraint rows at the last evaluation (the reactions' size).
  virtual int constraint_count() const { return 0; }
  /// r += c f(t, q, v): the forces in the velocity coordinates, 6 per body
  /// [F_W; tau_B - w x J w].
  virtual void add_forces(double t, const VecX& y, double c, Eigen::Ref<VecX> r);
  /// r += c M w (6 per body: m w_lin, J w_ang).
  virtual void add_mass_times(double c, Eigen::Ref<const VecX> w, Eigen::Ref<VecX> r) const;
  /// r += c D^T lambda at (t, y) (lambda: one entry per constraint row).
  virtual void add_constraint_forces(double /*t*/, const VecX& /*y*/, double /*c*/,
                                     Eigen::Ref<const VecX> /*lambda*/, Eigen::Ref<VecX> /*r*/) {}
  /// Position residuals Phi (0 for a row without a position-level meaning, a
  /// lone rotation lock) and velocity residuals D u - h of the rows at (t, y).
  virtual void constraint_residuals(double /*t*/, const VecX& /*y*/, Eigen::Ref<VecX> /*phi*/,
                                    Eigen::Ref<VecX> /*phi_dot*/) {}
  /// The multipliers (reactions) of the last accelerations() call.
  virtual void multipliers(Eigen::Ref<VecX> /*out*/) const {}
  // --- unilateral contacts, for a stepper that handles them itself
  // (Moreau-Jean); event-driven steppers leave them to the Simulation.

  /// Number of contact sides.
  virtual int unilateral_count() const { return 0; }
  /// The rows of TimeSteppingRows at (t, y): the equality rows with their
  /// targets at t, the contact rows and gaps at the positions of y.
  virtual void time_stepping_rows(double /*t*/, const VecX& /*y*/, TimeSteppingRows& /*rows*/) {}
  /// The contact impulses of the step of size h that has just ended (one
  /// per side, then two per side along its tangents when the rows have
  /// friction): the channels <side>.impulse, .normal (impulse / h, the mean
  /// force of the step), .state (1 if the impulse is positive) and the
  /// friction channels (tangential impulse / h).
  virtual void record_contact_impulses(double /*h*/, Eigen::Ref<const VecX> /*impulse*/) {}
  /// Energy audit of a time step from (t0, y0) to (t1, y1) that the stepper
  /// assembled itself: the applied work and the elements' dissipation by the
  /// theta-weighted rule, `constraint_work` (the equality impulses' work) as
  /// driver work, `impact_loss` (the kinetic energy the contact impulses
  /// took) in energy.impacts, and what else the balance lacks as the
  /// scheme's own dissipation. Writes the audit entries of y1; returns that
  /// dissipation [J] (negative: the scheme gained energy).
  virtual double book_step_energy(double /*t0*/, const VecX& /*y0*/, double /*t1*/, VecX& /*y1*/,
                                  double /*theta*/, double /*impact_loss*/,
                                  double /*constraint_work*/) {
    return 0.0;
  }

  /// G = a M - b df/dv - c (df/dq + d(D^T lambda)/dq) at (t, y) for the given
  /// multipliers, velocity_size() square (positions along the increment).
  /// The default differences add_forces and add_constraint_forces.
  virtual void iteration_matrix(double t, const VecX& y, double a, double b, double c,
                                Eigen::Ref<const VecX> lambda, MatX& G);

 private:
  VecX y_perturbed_, rates_perturbed_, increment_;  // finite-difference work
};

}  // namespace ictus
