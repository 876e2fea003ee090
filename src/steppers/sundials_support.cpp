#include "sundials_support.h"

#include <fmt/format.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <stdexcept>

namespace ictus::internal {

void SundialsMessages::handler(int /*code*/, const char* /*module*/, const char* function,
                               char* message, void* data) {
  auto& self = *static_cast<SundialsMessages*>(data);
  // "function: message", truncated to the buffer (snprintf does not allocate)
  std::snprintf(self.text_.data(), self.text_.size(), "%s: %s", function ? function : "?",
                message ? message : "");
}

void check_sundials_options(std::string_view stepper, const StepperOptions& options) {
  auto bad = [&](const std::string& what) {
    throw std::invalid_argument(fmt::format("integrator '{}': {}", stepper, what));
  };
  if (!(options.rtol > 0.0)) bad(fmt::format("rtol must be positive, got {}", options.rtol));
  if (!(options.atol >= 0.0)) bad(fmt::format("atol must be >= 0, got {}", options.atol));
  if (!(options.max_step >= 0.0))
    bad(fmt::format("max_step must be >= 0 (0: unlimited), got {}", options.max_step));
  if (!(options.min_step >= 0.0))
    bad(fmt::format("min_step must be >= 0, got {}", options.min_step));
}

void normalize_quaternions(const StateLayout& layout, double* y) {
  for (int b = 0; b < layout.bodies; ++b) {
    double* q = y + 7 * b + 3;
    const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (norm > 0.0)
      for (int i = 0; i < 4; ++i) q[i] /= norm;
  }
}

void first_order_jacobian(const StateLayout& layout, const VecX& y, const MatX& A_q,
                          const MatX& A_v, Eigen::Ref<MatX> J) {
  const int nq = layout.position_size();
  const int nv = layout.velocity_size();
  J.setZero();
  for (int b = 0; b < layout.bodies; ++b) {
    const int p = 7 * b;       // position rows / columns of body b
    const int r = p + 3;       // its quaternion
    const int u = nq + 6 * b;  // its velocity rows / columns
    const double qw = y(r);
    const Vec3 qv = y.segment<3>(r + 1);
    const Vec3 w = y.segment<3>(u + 3);
    // p' = v_W
    J.block<3, 3>(p, u).setIdentity();
    // q' = q (x) (0, w)/2 = [-q_v . w; q_w w + q_v x w] / 2
    J.block<1, 3>(r, r + 1) = -0.5 * w.transpose();
    J.block<3, 1>(r + 1, r) = 0.5 * w;
    J.block<3, 3>(r + 1, r + 1) = -0.5 * skew(w);
    J.block<1, 3>(r, u + 3) = -0.5 * qv.transpose();
    J.block<3, 3>(r + 1, u + 3) = 0.5 * (qw * Mat3::Identity() + skew(qv));
    // accelerations through dtheta = 2 vec(q^* (x) dq) = G dq
    Eigen::Matrix<double, 3, 4> G;
    G.col(0) = -2.0 * qv;
    G.rightCols<3>() = 2.0 * (qw * Mat3::Identity() - skew(qv));
    J.block(nq, p, nv, 3) = A_q.middleCols(6 * b, 3);
    J.block(nq, r, nv, 4) = A_q.middleCols(6 * b + 3, 3) * G;
  }
  J.block(nq, nq, nv, nv) = A_v;
}

JacobianPattern jacobian_pattern(const StateLayout& layout, const std::vector<int>& groups) {
  const int bodies = layout.bodies;
  const int nq = layout.position_size();
  JacobianPattern p;
  p.n = nq + layout.velocity_size();
  int group_count = 0;
  for (int g : groups) group_count = std::max(group_count, g + 1);
  std::vector<std::vector<int>> members(static_cast<std::size_t>(group_count));
  for (int b = 0; b < bodies; ++b) members[static_cast<std::size_t>(groups[b])].push_back(b);
  std::vector<int> rank(static_cast<std::size_t>(bodies), 0);
  std::size_t largest = 0;
  for (const auto& m : members) {
    largest = std::max(largest, m.size());
    for (std::size_t k = 0; k < m.size(); ++k) rank[static_cast<std::size_t>(m[k])] = int(k);
  }
  // column of state entry (body b, local l): positions 7 b + l (l < 7),
  // velocities nq + 6 b + (l - 7)
  auto column = [&](int b, int l) { return l < 7 ? 7 * b + l : nq + 6 * b + (l - 7); };
  std::vector<int> body_of(static_cast<std::size_t>(p.n)), colour_of(static_cast<std::size_t>(p.n));
  for (int b = 0; b < bodies; ++b)
    for (int l = 0; l < 13; ++l) {
      body_of[static_cast<std::size_t>(column(b, l))] = b;
      colour_of[static_cast<std::size_t>(column(b, l))] =
          13 * rank[static_cast<std::size_t>(b)] + l;
    }
  p.column_start.assign(1, 0);
  p.diagonal.resize(static_cast<std::size_t>(p.n));
  for (int j = 0; j < p.n; ++j) {
    const int b = body_of[static_cast<std::size_t>(j)];
    for (int i = 7 * b; i < 7 * b + 7; ++i) p.row.push_back(i);
    for (int c : members[static_cast<std::size_t>(groups[b])])  // ascending body order
      for (int i = nq + 6 * c; i < nq + 6 * c + 6; ++i) p.row.push_back(i);
    const auto first = p.row.begin() + p.column_start.back();
    p.diagonal[static_cast<std::size_t>(j)] = std::find(first, p.row.end(), j) - p.row.begin();
    p.column_start.push_back(static_cast<sunindextype>(p.row.size()));
  }
  p.colours = static_cast<int>(13 * largest);
  p.colour_start.assign(static_cast<std::size_t>(p.colours + 1), 0);
  for (int j = 0; j < p.n; ++j) ++p.colour_start[static_cast<std::size_t>(colour_of[j] + 1)];
  for (int k = 0; k < p.colours; ++k) p.colour_start[k + 1] += p.colour_start[k];
  p.colour_column.resize(static_cast<std::size_t>(p.n));
  std::vector<int> fill(p.colour_start.begin(), p.colour_start.end() - 1);
  for (int j = 0; j < p.n; ++j) p.colour_column[fill[colour_of[j]]++] = j;
  return p;
}

bool use_klu(LinearSolverChoice choice, const JacobianPattern& pattern) {
  switch (choice) {
    case LinearSolverChoice::kDense:
      return false;
    case LinearSolverChoice::kKlu:
      return true;
    case LinearSolverChoice::kAuto:
      break;
  }
  return pattern.n > kSparseMinUnknowns;
}

namespace {

// SUNLinSolInitialize_KLU sets "first factorize", so the next setup runs
// klu_analyze and klu_factor again (allocating); with an unchanged pattern
// the previous analysis and numeric storage serve, and klu_refactor (which
// does not allocate) is what the next setup calls.
int initialize_keeping_analysis(SUNLinearSolver S) {
  if (SUNLinSol_KLUGetNumeric(S) == nullptr) return SUNLinSolInitialize_KLU(S);
  return SUNLS_SUCCESS;
}

}  // namespace

bool make_klu(const JacobianPattern& pattern, N_Vector y, SUNContext context, SUNMatrix& matrix,
              SUNLinearSolver& solver) {
  matrix = SUNSparseMatrix(pattern.n, pattern.n, pattern.nonzeros(), CSC_MAT, context);
  if (!matrix) return false;
  load_pattern(pattern, matrix);
  solver = SUNLinSol_KLU(y, matrix, context);
  if (!solver) return false;
  solver->ops->initialize = initialize_keeping_analysis;
  return true;
}

bool make_linear_solver(LinearSolverChoice choice, const JacobianPattern& pattern, N_Vector y,
                        SUNContext context, SUNMatrix& matrix, SUNLinearSolver& solver) {
  const bool sparse = use_klu(choice, pattern);
  if (sparse) {
    if (!make_klu(pattern, y, context, matrix, solver)) throw std::bad_alloc();
  } else {
    matrix = SUNDenseMatrix(pattern.n, pattern.n, context);
    solver = SUNLinSol_Dense(y, matrix, context);
    if (!matrix || !solver) throw std::bad_alloc();
  }
  return sparse;
}

void load_pattern(const JacobianPattern& pattern, SUNMatrix J) {
  std::copy(pattern.column_start.begin(), pattern.column_start.end(),
            SUNSparseMatrix_IndexPointers(J));
  std::copy(pattern.row.begin(), pattern.row.end(), SUNSparseMatrix_IndexValues(J));
}

int gather(const JacobianPattern& pattern, const MatX& J, double c_j, SUNMatrix J_sparse) {
  load_pattern(pattern, J_sparse);
  double* data = SUNSparseMatrix_Data(J_sparse);
  bool finite = true;
  for (int j = 0; j < pattern.n; ++j) {
    for (sunindextype e = pattern.column_start[j]; e < pattern.column_start[j + 1]; ++e)
      data[e] = J(pattern.row[e], j);
    data[pattern.diagonal[j]] += c_j;
  }
  for (long e = 0; e < pattern.nonzeros(); ++e) finite = finite && std::isfinite(data[e]);
  return finite ? 0 : 1;
}

}  // namespace ictus::internal
