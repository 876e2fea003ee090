#include "cvode_stepper.h"

#include <cvodes/cvodes.h>
#include <cvodes/cvodes_ls.h>
#include <cvodes/cvodes_proj.h>
#include <fmt/format.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <utility>

#include "ictus/error.h"
#include "sundials_support.h"

namespace ictus {

using internal::guarded;

struct CvodeStepper::Solver {
  CvodeStepper& owner;
  MechanicalSystem& system;
  StepperOptions options;
  SundialsJacobian jacobian_source;
  StateLayout layout;  // as at the last creation
  int n = 0;           // CVODE's size: positions and velocities

  SUNContext context = nullptr;
  void* cvode = nullptr;
  N_Vector y = nullptr;            // wraps owner.y_.head(n)
  N_Vector audit = nullptr;        // wraps owner.y_.tail(audit), the quadratures
  N_Vector dense = nullptr;        // wraps the caller's vector in interpolate()
  N_Vector dense_audit = nullptr;  // idem, audit part
  N_Vector weights = nullptr;      // CVODE's error weights, for the difference quotients
  SUNMatrix matrix = nullptr;
  SUNLinearSolver linear_solver = nullptr;

  VecX y_work, rates_work, accelerations_work;  // full-size copies for MechanicalSystem
  MatX A_q, A_v;
  internal::JacobianPattern pattern;     // of dF/dy, from the bodies' coupling groups
  bool sparse = false;                   // KLU on `pattern` instead of the dense LU
  internal::DifferenceWork differences;  // of the difference-quotient Jacobian
  MatX dense_jacobian;                   // mechanical_system Jacobian before it is gathered
  StepperStatistics before_reset;        // counters of earlier CVODE runs (ReInit zeroes them)
  long own_evaluations = 0;              // by the Jacobian functions here
  std::exception_ptr pending;            // thrown inside a callback, rethrown if CVODE gives up
  internal::SundialsMessages messages;

  Solver(CvodeStepper& o, MechanicalSystem& s, const StepperOptions& opt, SundialsJacobian j)
      : owner(o), system(s), options(opt), jacobian_source(j) {}
  ~Solver() { destroy(); }

  void destroy() {
    if (cvode) CVodeFree(&cvode);
    if (linear_solver) SUNLinSolFree(linear_solver);
    if (matrix) SUNMatDestroy(matrix);
    for (N_Vector* v : {&y, &audit, &dense, &dense_audit, &weights}) {
      if (*v) N_VDestroy(*v);  // N_VMake_Serial vectors do not own their data
      *v = nullptr;
    }
    if (context) SUNContext_Free(&context);
    linear_solver = nullptr;
    matrix = nullptr;
  }

  void check(int flag, const char* call) const {
    if (flag < 0)
      throw SimulationError(
          owner.t_, fmt::format("cvode: {} failed (flag {}): {}", call, flag, messages.last()));
  }

  /// Copies CVODE's vector x into the full state for the MechanicalSystem.
  void load(N_Vector x) { y_work.head(n) = Eigen::Map<const VecX>(N_VGetArrayPointer(x), n); }

  // y' = F(t, y) over positions and velocities (CVRhsFn)
  static int rhs(sunrealtype t, N_Vector x, N_Vector xdot, void* data) {
    auto& s = *static_cast<Solver*>(data);
    return guarded(s.pending, [&] {
      s.load(x);
      s.system.derivative(t, s.y_work, s.rates_work);
      Eigen::Map<VecX> out(N_VGetArrayPointer(xdot), s.n);
      out = s.rates_work.head(s.n);
      // a non-finite rate is a recoverable failure: CVODE retries with a smaller step
      return out.allFinite() ? 0 : 1;
    });
  }

