#include "lcp.h"

#include <LCP_Solvers.h>
#include <LinearComplementarityProblem.h>
#include <NonSmoothDrivers.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>
#include <lcp_cst.h>

#include <cstdlib>
#include <cstring>

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
  const int info = linearComplementarity_driver(problem, out.z.data(), out.w.data(), options);
  double error = 0.0;
  lcp_compute_error(problem, out.z.data(), out.w.data(), 1e-12, &error);
  solver_options_delete(options);
  std::free(options);  // solver_options_delete leaves the struct itself
  freeLinearComplementarityProblem(problem);
  out.error = error;
  out.solved = info == 0 && error <= 1e-9;
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
  if (run_solver(SICONOS_LCP_LEMKE, W, q, s)) return s;
  if (q.size() <= 16 && run_solver(SICONOS_LCP_ENUM, W, q, s)) return s;
  return s;
}

}  // namespace ictus::internal
