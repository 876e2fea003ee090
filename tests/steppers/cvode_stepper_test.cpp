// The SUNDIALS steppers (CVODE BDF and IDA) against closed forms: a harmonic
// oscillator, an overdamped oscillator with eigenvalues -1 and -1e6, a
// spinning body (quaternions, conserved energy and angular momentum), a
// finite-time blow-up, and the first-order Jacobian against differences.
// Each test runs for both steppers (instantiations Cvode/ and Ida/).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "../../src/steppers/cvode_stepper.h"
#include "../../src/steppers/ida_stepper.h"
#include "../../src/steppers/sundials_steppers.h"
#include "../../src/steppers/sundials_support.h"
#include "ictus/error.h"
#include "ictus/mechanical_system.h"
#include "ictus/state_layout.h"
#include "ictus/stepper.h"

namespace ictus {
namespace {

using Accelerations = std::function<void(double t, const VecX& y, Eigen::Ref<VecX> rates)>;

/// A MechanicalSystem given by its accelerations; records the largest
/// deviation from unit length of any quaternion it is evaluated at.
class TestSystem final : public MechanicalSystem {
 public:
  TestSystem(int bodies, int audit, Accelerations a) : accelerations_(std::move(a)) {
    layout_.bodies = bodies;
    layout_.audit = audit;
  }
  const StateLayout& layout() const override { return layout_; }
  void accelerations(double t, const VecX& y, Eigen::Ref<VecX> rates) override {
    ++calls;
    for (int b = 0; b < layout_.bodies; ++b)
      worst_unit_error =
          std::max(worst_unit_error, std::abs(layout_.body_quaternion(y, b).norm() - 1.0));
    rates.setZero();
    accelerations_(t, y, rates);
  }
  /// A state at rest at the origin with identity orientations.
  VecX rest() const {
    VecX y = VecX::Zero(layout_.size());
    for (int b = 0; b < layout_.bodies; ++b) y(7 * b + 3) = 1.0;
    return y;
  }

  long calls = 0;
  double worst_unit_error = 0.0;

 private:
  StateLayout layout_;
  Accelerations accelerations_;
};

// x'' = -w^2 x on body 0's x; audit' = v_x^2
constexpr double kOmega = 2.0;
TestSystem oscillator() {
  return TestSystem(1, 1, [](double, const VecX& y, Eigen::Ref<VecX> r) {
    r(0) = -kOmega * kOmega * y(0);
    r(6) = y(7) * y(7);
  });
}
// x = cos(w t), v = -w sin(w t), int_0^t v^2 = w^2 (t/2 - sin(2 w t)/(4 w))
double oscillator_x(double t) {
  return std::cos(kOmega * t);
}
double oscillator_v(double t) {
  return -kOmega * std::sin(kOmega * t);
}
double oscillator_audit(double t) {
  return kOmega * kOmega * (t / 2 - std::sin(2 * kOmega * t) / (4 * kOmega));
}

// x'' + (1e6 + 1) x' + 1e6 x = 0: eigenvalues -1 and -1e6
constexpr double kFast = 1e6;
TestSystem overdamped() {
  return TestSystem(1, 0, [](double, const VecX& y, Eigen::Ref<VecX> r) {
    r(0) = -(kFast + 1.0) * y(7) - kFast * y(0);
  });
}
// x(0) = 1, v(0) = 0
double overdamped_x(double t) {
  return (kFast * std::exp(-t) - std::exp(-kFast * t)) / (kFast - 1.0);
}

// torque-free body, inertia diag(1, 2, 3): I w' = -w x I w (Euler's equations)
const Vec3 kInertia(1.0, 2.0, 3.0);
TestSystem spinning_body() {
  return TestSystem(1, 0, [](double, const VecX& y, Eigen::Ref<VecX> r) {
    const Vec3 w = y.segment<3>(10);
    r.segment<3>(3) = -(w.cross(kInertia.cwiseProduct(w))).cwiseQuotient(kInertia);
  });
}
Vec3 angular_momentum_W(const VecX& y) {
  const Quat q(y(3), y(4), y(5), y(6));
  return q.normalized().toRotationMatrix() * kInertia.cwiseProduct(Vec3(y.segment<3>(10)));
}

// a body pulled at an offset point r_B by a constant world force f_W: the
// torque r_B x R^T f_W depends on the orientation (a heavy top without pivot)
TestSystem pulled_body() {
  return TestSystem(1, 0, [](double, const VecX& y, Eigen::Ref<VecX> r) {
    const Vec3 f_W(0.3, 0.0, -9.81), r_B(0.1, 0.0, 0.5);
    const Quat q = Quat(y(3), y(4), y(5), y(6)).normalized();
    const Vec3 w = y.segment<3>(10);
    r.segment<3>(0) = f_W - 0.2 * Vec3(y.segment<3>(7));
    const Vec3 torque = r_B.cross(q.toRotationMatrix().transpose() * f_W) - 0.1 * w;
    r.segment<3>(3) = (torque - w.cross(kInertia.cwiseProduct(w))).cwiseQuotient(kInertia);
  });
}

// x'' = 6 x^2 with x(0) = 1, x'(0) = 2: x = 1/(1 - t)^2, infinite at t = 1
TestSystem blow_up() {
  return TestSystem(1, 0,
                    [](double, const VecX& y, Eigen::Ref<VecX> r) { r(0) = 6.0 * y(0) * y(0); });
}

StepperOptions tight() {
  StepperOptions o;
  o.rtol = 1e-8;
  o.atol = 1e-10;
  return o;
}

class SundialsStepperTest : public testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<Stepper> make(MechanicalSystem& system, const StepperOptions& options = tight(),
                                SundialsJacobian jacobian = SundialsJacobian::difference_quotient) {
    if (GetParam() == "cvode") return std::make_unique<CvodeStepper>(system, options, jacobian);
    return std::make_unique<IdaStepper>(system, options, jacobian);
  }
  static void run_to(Stepper& s, double t_end) {
    while (s.t() < t_end) s.step(t_end);
  }
};

TEST_P(SundialsStepperTest, FactoryKnowsItsNames) {
  TestSystem system = oscillator();
  auto s = make_sundials_stepper(GetParam(), system, tight());
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->name(), GetParam());
  EXPECT_EQ(make_sundials_stepper("dopri5", system, tight()), nullptr);
  StepperOptions bad = tight();
  bad.rtol = 0.0;
  EXPECT_THROW(make_sundials_stepper(GetParam(), system, bad), std::invalid_argument);
}

