#include "pivoting_lcp.h"

#include <LCP_Solvers.h>
#include <LinearComplementarityProblem.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>
#include <lcp_cst.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <Eigen/Cholesky>

#include "lcp.h"

namespace ictus::internal {

PivotingLcp::~PivotingLcp() {
  release();
}

void PivotingLcp::release() {
  if (options_ != nullptr) {
    solver_options_delete(options_);  // frees the work arrays
    std::free(options_);              // ... but not the struct itself
  }
  if (problem_ != nullptr) freeLinearComplementarityProblem(problem_);
  options_ = nullptr;
  problem_ = nullptr;
}

void PivotingLcp::reserve(int n) {
  if (n <= capacity_) return;
  release();
  capacity_ = n;
  const auto nn = static_cast<std::size_t>(n);
  // the problem owns its matrix and q (freeLinearComplementarityProblem frees them)
  auto* m = static_cast<double*>(std::calloc(nn * nn, sizeof(double)));
  auto* q = static_cast<double*>(std::calloc(nn, sizeof(double)));
  problem_ = newLCP();
  problem_->size = n;
  problem_->M = NM_create_from_data(NM_DENSE, n, n, m);
  problem_->q = q;
  options_ = solver_options_create(SICONOS_LCP_PIVOT);
  options_->iparam[SICONOS_LCP_IPARAM_PIVOTING_METHOD_TYPE] = SICONOS_LCP_PIVOT_LEMKE;
  options_->iparam[SICONOS_IPARAM_PREALLOC] = 1;
  // lcp_pivot's tableau is dim x 2 (dim + 1) and its basis dim entries
  options_->iWorkSize = nn;
  options_->iWork = static_cast<int*>(std::calloc(nn, sizeof(int)));
  options_->dWorkSize = nn * 2 * (nn + 1);
  options_->dWork = static_cast<double*>(std::calloc(options_->dWorkSize, sizeof(double)));
  z_ = VecX::Zero(n);
  w_ = VecX::Zero(n);
  factor_ = MatX::Zero(n, n);
  za_ = VecX::Zero(n);
  zb_ = VecX::Zero(n);
  rhs_ = VecX::Zero(n);
  active_.reserve(nn);
}

bool PivotingLcp::refine(const MatX& W, const VecX& q, std::span<const int> subset) {
  const int n = static_cast<int>(subset.size());
  active_.clear();
  for (int r = 0; r < n; ++r)
    if (z_(r) > 0.0) active_.push_back(r);
  const auto m = static_cast<Eigen::Index>(active_.size());
  if (m == 0) return true;
  double diagonal = 0.0;
  for (Eigen::Index i = 0; i < m; ++i) {
    const int si = subset[static_cast<std::size_t>(active_[static_cast<std::size_t>(i)])];
    rhs_(i) = -q(si);
    diagonal = std::max(diagonal, std::abs(W(si, si)));
    for (Eigen::Index j = 0; j < m; ++j)
      factor_(i, j) = W(si, subset[static_cast<std::size_t>(active_[static_cast<std::size_t>(j)])]);
  }
  const double d = 1e-6 * diagonal;
  auto block = factor_.topLeftCorner(m, m);
  block.diagonal().array() += d;
  Eigen::Ref<MatX> in_place(block);
  const Eigen::LLT<Eigen::Ref<MatX>> llt(in_place);  // factorises in factor_
  if (llt.info() != Eigen::Success) return false;
  auto z = za_.head(m);
  auto next = zb_.head(m);
  z.setZero();
  // the error contracts by d / (lambda + d) per iteration on each
  // eigenvalue lambda > 0 of W_aa, and the round-off of the solves adds
  // about eps (diag W) / d to the null-space part of z in each
  for (int iteration = 0; iteration < 50; ++iteration) {
    next = rhs_.head(m) + d * z;
    llt.solveInPlace(next);
    const double change = (next - z).cwiseAbs().maxCoeff();
    z = next;
    if (change <= 1e-10 * z.cwiseAbs().maxCoeff()) break;
  }
  // ... and the result must be admissible: z >= 0, w >= 0 off the active set
  if (z.minCoeff() < 0.0) return false;
  double scale = 1.0;
  for (int r = 0; r < n; ++r) scale = std::max(scale, std::abs(q(subset[r])));
  for (int r = 0; r < n; ++r) {
    double w = q(subset[r]);
    for (Eigen::Index i = 0; i < m; ++i)
      w += W(subset[r], subset[static_cast<std::size_t>(active_[static_cast<std::size_t>(i)])]) *
           z(i);
    if (w < -1e-10 * scale) return false;
  }
  z_.head(n).setZero();
  for (Eigen::Index i = 0; i < m; ++i) z_(active_[static_cast<std::size_t>(i)]) = z(i);
  return true;
}

bool PivotingLcp::solve(const MatX& W, const VecX& q, std::span<const int> subset,
                        Eigen::Ref<VecX> z, bool least_norm) {
  z.setZero();
  error_ = 0.0;
  const int n = static_cast<int>(subset.size());
  if (n == 0) return true;
  bool trivial = true;  // nothing presses: z = 0
  for (const int i : subset) trivial = trivial && q(i) >= 0.0;
  if (trivial) return true;
  reserve(n);
  double diagonal = 0.0;
  for (const int i : subset) diagonal = std::max(diagonal, std::abs(W(i, i)));
  double* m = problem_->M->matrix0;  // column-major, leading dimension n
  for (int c = 0; c < n; ++c) {
    for (int r = 0; r < n; ++r) m[c * n + r] = W(subset[r], subset[c]);
    m[c * n + c] += 1e-12 * diagonal;
    problem_->q[c] = q(subset[c]);
  }
  problem_->size = n;
  problem_->M->size0 = n;
  problem_->M->size1 = n;
  int info = 1;
  lcp_pivot(problem_, z_.data(), w_.data(), &info, options_);
  // the result is judged on the unregularised problem
  double scale = 1.0, worst = 0.0;
  bool ok = info == 0;
  for (int r = 0; r < n && ok; ++r) {
    double w = q(subset[r]);
    for (int c = 0; c < n; ++c) w += W(subset[r], subset[c]) * z_(c);
    scale = std::max(scale, std::abs(q(subset[r])));
    worst = std::max({worst, -w, -z_(r), std::abs(w * z_(r)) / std::max(1.0, std::abs(z_(r)))});
    ok = std::isfinite(w) && std::isfinite(z_(r));
  }
  error_ = worst / scale;
  if (ok && error_ <= 1e-9) {
    if (least_norm) (void)refine(W, q, subset);
    for (int r = 0; r < n; ++r) z(subset[r]) = std::max(z_(r), 0.0);
    return true;
  }
  // rare: the allocating solver, with the enumerative fallback
  MatX Ws(n, n);
  VecX qs(n);
  for (int r = 0; r < n; ++r) {
    qs(r) = q(subset[r]);
    for (int c = 0; c < n; ++c) Ws(r, c) = W(subset[r], subset[c]);
  }
  const LcpSolution s = solve_lcp(Ws, qs);
  error_ = s.error;
  if (!s.solved) return false;
  for (int r = 0; r < n; ++r) z(subset[r]) = s.z(r);
  return true;
}

}  // namespace ictus::internal
