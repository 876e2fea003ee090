// Coulomb friction in a contact problem at the velocity (impulse) level, the
// polyhedral cone of four directions +-t_x, +-t_y per side (D. E. Stewart
// and J. C. Trinkle, Int. J. Numer. Meth. Engng 39 (1996) 2673-2691; M.
// Anitescu and F. A. Potra, Nonlinear Dynamics 14 (1997) 231-247). With the
// rates H u = [G u; T u] (one gap rate per side, then two slip rates per
// side), W = H P_M H^T and q the rates without impulses (the normal rows
// with their restitution term), r = sum_d beta_d d the tangential impulse
// and lambda the slip speed of a side:
//   0 <= P       _|_  (W Pi + q)_normal >= 0
//   0 <= beta_d  _|_  d . (W Pi + q)_tangent + lambda >= 0     (each direction d)
//   0 <= lambda  _|_  mu P - sum_d beta_d >= 0
// Sticking: lambda = 0, |r| within the pyramid; sliding: lambda is the slip
// speed, the impulse on the pyramid's edge opposing the slip. The matrix is
// not symmetric (Lemke's method handles it: copositive-plus for W positive
// semidefinite). Used by the Moreau-Jean step (steppers/moreau_jean.cpp) and
// the event-driven impacts (system_contacts.cpp). Does not allocate.
#pragma once

#include <span>

#include "ictus/mechanical_system.h"

namespace ictus::internal {

/// Writes the problem's matrix into the top-left n x n block of `L` and its
/// vector into the head of `lq`, n = normal.size() + 5 friction.size(), for
/// the unknowns (P of the sides `normal`, then four beta per side of
/// `friction`, then one lambda per side of `friction`). W and q are over H's
/// rows: `sides` gap rates, then 2 slip rates per side (side k's at
/// sides + 2k, sides + 2k + 1). Each side of `friction` is one of `normal`,
/// with its coefficient in `mu` (same order as `friction`).
void assemble_friction_pyramid(const MatX& W, const VecX& q, Eigen::Index sides,
                               std::span<const int> normal, std::span<const int> friction,
                               std::span<const double> mu, MatX& L, VecX& lq);

/// The impulses over H's rows (P per side, then the tangential impulse along
/// each slip rate) from the problem's solution z; zero for the sides not in
/// `normal`.
void friction_pyramid_impulses(const VecX& z, Eigen::Index sides, std::span<const int> normal,
                               std::span<const int> friction, Eigen::Ref<VecX> impulse);

/// The problem of assemble_friction_pyramid (L, lq over its n unknowns)
/// solved side by side (block Gauss-Seidel, the nonsmooth Gauss-Seidel of
/// Jean and Moreau; Acary & Brogliato 2008, sec. 13.4.5): each side's own
/// problem (its P, four beta and lambda; a side without friction its P)
/// with the others' impulses fixed, by Lemke's lexicographic pivoting
/// (contact/lexicographic_lemke.h), sweep after sweep until no unknown
/// changes by more than 1e-14 of the largest. For the degenerate problems
/// that pivoting over all the sides ends on a ray in (a box flat on four
/// corners: rows dependent, rates exactly zero), where each side's own
/// problem is not degenerate. The sweeps stop at that change, or after
/// 2000; true when the result then meets the whole problem's
/// complementarity to 1e-9 of |lq| (z is then its solution). Allocates.
bool solve_friction_pyramid_by_sides(const MatX& L, const VecX& lq, std::span<const int> normal,
                                     std::span<const int> friction, Eigen::Ref<VecX> z);

/// What the callers try when siconos' pivoting (PivotingLcp) fails on the
/// problem of assemble_friction_pyramid: with the rates at the round-off of
/// the largest (1e-10) set to zero, Lemke's lexicographic pivoting over the
/// whole problem, then side by side, the result checked on the problem as
/// given (to 1e-9 of |lq|). The degenerate case is a rigid body
/// resting or landing flat on several rough points (dependent rows, rates
/// exactly zero). True with z the solution; allocates.
bool solve_degenerate_friction_pyramid(const MatX& L, const VecX& lq, std::span<const int> normal,
                                       std::span<const int> friction, Eigen::Ref<VecX> z);

}  // namespace ictus::internal