TEST_P(SundialsStepperTest, OscillatorMatchesClosedForm) {
  TestSystem system = oscillator();
  auto s = make(system);
  s->reset(0.0, system.rest() + VecX::Unit(system.layout().size(), 0));
  const double t_end = 10.0;
  run_to(*s, t_end);
  EXPECT_EQ(s->t(), t_end);  // the stop time is hit exactly
  // global error of a BDF run at rtol 1e-8 over 3 periods: a few 1e-7
  EXPECT_NEAR(s->y()(0), oscillator_x(t_end), 2e-6);
  EXPECT_NEAR(s->y()(7), oscillator_v(t_end), 4e-6);
  // the audit quadrature, outside the error test, is about as accurate
  EXPECT_NEAR(s->y()(13), oscillator_audit(t_end), 1e-5 * oscillator_audit(t_end));
  // the other coordinates never move
  EXPECT_EQ(s->y()(1), 0.0);
  EXPECT_EQ(s->y()(3), 1.0);
}

TEST_P(SundialsStepperTest, DenseOutputInsideEachStep) {
  TestSystem system = oscillator();
  auto s = make(system);
  s->reset(0.0, system.rest() + VecX::Unit(system.layout().size(), 0));
  VecX out(system.layout().size());
  double worst = 0.0, worst_at_steps = 0.0, worst_audit = 0.0, worst_audit_at_steps = 0.0;
  int steps = 0;
  while (s->t() < 5.0) {
    s->step(5.0);
    ++steps;
    ASSERT_LT(s->t_previous(), s->t());
    for (double f : {0.25, 0.5, 0.75}) {
      const double tt = s->t_previous() + f * s->last_step();
      s->interpolate(tt, out);
      worst = std::max(worst, std::abs(out(0) - oscillator_x(tt)));
      worst_audit = std::max(worst_audit, std::abs(out(13) - oscillator_audit(tt)));
    }
    s->interpolate(s->t(), out);  // the end of the step is the step's state
    EXPECT_NEAR(out(0), s->y()(0), 1e-14);
    worst_at_steps = std::max(worst_at_steps, std::abs(s->y()(0) - oscillator_x(s->t())));
    worst_audit_at_steps =
        std::max(worst_audit_at_steps, std::abs(s->y()(13) - oscillator_audit(s->t())));
  }
  RecordProperty("worst_dense_error", fmt::format("{:.3g}", worst));
  RecordProperty("worst_error_at_steps", fmt::format("{:.3g}", worst_at_steps));
  EXPECT_GT(steps, 10);
  RecordProperty("worst_audit_dense_error", fmt::format("{:.3g}", worst_audit));
  // inside a step the polynomial is as good as at its ends: the global error
  // dominates (measured, CVODE: x 3.8e-7 both; audit 4.0e-6 both, of 10.1)
  EXPECT_LT(worst, 1.5 * worst_at_steps + 1e-9);
  EXPECT_LT(worst_audit, 1.5 * worst_audit_at_steps + 1e-9);
  EXPECT_LT(worst_audit, 1e-6 * oscillator_audit(5.0));
  EXPECT_THROW(s->interpolate(s->t_previous() - 0.1, out), SimulationError);
}