  // the audit rates (CVQuadRhsFn); evaluated once per step at the corrected state
  static int quadrature_rhs(sunrealtype t, N_Vector x, N_Vector qdot, void* data) {
    auto& s = *static_cast<Solver*>(data);
    return guarded(s.pending, [&] {
      s.load(x);
      s.system.accelerations(t, s.y_work, s.accelerations_work);
      const int na = s.layout.audit;
      Eigen::Map<VecX> out(N_VGetArrayPointer(qdot), na);
      out = s.accelerations_work.tail(na);
      return out.allFinite() ? 0 : 1;
    });
  }

  // unit quaternions (CVProjFn): corr = P(y) - y, and the error estimate
  // projected onto the tangent space (CVODE guide sec. 2.7, eq. (2.14))
  static int project(sunrealtype /*t*/, N_Vector x, N_Vector corr, sunrealtype /*eps*/,
                     N_Vector err, void* data) {
    auto& s = *static_cast<Solver*>(data);
    const double* xv = N_VGetArrayPointer(x);
    double* c = N_VGetArrayPointer(corr);
    double* e = err ? N_VGetArrayPointer(err) : nullptr;
    std::fill(c, c + s.n, 0.0);
    for (int b = 0; b < s.layout.bodies; ++b) {
      const int r = 7 * b + 3;
      const Eigen::Map<const Eigen::Vector4d> q(xv + r);
      const double norm = q.norm();
      if (!(norm > 0.0) || !std::isfinite(norm)) return 1;  // recoverable: smaller step
      const Eigen::Vector4d unit = q / norm;
      Eigen::Map<Eigen::Vector4d>(c + r) = unit - q;
      if (e) {
        Eigen::Map<Eigen::Vector4d> eq(e + r);
        eq -= unit.dot(eq) * unit;
      }
    }
    return 0;
  }

  // J = dF/dy by forward differences (sundials_support.h), with the
  // increments of CVODE's own dense routine (CVODE guide sec. 2.1):
  //   sigma_j = max(sqrt(U) |y_j|, sigma_0 / W_j),  sigma_0 = 1000 |h| U N |f|_WRMS
  static int difference_jacobian(sunrealtype t, N_Vector x, N_Vector fx, SUNMatrix J, void* data,
                                 N_Vector, N_Vector, N_Vector) {
    auto& s = *static_cast<Solver*>(data);
    return guarded(s.pending, [&] {
      sunrealtype h = 0.0;
      CVodeGetCurrentStep(s.cvode, &h);
      s.check(CVodeGetErrWeights(s.cvode, s.weights), "CVodeGetErrWeights");
      const double unit_roundoff = std::numeric_limits<double>::epsilon();
      const double root_u = std::sqrt(unit_roundoff);
      const double f_norm = N_VWrmsNorm(fx, s.weights);
      const double sigma_0 =
          f_norm != 0.0 ? 1000.0 * std::abs(h) * unit_roundoff * s.n * f_norm : 1.0;
      const Eigen::Map<const VecX> x0(N_VGetArrayPointer(x), s.n);
      const Eigen::Map<const VecX> f0(N_VGetArrayPointer(fx), s.n);
      const Eigen::Map<const VecX> w(N_VGetArrayPointer(s.weights), s.n);
      const int flag = internal::difference_jacobian(
          s.system, t, x0, f0,
          [&](Eigen::Index j) { return std::max(root_u * std::abs(x0(j)), sigma_0 / w(j)); }, 1.0,
          0.0, s.sparse ? &s.pattern : nullptr, J, s.differences);
      s.own_evaluations += std::exchange(s.differences.evaluations, 0);
      return flag;
    });
  }

