// The linear complementarity problem of unilateral contact
// (Acary & Brogliato 2008, ch. 12; Pfeiffer & Glocker 1996, ch. 6):
//   w = W z + q,   w >= 0,   z >= 0,   w^T z = 0,
// with W = D_C P D_C^T the Delassus matrix of the contact rows (symmetric,
// positive semidefinite, singular for redundant contacts) and z the normal
// impulses (impact) or forces (persistent contact). Solved by
// siconos-numerics: Lemke's lexicographic pivoting first (it terminates on
// positive semidefinite W), the enumerative solver when Lemke fails. A
// relative 1e-12 is added to the diagonal: with redundant contacts it
// selects the least-norm multipliers (lcp.cpp).
#pragma once

#include "ictus/math.h"
#include "ictus/mechanical_system.h"

namespace ictus::internal {

struct LcpSolution {
  VecX z;  ///< multipliers, >= 0
  VecX w;  ///< W z + q, >= 0
  bool solved = false;
  double error = 0.0;  ///< siconos' complementarity error (relative)
};

/// Solves the LCP (W, q). Allocates (it runs at events, not in the step loop).
LcpSolution solve_lcp(const MatX& W, const VecX& q);

}  // namespace ictus::internal