TEST_P(SundialsStepperTest, StatisticsAreCounted) {
  TestSystem system = oscillator();
  auto s = make(system);
  s->reset(0.0, system.rest() + VecX::Unit(system.layout().size(), 0));
  run_to(*s, 2.0);
  const StepperStatistics& st = s->statistics();
  EXPECT_GT(st.steps, 20);
  EXPECT_GE(st.newton_iterations, st.steps);
  EXPECT_GE(st.jacobian_evaluations, 1);
  EXPECT_LE(st.error_test_failures, st.rejected);
  // every call of the accelerations is counted
  EXPECT_EQ(st.evaluations, system.calls);
  // and they accumulate over resets
  const long steps_before = st.steps;
  s->reset(s->t(), s->y());
  run_to(*s, 3.0);
  EXPECT_GT(s->statistics().steps, steps_before);
  EXPECT_EQ(s->statistics().evaluations, system.calls);
}

TEST_P(SundialsStepperTest, StiffSystemTakesFewSteps) {
  TestSystem system = overdamped();
  auto s = make(system);
  s->reset(0.0, system.rest() + VecX::Unit(system.layout().size(), 0));
  const double t_end = 10.0;
  run_to(*s, t_end);
  EXPECT_NEAR(s->y()(0), overdamped_x(t_end), 1e-6 * overdamped_x(t_end) + 1e-9);
  // DOPRI5's stability bound h |lambda| < 2.8 (Hairer & Wanner II, sec. IV.2)
  // needs 10 / (2.8 / 1e6) = 3.6e6 steps; BDF needs a few hundred
  const double explicit_steps = t_end / (2.8 / kFast);
  RecordProperty("steps", static_cast<int>(s->statistics().steps));
  EXPECT_LT(s->statistics().steps, explicit_steps / 1000.0);
}

TEST_P(SundialsStepperTest, SpinningBodyKeepsUnitQuaternionAndInvariants) {
  TestSystem system = spinning_body();
  auto s = make(system);
  VecX y0 = system.rest();
  y0.segment<3>(10) = Vec3(0.05, 2.0, 0.05);  // near the unstable middle axis: it tumbles
  s->reset(0.0, y0);
  const Vec3 L0 = angular_momentum_W(y0);
  const double E0 = 0.5 * y0.segment<3>(10).dot(kInertia.cwiseProduct(Vec3(y0.segment<3>(10))));
  run_to(*s, 20.0);
  const VecX& y = s->y();
  EXPECT_NEAR(y.segment<4>(3).norm(), 1.0, 1e-14);  // handed out normalised
  const double E = 0.5 * y.segment<3>(10).dot(kInertia.cwiseProduct(Vec3(y.segment<3>(10))));
  EXPECT_NEAR(E, E0, 1e-5 * E0);
  EXPECT_LT((angular_momentum_W(y) - L0).norm(), 1e-5 * L0.norm());
  // the states the solver itself evaluates stay near the unit sphere: CVODE
  // projects them; IDA (no projection) drifts by about the tolerance
  RecordProperty("worst_unit_error", fmt::format("{:.3g}", system.worst_unit_error));
  EXPECT_LT(system.worst_unit_error, GetParam() == "cvode" ? 1e-6 : 1e-4);
}