  // J = dF/dy from MechanicalSystem::jacobian (CVLsJacFn)
  static int jacobian(sunrealtype t, N_Vector x, N_Vector /*fx*/, SUNMatrix J, void* data, N_Vector,
                      N_Vector, N_Vector) {
    auto& s = *static_cast<Solver*>(data);
    return guarded(s.pending, [&] {
      s.load(x);
      s.system.accelerations(t, s.y_work, s.accelerations_work);
      s.system.jacobian(t, s.y_work, s.accelerations_work, s.A_q, s.A_v);
      // counted as the default finite difference: 1 + 2 * velocity_size() calls
      s.own_evaluations += 1 + 2 * s.layout.velocity_size();
      if (s.sparse) {
        internal::first_order_jacobian(s.layout, s.y_work, s.A_q, s.A_v, s.dense_jacobian);
        return internal::gather(s.pattern, s.dense_jacobian, 0.0, J);
      }
      Eigen::Map<MatX> out(SUNDenseMatrix_Data(J), s.n, s.n);
      internal::first_order_jacobian(s.layout, s.y_work, s.A_q, s.A_v, out);
      return out.allFinite() ? 0 : 1;
    });
  }

  void create(double t) {
    destroy();
    layout = system.layout();
    n = layout.position_size() + layout.velocity_size();
    VecX& y_state = owner.y_;
    check(SUNContext_Create(nullptr, &context), "SUNContext_Create");
    y = N_VMake_Serial(n, y_state.data(), context);
    dense = N_VMake_Serial(n, nullptr, context);
    cvode = CVodeCreate(CV_BDF, context);
    if (!y || !dense || !cvode) throw std::bad_alloc();
    // silence: messages go to `messages` and into the exceptions
    check(CVodeSetErrHandlerFn(cvode, internal::SundialsMessages::handler, &messages),
          "CVodeSetErrHandlerFn");
    check(CVodeInit(cvode, rhs, t, y), "CVodeInit");
    check(CVodeSetUserData(cvode, this), "CVodeSetUserData");
    check(CVodeSStolerances(cvode, options.rtol, options.atol), "CVodeSStolerances");
    pattern = internal::jacobian_pattern(layout, system.coupling_groups());
    sparse = internal::make_linear_solver(options.linear_solver, pattern, y, context, matrix,
                                          linear_solver);
    check(CVodeSetLinearSolver(cvode, linear_solver, matrix), "CVodeSetLinearSolver");
    if (jacobian_source == SundialsJacobian::mechanical_system) {
      check(CVodeSetJacFn(cvode, jacobian), "CVodeSetJacFn");
      A_q.resize(layout.velocity_size(), layout.velocity_size());
      A_v.resize(layout.velocity_size(), layout.velocity_size());
      if (sparse) dense_jacobian.resize(n, n);
    } else {
      weights = N_VNew_Serial(n, context);
      if (!weights) throw std::bad_alloc();
      check(CVodeSetJacFn(cvode, difference_jacobian), "CVodeSetJacFn");
    }
    check(CVodeSetProjFn(cvode, project), "CVodeSetProjFn");
    // the Simulation calls step() without end; ONE_STEP counts per call anyway
    check(CVodeSetMaxNumSteps(cvode, 1000000000L), "CVodeSetMaxNumSteps");
    if (options.max_step > 0.0) check(CVodeSetMaxStep(cvode, options.max_step), "CVodeSetMaxStep");
    // BDF orders 3-5 are unstable near the imaginary axis, where lightly damped
    // mechanisms put their eigenvalues (CVODE guide sec. 2.3, "BDF stability limit detection")
    check(CVodeSetStabLimDet(cvode, SUNTRUE), "CVodeSetStabLimDet");
    if (layout.audit > 0) {
      audit = N_VMake_Serial(layout.audit, y_state.data() + n, context);
      dense_audit = N_VMake_Serial(layout.audit, nullptr, context);
      if (!audit || !dense_audit) throw std::bad_alloc();
      check(CVodeQuadInit(cvode, quadrature_rhs, audit), "CVodeQuadInit");
      check(CVodeSetQuadErrCon(cvode, SUNFALSE), "CVodeSetQuadErrCon");
    }
    y_work = y_state;
    rates_work.resize(y_state.size());
    differences.y = y_state;
    differences.rates.resize(y_state.size());
    differences.increments.resize(n);
    accelerations_work.resize(layout.velocity_size() + layout.audit);
  }

