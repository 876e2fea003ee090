#include "lcp.h"

#include <LCP_Solvers.h>
#include <LinearComplementarityProblem.h>
#include <NonSmoothDrivers.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>
#include <lcp_cst.h>

#include <Eigen/QR>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace ictus::internal {

namespace {

// One solve with solver `id`; the problem owns copies of W and q
// (freeLinearComplementarityProblem frees them with free()).
bool run_solver(int id, const MatX& W, const VecX& q, LcpSolution& out) {
  const int n = static_cast<int>(q.size());
  auto* m = static_cast<double*>(std::malloc(sizeof(double) * static_cast<std::size_t>(n * n)));
  auto* qq = static_cast<double*>(std::malloc(sizeof(double) * static_cast<std::size_t>(n)));
  std::memcpy(m, W.data(), sizeof(double) * static_cast<std::size_t>(n * n));  // column-major
  std::memcpy(qq, q.data(), sizeof(double) * static_cast<std::size_t>(n));
  LinearComplementarityProblem* problem = newLCP();
  problem->size = n;
  problem->M = NM_create_from_data(NM_DENSE, n, n, m);
  problem->q = qq;
  SolverOptions* options = solver_options_create(id);
  options->dparam[SICONOS_DPARAM_TOL] = 1e-14;
  out.z = VecX::Zero(n);
  out.w = VecX::Zero(n);
  linearComplementarity_driver(problem, out.z.data(), out.w.data(), options);
  double error = 0.0;
  lcp_compute_error(problem, out.z.data(), out.w.data(), 1e-12, &error);
  solver_options_delete(options);
  std::free(options);  // solver_options_delete leaves the struct itself
  freeLinearComplementarityProblem(problem);
  out.error = error;
  // the error is that of z itself (lcp_compute_error forms w = M z + q):
  // a z within it solves the problem whatever the solver reported (its
  // Lemke ends with info 1 on a plank flat on five box feet, 20 corners at
  // rest, with an error of 1.25e-14)
  out.solved = out.z.allFinite() && error <= 1e-9;
  return out.solved;
}

}  // namespace

LcpSolution solve_lcp(const MatX& W, const VecX& q) {
  LcpSolution s;
  if (q.size() == 0) {
    s.solved = true;
    return s;
  }
  // trivial when nothing presses: z = 0, w = q
  if (q.minCoeff() >= 0.0) {
    s.z = VecX::Zero(q.size());
    s.w = q;
    s.solved = true;
    return s;
  }
  // A redundant contact set (a box flat on four corners) makes W singular
  // and the multipliers non-unique; a relative 1e-12 on the diagonal picks
  // the solution nearest to the least-norm one (symmetric where the
  // contacts are), changing velocities by that relative amount only.
  // The active set found, the multipliers are solved again exactly on it
  // (least-norm for a singular block), so that nonsingular problems keep
  // their exact solution.
  MatX regularised = W;
  regularised.diagonal().array() += 1e-12 * W.diagonal().cwiseAbs().maxCoeff();
  if (!run_solver(SICONOS_LCP_LEMKE, regularised, q, s) &&
      !(q.size() <= 16 && run_solver(SICONOS_LCP_ENUM, regularised, q, s)))
    return s;
  std::vector<Eigen::Index> active;
  for (Eigen::Index i = 0; i < q.size(); ++i)
    if (s.z(i) > 0.0) active.push_back(i);
  if (active.empty()) return s;
  const auto m = static_cast<Eigen::Index>(active.size());
  MatX Waa(m, m);
  VecX qa(m);
  for (Eigen::Index i = 0; i < m; ++i) {
    qa(i) = q(active[static_cast<std::size_t>(i)]);
    for (Eigen::Index j = 0; j < m; ++j)
      Waa(i, j) = W(active[static_cast<std::size_t>(i)], active[static_cast<std::size_t>(j)]);
  }
  const VecX za = Eigen::CompleteOrthogonalDecomposition<MatX>(Waa).solve(-qa);
  VecX z = VecX::Zero(q.size());
  for (Eigen::Index i = 0; i < m; ++i) z(active[static_cast<std::size_t>(i)]) = za(i);
  const VecX w = W * z + q;
  const double scale = std::max(1.0, q.cwiseAbs().maxCoeff());
  if (za.minCoeff() >= 0.0 && w.minCoeff() >= -1e-10 * scale) {
    s.z = z;
    s.w = w.cwiseMax(0.0);
  }
  return s;
}

}  // namespace ictus::internal