TEST_P(SundialsStepperTest, BlowUpIsASimulationError) {
  TestSystem system = blow_up();
  auto s = make(system);
  VecX y0 = system.rest();
  y0(0) = 1.0;
  y0(7) = 2.0;
  s->reset(0.0, y0);
  try {
    run_to(*s, 2.0);
    FAIL() << "no error; reached t = " << s->t() << " with x = " << s->y()(0);
  } catch (const SimulationError& e) {
    EXPECT_GT(e.time(), 0.99);
    EXPECT_LE(e.time(), 1.0 + 1e-6);
    EXPECT_NE(std::string(e.what()).find(GetParam() + ":"), std::string::npos) << e.what();
  }
}

TEST_P(SundialsStepperTest, ResetGivesTheSameRunBitwise) {
  TestSystem system = pulled_body();
  auto s = make(system);
  VecX y0 = system.rest();
  y0.segment<3>(10) = Vec3(0.3, -0.2, 4.0);
  auto run = [&] {
    s->reset(0.0, y0);
    run_to(*s, 3.0);
    return s->y();
  };
  const VecX first = run();
  const VecX second = run();  // CVodeReInit / IDAReInit, no new memory
  for (int i = 0; i < first.size(); ++i) EXPECT_EQ(first(i), second(i)) << "entry " << i;
  // and a fresh stepper agrees too
  auto fresh = make(system);
  fresh->reset(0.0, y0);
  run_to(*fresh, 3.0);
  for (int i = 0; i < first.size(); ++i) EXPECT_EQ(first(i), fresh->y()(i)) << "entry " << i;
}

TEST_P(SundialsStepperTest, SystemJacobianAgreesWithDifferenceQuotients) {
  TestSystem system = pulled_body();
  VecX y0 = system.rest();
  y0.segment<3>(10) = Vec3(0.3, -0.2, 4.0);
  auto dq = make(system, tight(), SundialsJacobian::difference_quotient);
  auto mech = make(system, tight(), SundialsJacobian::mechanical_system);
  dq->reset(0.0, y0);
  mech->reset(0.0, y0);
  run_to(*dq, 5.0);
  run_to(*mech, 5.0);
  EXPECT_LT((dq->y() - mech->y()).lpNorm<Eigen::Infinity>(), 1e-6);
  EXPECT_GE(mech->statistics().jacobian_evaluations, 1);
}

INSTANTIATE_TEST_SUITE_P(Cvode, SundialsStepperTest, testing::Values("cvode"));
INSTANTIATE_TEST_SUITE_P(Ida, SundialsStepperTest, testing::Values("ida"));

// The mapping of (A_q, A_v) to dF/dy against central differences of
// MechanicalSystem::derivative over the raw entries of y (quaternion entries
// included: the system normalises q, so a radial change moves nothing).
TEST(CvodeFirstOrderJacobian, MatchesDifferencesOfTheDerivative) {
  TestSystem system = pulled_body();
  const StateLayout& l = system.layout();
  VecX y = system.rest();
  const Quat q = quat_from_axis_angle(Vec3(1, 2, 3).normalized(), 0.7);
  y.segment<4>(3) << q.w(), q.x(), q.y(), q.z();
  y.segment<3>(7) = Vec3(0.1, -0.4, 0.2);
  y.segment<3>(10) = Vec3(0.3, -0.2, 4.0);
  VecX rates(l.velocity_size() + l.audit);
  system.accelerations(0.0, y, rates);
  MatX A_q, A_v;
  system.jacobian(0.0, y, rates, A_q, A_v);
  const int n = l.position_size() + l.velocity_size();
  MatX J(n, n);
  internal::first_order_jacobian(l, y, A_q, A_v, J);

  MatX J_fd(n, n);
  VecX yp = y, ym = y, fp(l.size()), fm(l.size());
  const double h = 1e-6;
  for (int j = 0; j < n; ++j) {
    yp = y;
    ym = y;
    yp(j) += h;
    ym(j) -= h;
    system.derivative(0.0, yp, fp);
    system.derivative(0.0, ym, fm);
    J_fd.col(j) = (fp - fm).head(n) / (2 * h);
  }
  // A_q and A_v are forward differences (error ~ sqrt(eps) * scale)
  EXPECT_LT((J - J_fd).lpNorm<Eigen::Infinity>(), 1e-5 * J_fd.lpNorm<Eigen::Infinity>())
      << "J =\n"
      << J << "\nJ_fd =\n"
      << J_fd;
}

}  // namespace
}  // namespace ictus