  void update_statistics() {
    long nst = 0, nfe = 0, nfe_ls = 0, nfq = 0, nni = 0, nje = 0, netf = 0, ncfn = 0;
    CVodeGetNumSteps(cvode, &nst);
    CVodeGetNumRhsEvals(cvode, &nfe);
    CVodeGetNumLinRhsEvals(cvode, &nfe_ls);
    if (layout.audit > 0) CVodeGetQuadNumRhsEvals(cvode, &nfq);
    CVodeGetNumNonlinSolvIters(cvode, &nni);
    CVodeGetNumJacEvals(cvode, &nje);
    CVodeGetNumErrTestFails(cvode, &netf);
    CVodeGetNumNonlinSolvConvFails(cvode, &ncfn);
    StepperStatistics& s = owner.stats_;
    const StepperStatistics& b = before_reset;
    s.steps = b.steps + nst;
    s.evaluations = b.evaluations + nfe + nfe_ls + nfq + own_evaluations;
    s.newton_iterations = b.newton_iterations + nni;
    s.jacobian_evaluations = b.jacobian_evaluations + nje;
    s.error_test_failures = b.error_test_failures + netf;
    s.rejected = b.rejected + netf + ncfn;
  }

  [[noreturn]] void fail(int flag) {
    sunrealtype t = owner.t_;
    CVodeGetCurrentTime(cvode, &t);
    const bool callback_failed = flag == CV_RHSFUNC_FAIL || flag == CV_REPTD_RHSFUNC_ERR ||
                                 flag == CV_UNREC_RHSFUNC_ERR || flag == CV_FIRST_RHSFUNC_ERR ||
                                 flag == CV_QRHSFUNC_FAIL || flag == CV_REPTD_QRHSFUNC_ERR ||
                                 flag == CV_UNREC_QRHSFUNC_ERR || flag == CV_FIRST_QRHSFUNC_ERR ||
                                 flag == CV_LSETUP_FAIL || flag == CV_CONV_FAILURE;
    if (pending && callback_failed) {
      // the model's own message (it already carries its time)
      std::exception_ptr e = pending;
      pending = nullptr;
      std::rethrow_exception(e);
    }
    std::string what;
    switch (flag) {
      case CV_TOO_MUCH_WORK:
        what = "cvode: too many steps";
        break;
      case CV_TOO_MUCH_ACC:
        what = "cvode: the tolerances are too tight for double precision here";
        break;
      case CV_ERR_FAILURE:
        what =
            "cvode: the error test failed repeatedly (or at the minimum step); "
            "the model may be discontinuous here, or its solution blows up";
        break;
      case CV_CONV_FAILURE:
        what =
            "cvode: Newton's iteration failed to converge repeatedly; the model "
            "may be discontinuous here, or its Jacobian wrong";
        break;
      case CV_LSETUP_FAIL:
      case CV_LSOLVE_FAIL:
        what = "cvode: the Newton matrix is singular";
        break;
      case CV_PROJ_MEM_NULL:
      case CV_PROJFUNC_FAIL:
      case CV_REPTD_PROJFUNC_ERR:
        what =
            "cvode: the quaternions cannot be projected to unit length "
            "(a zero or non-finite quaternion)";
        break;
      default: {
        char* name = CVodeGetReturnFlagName(flag);
        what = fmt::format("cvode: CVode returned {}", name ? name : "?");
        std::free(name);
      }
    }
    if (!messages.last().empty()) what += fmt::format(" [{}]", messages.last());
    throw SimulationError(t, what);
  }
};

CvodeStepper::CvodeStepper(MechanicalSystem& system, const StepperOptions& options,
                           SundialsJacobian jacobian) {
  internal::check_sundials_options("cvode", options);
  solver_ = std::make_unique<Solver>(*this, system, options, jacobian);
}

CvodeStepper::~CvodeStepper() = default;

std::string_view CvodeStepper::linear_solver() const {
  return solver_->sparse ? "klu" : "dense";
}

void CvodeStepper::reset(double t, const VecX& y) {
  Solver& s = *solver_;
  const StateLayout& layout = s.system.layout();
  if (y.size() != layout.size() || layout.bodies <= 0)
    throw std::invalid_argument(
        fmt::format("cvode: reset with a state of size {} for a layout of size {} ({} bodies)",
                    y.size(), layout.size(), layout.bodies));
  const bool fresh = s.cvode == nullptr || layout.bodies != s.layout.bodies ||
                     layout.audit != s.layout.audit || y_.size() != y.size();
  s.before_reset = stats_;
  s.own_evaluations = 0;
  y_ = y;  // same size: no allocation, y_'s storage stays where CVODE's wrappers point
  internal::normalize_quaternions(layout, y_.data());  // start on the manifold
  t_ = t_previous_ = t;
  s.pending = nullptr;
  s.messages.clear();
  if (fresh) {
    s.create(t);
  } else {
    s.check(CVodeReInit(s.cvode, t, s.y), "CVodeReInit");
    if (layout.audit > 0) s.check(CVodeQuadReInit(s.cvode, s.audit), "CVodeQuadReInit");
    s.y_work = y_;
  }
}

void CvodeStepper::step(double t_limit) {
  Solver& s = *solver_;
  if (!s.cvode) throw std::logic_error("cvode: step() before reset()");
  if (!(t_limit > t_))
    throw SimulationError(t_, fmt::format("cvode: the step limit {:.17g} is not after t", t_limit));
  s.check(CVodeSetStopTime(s.cvode, t_limit), "CVodeSetStopTime");
  // StepperOptions::min_step is relative to max(1, |t|); CVODE's hmin is absolute
  s.check(CVodeSetMinStep(s.cvode, s.options.min_step * std::max(1.0, std::abs(t_))),
          "CVodeSetMinStep");
  s.pending = nullptr;
  sunrealtype t_reached = t_;
  const int flag = CVode(s.cvode, t_limit, s.y, &t_reached, CV_ONE_STEP);
  if (flag < 0) {
    s.update_statistics();  // the counts up to the failure, for the report
    s.fail(flag);
  }
  s.pending = nullptr;  // a recoverable failure that CVODE got over
  if (s.layout.audit > 0) {
    sunrealtype t_quad = 0.0;
    s.check(CVodeGetQuad(s.cvode, &t_quad, s.audit), "CVodeGetQuad");
  }
  sunrealtype t_current = t_reached, h_last = 0.0;
  CVodeGetCurrentTime(s.cvode, &t_current);
  CVodeGetLastStep(s.cvode, &h_last);
  t_previous_ = t_current - h_last;
  t_ = t_reached;
  internal::normalize_quaternions(s.layout, y_.data());  // the copy handed out only
  s.update_statistics();
}

void CvodeStepper::interpolate(double tt, Eigen::Ref<VecX> out) const {
  Solver& s = *solver_;
  if (out.size() != y_.size())
    throw std::invalid_argument("cvode: interpolate() into a vector of the wrong size");
  if (t_ == t_previous_) {  // no step yet: CVODE's polynomial is not formed
    out = y_;
    return;
  }
  N_VSetArrayPointer(out.data(), s.dense);
  int flag = CVodeGetDky(s.cvode, tt, 0, s.dense);
  if (flag == CV_SUCCESS && s.layout.audit > 0) {
    N_VSetArrayPointer(out.data() + s.n, s.dense_audit);
    flag = CVodeGetQuadDky(s.cvode, tt, 0, s.dense_audit);
  }
  if (flag != CV_SUCCESS)
    throw SimulationError(tt, fmt::format("cvode: no dense output at t = {:.17g}, outside the "
                                          "last step [{:.17g}, {:.17g}]",
                                          tt, t_previous_, t_));
  internal::normalize_quaternions(s.layout, out.data());
}

}  // namespace ictus
