#include "ida_stepper.h"

#include <fmt/format.h>
#include <idas/idas.h>
#include <idas/idas_ls.h>
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

struct IdaStepper::Solver {
  IdaStepper& owner;
  MechanicalSystem& system;
  StepperOptions options;
  SundialsJacobian jacobian_source;
  StateLayout layout;  // as at the last creation
  int n = 0;           // IDA's size: positions and velocities

  SUNContext context = nullptr;
  void* ida = nullptr;
  N_Vector y = nullptr;            // wraps owner.y_.head(n)
  N_Vector yp = nullptr;           // wraps yp_storage
  N_Vector audit = nullptr;        // wraps owner.y_.tail(audit), the quadratures
  N_Vector dense = nullptr;        // wraps the caller's vector in interpolate()
  N_Vector dense_audit = nullptr;  // idem, audit part
  N_Vector weights = nullptr;      // IDA's error weights, for the difference quotients
  SUNMatrix matrix = nullptr;
  SUNLinearSolver linear_solver = nullptr;

  VecX yp_storage, y_work, rates_work, accelerations_work;
  MatX A_q, A_v;
  internal::JacobianPattern pattern;     // of dF/dy, from the bodies' coupling groups
  bool sparse = false;                   // KLU on `pattern` instead of the dense LU
  internal::DifferenceWork differences;  // of the difference-quotient Jacobian
  VecX f_base;                           // F at the point of the Jacobian, y' - r
  MatX dense_jacobian;                   // mechanical_system Jacobian before it is gathered
  StepperStatistics before_reset;        // counters of earlier IDA runs (ReInit zeroes them)
  long own_evaluations = 0;              // by the Jacobian functions here
  std::exception_ptr pending;
  internal::SundialsMessages messages;

  Solver(IdaStepper& o, MechanicalSystem& s, const StepperOptions& opt, SundialsJacobian j)
      : owner(o), system(s), options(opt), jacobian_source(j) {}
  ~Solver() { destroy(); }

  void destroy() {
    if (ida) IDAFree(&ida);
    if (linear_solver) SUNLinSolFree(linear_solver);
    if (matrix) SUNMatDestroy(matrix);
    for (N_Vector* v : {&y, &yp, &audit, &dense, &dense_audit, &weights}) {
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
          owner.t_, fmt::format("ida: {} failed (flag {}): {}", call, flag, messages.last()));
  }

  void load(N_Vector x) { y_work.head(n) = Eigen::Map<const VecX>(N_VGetArrayPointer(x), n); }

  // G(t, y, y') = y' - F(t, y) (IDAResFn)
  static int residual(sunrealtype t, N_Vector x, N_Vector xp, N_Vector r, void* data) {
    auto& s = *static_cast<Solver*>(data);
    return guarded(s.pending, [&] {
      s.load(x);
      s.system.derivative(t, s.y_work, s.rates_work);
      Eigen::Map<VecX> out(N_VGetArrayPointer(r), s.n);
      out = Eigen::Map<const VecX>(N_VGetArrayPointer(xp), s.n) - s.rates_work.head(s.n);
      return out.allFinite() ? 0 : 1;  // recoverable: IDA retries with a smaller step
    });
  }

