// Moreau-Jean time-stepping (J. J. Moreau 1988, M. Jean 1999; V. Acary and
// B. Brogliato, Numerical Methods for Nonsmooth Dynamical Systems, Springer
// 2008, sec. 10.1): the velocities jump where the contacts act, and a fixed
// step h integrates the impulse of the forces and of the contacts together,
//   M (u+ - u) = h f_theta + D^T p + G^T P                      (AB 10.16a)
//   q+ = q (+) h (theta u+ + (1 - theta) u)                     (AB 10.16b)
//   D u+ = h_E(t+)                          (joints, drivers: equality rows)
//   for the sides with g + (h/2) g' <= 0 (the index set, AB 10.17):
//     0 <= P  _|_  G u+ + e min(G u, 0) >= 0            (Newton, AB 10.18)
// with f_theta = (1 - theta) f(t, q, u) + theta f(t+h, q (+) h u, u): the
// forces theta-weighted, their end value at the explicit prediction (forces
// that are stiff need a small step; the contact itself is implicit). The
// equality rows are condensed out as in System::contact_impact and the
// contacts' LCP (the Delassus matrix W over the index set) is solved by
// siconos-numerics' Lemke without allocating (contact/pivoting_lcp.h).
// After the step the positions are projected onto the equality rows
// (MechanicalSystem::project, if their drift exceeds the model's projection
// tolerance); contacts are not projected (a closed contact keeps the
// penetration of its impact step, O(h v)).
// Dense output: positions along the step's mean velocity, velocities and
// audit linear. The stepper handles the contacts itself: the Simulation's
// event-driven contact switching is off (stepper_handles_contacts).
#pragma once

#include <Eigen/Cholesky>
#include <limits>
#include <vector>

#include "../contact/pivoting_lcp.h"
#include "ictus/stepper.h"

namespace ictus {

class MoreauJeanStepper final : public Stepper {
 public:
  MoreauJeanStepper(MechanicalSystem& system, const StepperOptions& options);

  std::string_view name() const override { return "moreau_jean"; }
  void reset(double t, const VecX& y) override;
  void step(double t_limit) override;
  void interpolate(double tt, Eigen::Ref<VecX> out) const override;

  /// The origin of the step grid (a run continued from a saved state keeps it).
  double restart_memory() const override { return origin_; }
  void set_restart_memory(double value) override { origin_ = value; }

  /// Energy the scheme itself dissipated so far (negative: gained) [J].
  double scheme_dissipation() const { return scheme_dissipation_; }

 private:
  MechanicalSystem& system_;
  double h_ = 1e-3;
  double theta_ = 0.5;
  double origin_ = std::numeric_limits<double>::quiet_NaN();  // steps end at origin + k h
  StateLayout layout_;
  int nv_ = 0;

  MatX Minv_;  // M^-1, constant (velocities in body axes)
  TimeSteppingRows rows_;
  VecX u0_, u_free_, u1_, force_, mean_, y_pred_, previous_;
  // the condensation of the equality rows (sizes change with the structure)
  MatX B_;  // M^-1 D^T
  MatX A_;  // D M^-1 D^T
  Eigen::LLT<MatX> llt_;
  VecX p_, rhs_;
  // the contacts: H = [G; T] (gap rates, then with friction two slip rates
  // per side), W = H P_M H^T and q over every side, the index set, the
  // impulses Pi = [P; tangential]
  MatX H_, MinvHt_, HB_, Y_, W_;
  VecX q_, Pi_, rate0_, rate1_, YP_;
  std::vector<int> index_set_;
  internal::PivotingLcp lcp_;
  // Coulomb friction's complementarity problem (polyhedral cone, four
  // directions per side; Stewart and Trinkle 1996), sized for every side
  MatX L_;
  VecX lq_, lz_;
  std::vector<int> lsubset_, friction_sides_;
  std::vector<double> friction_mu_;
  /// Solves the step's problem with friction on the sides of the index set
  /// that have it (Pi_ gets the impulses); false if it has no solution.
  bool solve_with_friction();
  mutable VecX dense_;  // interpolate's position increment
  double scheme_dissipation_ = 0.0;

  /// Sizes the work for the current rows (at a reset, and in a step only
  /// when the constraint structure changed).
  void size_work();
};

}  // namespace ictus
