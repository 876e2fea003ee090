// What the CVODE and IDA steppers share (internal to src/steppers).
#pragma once

#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nvector.h>
#include <sundials/sundials_types.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <array>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "ictus/mechanical_system.h"
#include "ictus/state_layout.h"
#include "ictus/stepper.h"

namespace ictus::internal {

/// Receives SUNDIALS' error and warning messages instead of stderr (CVODE
/// guide sec. 4.5.2, "CVodeSetErrHandlerFn"; IDA guide sec. 4.5.8.1). Copies
/// into a fixed buffer: a warning inside the step loop must not allocate.
class SundialsMessages {
 public:
  /// Signature of CVErrHandlerFn and IDAErrHandlerFn; `data` is this object.
  static void handler(int code, const char* module, const char* function, char* message,
                      void* data);
  void clear() { text_[0] = '\0'; }
  /// The last message, "" if none.
  std::string_view last() const { return text_.data(); }

 private:
  std::array<char, 512> text_{};
};

/// Rejects options the SUNDIALS steppers cannot use (std::invalid_argument).
void check_sundials_options(std::string_view stepper, const StepperOptions& options);

/// Divides each quaternion of the state at `y` by its norm. Only for the
/// states handed out (Stepper::y(), interpolate()), never for the solver's own.
void normalize_quaternions(const StateLayout& layout, double* y);

/// The Jacobian J = dF/dy of the first-order form y' = F(t, y) over the
/// positions and velocities (13 per body; no audit entries), from the
/// mechanical Jacobians A_q (per position increment [dp, dtheta_B]) and A_v:
///   d p'/d v_W     = I
///   d q'/d q       = R(w)/2, d q'/d w = L(q) [0; I]/2   (q' = q (x) (0, w)/2)
///   d v'/d p       = A_q[:, dp]
///   d v'/d q       = A_q[:, dtheta] * 2 [-q_v, q_w I - [q_v]x]   (dtheta = 2 vec(q^* (x) dq))
///   d v'/d v       = A_v
/// The last but one is the chain rule through the tangent increment: a
/// change of |q| does not rotate the body, so it moves no acceleration.
void first_order_jacobian(const StateLayout& layout, const VecX& y, const MatX& A_q,
                          const MatX& A_v, Eigen::Ref<MatX> J);

/// The non-zero pattern of J = dF/dy (CSC, rows sorted) from the bodies'
/// coupling groups (MechanicalSystem::coupling_groups), and the column
/// groups of its difference quotients. Column j of body b can be non-zero in
///   * body b's own 7 position rows (p' = v_W, q' = q (x) (0, w)/2), and
///   * the 6 velocity rows of every body of b's group (the index-1
///     accelerations are coupled through the Schur solve of the group).
/// Columns of bodies of different groups share no row, so one evaluation
/// of F differences one column of every group at once (Curtis, Powell &
/// Reid, "On the estimation of sparse Jacobian matrices", 1974): colour =
/// 13 x (rank of b in its group) + (column within b), colours = 13 x the
/// largest group.
struct JacobianPattern {
  int n = 0;
  std::vector<sunindextype> column_start;  ///< n + 1 offsets into row
  std::vector<sunindextype> row;           ///< row of each non-zero
  std::vector<sunindextype> diagonal;      ///< per column, the index of (j, j)
  int colours = 0;
  std::vector<int> colour_start;   ///< colours + 1 offsets into colour_column
  std::vector<int> colour_column;  ///< columns, grouped by colour
  long nonzeros() const { return static_cast<long>(row.size()); }
  double density() const { return n > 0 ? double(nonzeros()) / (double(n) * n) : 1.0; }
};
JacobianPattern jacobian_pattern(const StateLayout& layout, const std::vector<int>& groups);

/// True if the stepper should use KLU for `choice` on this pattern
/// (stepper.h: kSparseMinUnknowns).
bool use_klu(LinearSolverChoice choice, const JacobianPattern& pattern);

/// A CSC SUNSparseMatrix sized for `pattern`, and a KLU solver on it whose
/// re-initialisation (at CVodeReInit / IDAReInit) keeps the symbolic
/// analysis and the factor storage: the pattern does not change, and
/// SUNLinSolInitialize_KLU would otherwise redo klu_analyze and klu_factor,
/// which allocate (SUNLinSol_KLU docs, "SUNLinSolSetup_KLU ... klu_refactor").
/// Returns false if SUNDIALS could not allocate.
bool make_klu(const JacobianPattern& pattern, N_Vector y, SUNContext context, SUNMatrix& matrix,
              SUNLinearSolver& solver);

/// The matrix and linear solver for `choice` on this pattern: KLU (make_klu)
/// or dense LU. Returns true if sparse; throws std::bad_alloc if SUNDIALS
/// could not allocate.
bool make_linear_solver(LinearSolverChoice choice, const JacobianPattern& pattern, N_Vector y,
                        SUNContext context, SUNMatrix& matrix, SUNLinearSolver& solver);

/// Writes the pattern into J (SUNMatZero_Sparse clears the index arrays
/// before each Jacobian evaluation, so every fill starts with this).
void load_pattern(const JacobianPattern& pattern, SUNMatrix J);

/// Copies the entries of `pattern` from the dense J into the sparse J_sparse
/// (pattern first, see load_pattern), adding c_j on the diagonal (IDA's
/// iteration matrix; 0 for CVODE). Returns 0, or 1 if a value is not finite.
int gather(const JacobianPattern& pattern, const MatX& J, double c_j, SUNMatrix J_sparse);

/// Work of difference_jacobian(), sized when the solver is created.
struct DifferenceWork {
  VecX y;           ///< the state, displaced one column (group) at a time
  VecX rates;       ///< F there (MechanicalSystem::derivative, audit included)
  VecX increments;  ///< per column, the displacement as represented
  long evaluations = 0;
};

/// J = scale dF/dy + shift I by forward differences of the first-order form
/// y' = F(t, y) at x0, where F(x0) = f0, displacing column j by increment(j)
/// (each solver's own rule: CVODE guide sec. 2.1, IDA guide sec. 2.1). Into a
/// dense J column by column, or into the CSC J of `pattern` with one
/// evaluation of F per column group (sparse). SUNDIALS 6.4's own dense
/// routines allocate a column wrapper per call (3 mallocs per Jacobian,
/// measured); this works in place. Returns 0, or 1 if a value is not finite.
template <class Increment>
int difference_jacobian(MechanicalSystem& system, double t, const Eigen::Map<const VecX>& x0,
                        Eigen::Ref<const VecX> f0, Increment&& increment, double scale,
                        double shift, const JacobianPattern* pattern, SUNMatrix J,
                        DifferenceWork& work) {
  const auto n = x0.size();
  work.y.head(n) = x0;
  auto displace = [&](Eigen::Index j) {
    work.y(j) = x0(j) + increment(j);
    work.increments(j) = work.y(j) - x0(j);  // the increment as represented
  };
  if (pattern == nullptr) {
    Eigen::Map<MatX> out(SUNDenseMatrix_Data(J), n, n);
    for (Eigen::Index j = 0; j < n; ++j) {
      displace(j);
      system.derivative(t, work.y, work.rates);
      ++work.evaluations;
      out.col(j) = (scale / work.increments(j)) * (work.rates.head(n) - f0);
      out(j, j) += shift;
      work.y(j) = x0(j);
    }
    return out.allFinite() ? 0 : 1;
  }
  load_pattern(*pattern, J);
  double* data = SUNSparseMatrix_Data(J);
  for (int k = 0; k < pattern->colours; ++k) {
    const int first = pattern->colour_start[static_cast<std::size_t>(k)];
    const int last = pattern->colour_start[static_cast<std::size_t>(k) + 1];
    for (int c = first; c < last; ++c)
      displace(pattern->colour_column[static_cast<std::size_t>(c)]);
    system.derivative(t, work.y, work.rates);
    ++work.evaluations;
    for (int c = first; c < last; ++c) {
      const auto j = static_cast<std::size_t>(pattern->colour_column[static_cast<std::size_t>(c)]);
      for (sunindextype e = pattern->column_start[j]; e < pattern->column_start[j + 1]; ++e) {
        const auto i = static_cast<Eigen::Index>(pattern->row[static_cast<std::size_t>(e)]);
        data[e] = scale * (work.rates(i) - f0(i)) / work.increments(static_cast<Eigen::Index>(j));
      }
      data[pattern->diagonal[j]] += shift;
      work.y(static_cast<Eigen::Index>(j)) = x0(static_cast<Eigen::Index>(j));
    }
  }
  const Eigen::Map<const VecX> values(data, pattern->nonzeros());
  return values.allFinite() ? 0 : 1;
}

/// Runs f(), turning any exception into SUNDIALS' "recoverable failure" (1):
/// an exception must not unwind through the C library. The exception is
/// kept in `pending` so that the stepper can rethrow it if SUNDIALS gives up.
template <class F>
int guarded(std::exception_ptr& pending, F&& f) noexcept {
  try {
    return f();
  } catch (...) {
    pending = std::current_exception();
    return 1;
  }
}

}  // namespace ictus::internal