  // the audit rates (IDAQuadRhsFn)
  static int quadrature_rhs(sunrealtype t, N_Vector x, N_Vector /*xp*/, N_Vector qdot, void* data) {
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

  // dG/dy + c_j dG/dy' = c_j I - dF/dy by forward differences of F
  // (sundials_support.h), with the increments of IDA's own dense routine
  // (IDA guide sec. 2.1): sigma_j = max(sqrt(U) max(|y_j|, |h y'_j|), 1 / W_j),
  // signed as h y'_j; F(y) = y' - r at the point
  static int difference_jacobian(sunrealtype t, sunrealtype c_j, N_Vector x, N_Vector xp,
                                 N_Vector r, SUNMatrix J, void* data, N_Vector, N_Vector,
                                 N_Vector) {
    auto& s = *static_cast<Solver*>(data);
    return guarded(s.pending, [&] {
      sunrealtype h = 0.0;
      IDAGetCurrentStep(s.ida, &h);
      s.check(IDAGetErrWeights(s.ida, s.weights), "IDAGetErrWeights");
      const double root_u = std::sqrt(std::numeric_limits<double>::epsilon());
      const Eigen::Map<const VecX> x0(N_VGetArrayPointer(x), s.n);
      const Eigen::Map<const VecX> xp0(N_VGetArrayPointer(xp), s.n);
      const Eigen::Map<const VecX> w(N_VGetArrayPointer(s.weights), s.n);
      s.f_base = xp0 - Eigen::Map<const VecX>(N_VGetArrayPointer(r), s.n);
      auto increment = [&](Eigen::Index j) {
        const double inc =
            std::max(root_u * std::max(std::abs(x0(j)), std::abs(h * xp0(j))), 1.0 / w(j));
        return h * xp0(j) < 0.0 ? -inc : inc;
      };
      const int flag =
          internal::difference_jacobian(s.system, t, x0, s.f_base, increment, -1.0, c_j,
                                        s.sparse ? &s.pattern : nullptr, J, s.differences);
      s.own_evaluations += std::exchange(s.differences.evaluations, 0);
      return flag;
    });
  }

  // dG/dy + c_j dG/dy' = c_j I - dF/dy (IDALsJacFn; IDA guide sec. 4.6.5)
  static int jacobian(sunrealtype t, sunrealtype c_j, N_Vector x, N_Vector /*xp*/, N_Vector /*r*/,
                      SUNMatrix J, void* data, N_Vector, N_Vector, N_Vector) {
    auto& s = *static_cast<Solver*>(data);
    return guarded(s.pending, [&] {
      s.load(x);
      s.system.accelerations(t, s.y_work, s.accelerations_work);
      s.system.jacobian(t, s.y_work, s.accelerations_work, s.A_q, s.A_v);
      s.own_evaluations += 1 + 2 * s.layout.velocity_size();
      if (s.sparse) {
        internal::first_order_jacobian(s.layout, s.y_work, s.A_q, s.A_v, s.dense_jacobian);
        s.dense_jacobian *= -1.0;
        return internal::gather(s.pattern, s.dense_jacobian, c_j, J);
      }
      Eigen::Map<MatX> out(SUNDenseMatrix_Data(J), s.n, s.n);
      internal::first_order_jacobian(s.layout, s.y_work, s.A_q, s.A_v, out);
      out *= -1.0;
      out.diagonal().array() += c_j;
      return out.allFinite() ? 0 : 1;
    });
  }

  void create(double t) {
    destroy();
    layout = system.layout();
    n = layout.position_size() + layout.velocity_size();
    VecX& y_state = owner.y_;
    yp_storage.resize(n);
    y_work = y_state;
    rates_work.resize(y_state.size());
    differences.y = y_state;
    differences.rates.resize(y_state.size());
    differences.increments.resize(n);
    f_base.resize(n);
    accelerations_work.resize(layout.velocity_size() + layout.audit);
    consistent_rates(t);
    check(SUNContext_Create(nullptr, &context), "SUNContext_Create");
    y = N_VMake_Serial(n, y_state.data(), context);
    yp = N_VMake_Serial(n, yp_storage.data(), context);
    dense = N_VMake_Serial(n, nullptr, context);
    ida = IDACreate(context);
    if (!y || !yp || !dense || !ida) throw std::bad_alloc();
    check(IDASetErrHandlerFn(ida, internal::SundialsMessages::handler, &messages),
          "IDASetErrHandlerFn");
    check(IDAInit(ida, residual, t, y, yp), "IDAInit");
    check(IDASetUserData(ida, this), "IDASetUserData");
    check(IDASStolerances(ida, options.rtol, options.atol), "IDASStolerances");
    pattern = internal::jacobian_pattern(layout, system.coupling_groups());
    sparse = internal::make_linear_solver(options.linear_solver, pattern, y, context, matrix,
                                          linear_solver);
    check(IDASetLinearSolver(ida, linear_solver, matrix), "IDASetLinearSolver");
    if (jacobian_source == SundialsJacobian::mechanical_system) {
      check(IDASetJacFn(ida, jacobian), "IDASetJacFn");
      A_q.resize(layout.velocity_size(), layout.velocity_size());
      A_v.resize(layout.velocity_size(), layout.velocity_size());
      if (sparse) dense_jacobian.resize(n, n);
    } else {
      weights = N_VNew_Serial(n, context);
      if (!weights) throw std::bad_alloc();
      check(IDASetJacFn(ida, difference_jacobian), "IDASetJacFn");
    }
    check(IDASetMaxNumSteps(ida, 1000000000L), "IDASetMaxNumSteps");
    if (options.max_step > 0.0) check(IDASetMaxStep(ida, options.max_step), "IDASetMaxStep");
    if (layout.audit > 0) {
      audit = N_VMake_Serial(layout.audit, y_state.data() + n, context);
      dense_audit = N_VMake_Serial(layout.audit, nullptr, context);
      if (!audit || !dense_audit) throw std::bad_alloc();
      check(IDAQuadInit(ida, quadrature_rhs, audit), "IDAQuadInit");
      check(IDASetQuadErrCon(ida, SUNFALSE), "IDASetQuadErrCon");
    }
  }

  /// y'(t) = F(t, y): consistent initial rates for a purely differential system.
  void consistent_rates(double t) {
    y_work = owner.y_;
    system.derivative(t, y_work, rates_work);
    yp_storage = rates_work.head(n);
    if (!yp_storage.allFinite()) throw SimulationError(t, "ida: the initial rates are not finite");
  }

  void update_statistics() {
    long nst = 0, nre = 0, nre_ls = 0, nrq = 0, nni = 0, nje = 0, netf = 0, ncfn = 0;
    IDAGetNumSteps(ida, &nst);
    IDAGetNumResEvals(ida, &nre);
    IDAGetNumLinResEvals(ida, &nre_ls);
    if (layout.audit > 0) IDAGetQuadNumRhsEvals(ida, &nrq);
    IDAGetNumNonlinSolvIters(ida, &nni);
    IDAGetNumJacEvals(ida, &nje);
    IDAGetNumErrTestFails(ida, &netf);
    IDAGetNumNonlinSolvConvFails(ida, &ncfn);
    StepperStatistics& s = owner.stats_;
    const StepperStatistics& b = before_reset;
    s.steps = b.steps + nst;
    // + 1 per reset: consistent_rates()
    s.evaluations = b.evaluations + nre + nre_ls + nrq + own_evaluations + 1;
    s.newton_iterations = b.newton_iterations + nni;
    s.jacobian_evaluations = b.jacobian_evaluations + nje;
    s.error_test_failures = b.error_test_failures + netf;
    s.rejected = b.rejected + netf + ncfn;
  }

  [[noreturn]] void fail(int flag) {
    sunrealtype t = owner.t_;
    IDAGetCurrentTime(ida, &t);
    const bool callback_failed = flag == IDA_RES_FAIL || flag == IDA_REP_RES_ERR ||
                                 flag == IDA_FIRST_RES_FAIL || flag == IDA_QRHS_FAIL ||
                                 flag == IDA_REP_QRHS_ERR || flag == IDA_FIRST_QRHS_ERR ||
                                 flag == IDA_LSETUP_FAIL || flag == IDA_CONV_FAIL;
    if (pending && callback_failed) {
      std::exception_ptr e = pending;
      pending = nullptr;
      std::rethrow_exception(e);
    }
    std::string what;
    switch (flag) {
      case IDA_TOO_MUCH_WORK:
        what = "ida: too many steps";
        break;
      case IDA_TOO_MUCH_ACC:
        what = "ida: the tolerances are too tight for double precision here";
        break;
      case IDA_ERR_FAIL:
        what =
            "ida: the error test failed repeatedly (or at the minimum step); "
            "the model may be discontinuous here, or its solution blows up";
        break;
      case IDA_CONV_FAIL:
        what =
            "ida: Newton's iteration failed to converge repeatedly; the model "
            "may be discontinuous here, or its Jacobian wrong";
        break;
      case IDA_LSETUP_FAIL:
      case IDA_LSOLVE_FAIL:
        what = "ida: the Newton matrix is singular";
        break;
      default: {
        char* name = IDAGetReturnFlagName(flag);
        what = fmt::format("ida: IDASolve returned {}", name ? name : "?");
        std::free(name);
      }
    }
    if (!messages.last().empty()) what += fmt::format(" [{}]", messages.last());
    throw SimulationError(t, what);
  }
};

IdaStepper::IdaStepper(MechanicalSystem& system, const StepperOptions& options,
                       SundialsJacobian jacobian) {
  internal::check_sundials_options("ida", options);
  solver_ = std::make_unique<Solver>(*this, system, options, jacobian);
}

IdaStepper::~IdaStepper() = default;

std::string_view IdaStepper::linear_solver() const {
  return solver_->sparse ? "klu" : "dense";
}

void IdaStepper::reset(double t, const VecX& y) {
  Solver& s = *solver_;
  const StateLayout& layout = s.system.layout();
  if (y.size() != layout.size() || layout.bodies <= 0)
    throw std::invalid_argument(
        fmt::format("ida: reset with a state of size {} for a layout of size {} ({} bodies)",
                    y.size(), layout.size(), layout.bodies));
  const bool fresh = s.ida == nullptr || layout.bodies != s.layout.bodies ||
                     layout.audit != s.layout.audit || y_.size() != y.size();
  s.before_reset = stats_;
  s.own_evaluations = 0;
  y_ = y;
  internal::normalize_quaternions(layout, y_.data());  // start on the manifold
  t_ = t_previous_ = t;
  s.pending = nullptr;
  s.messages.clear();
  if (fresh) {
    s.create(t);
  } else {
    s.consistent_rates(t);
    s.check(IDAReInit(s.ida, t, s.y, s.yp), "IDAReInit");
    if (layout.audit > 0) s.check(IDAQuadReInit(s.ida, s.audit), "IDAQuadReInit");
  }
  s.update_statistics();
}

void IdaStepper::step(double t_limit) {
  Solver& s = *solver_;
  if (!s.ida) throw std::logic_error("ida: step() before reset()");
  if (!(t_limit > t_))
    throw SimulationError(t_, fmt::format("ida: the step limit {:.17g} is not after t", t_limit));
  s.check(IDASetStopTime(s.ida, t_limit), "IDASetStopTime");
  s.check(IDASetMinStep(s.ida, s.options.min_step * std::max(1.0, std::abs(t_))), "IDASetMinStep");
  s.pending = nullptr;
  sunrealtype t_reached = t_;
  const int flag = IDASolve(s.ida, t_limit, &t_reached, s.y, s.yp, IDA_ONE_STEP);
  if (flag < 0) {
    s.update_statistics();  // the counts up to the failure, for the report
    s.fail(flag);
  }
  s.pending = nullptr;
  if (s.layout.audit > 0) {
    sunrealtype t_quad = 0.0;
    s.check(IDAGetQuad(s.ida, &t_quad, s.audit), "IDAGetQuad");
  }
  sunrealtype t_current = t_reached, h_last = 0.0;
  IDAGetCurrentTime(s.ida, &t_current);
  IDAGetLastStep(s.ida, &h_last);
  t_previous_ = t_current - h_last;
  t_ = t_reached;
  internal::normalize_quaternions(s.layout, y_.data());  // the copy handed out only
  s.update_statistics();
}

void IdaStepper::interpolate(double tt, Eigen::Ref<VecX> out) const {
  Solver& s = *solver_;
  if (out.size() != y_.size())
    throw std::invalid_argument("ida: interpolate() into a vector of the wrong size");
  if (t_ == t_previous_) {  // no step yet
    out = y_;
    return;
  }
  N_VSetArrayPointer(out.data(), s.dense);
  int flag = IDAGetDky(s.ida, tt, 0, s.dense);
  if (flag == IDA_SUCCESS && s.layout.audit > 0) {
    N_VSetArrayPointer(out.data() + s.n, s.dense_audit);
    flag = IDAGetQuadDky(s.ida, tt, 0, s.dense_audit);
  }
  if (flag != IDA_SUCCESS)
    throw SimulationError(tt, fmt::format("ida: no dense output at t = {:.17g}, outside the "
                                          "last step [{:.17g}, {:.17g}]",
                                          tt, t_previous_, t_));
  internal::normalize_quaternions(s.layout, out.data());
}

}  // namespace ictus
