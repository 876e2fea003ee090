// Ball friction (a spherical joint with a friction radius) in the coupled
// stick/slip decision (docs/theory/friction.md, "Several at zero rate" and
// "A ball"). Two nested balls at one centre: a shell (m1, isotropic inertia
// I1) turns on the ground on the outer ball (mu1, r), a core (m2, inertia
// I2) turns in the shell on the inner ball (mu2, r). Both centres of mass
// are at the common centre, so the balls carry the weights alone,
// N1 = (m1 + m2) g and N2 = m2 g, and the friction moments do not change
// them: the rotational counterpart of the two stacked blocks of
// coupled_friction_test.cpp. With L1 = mu1 r N1 and L2 = mu2 r N2, both
// slipping along a unit direction n (the shell forward, the core backward
// relative to it, world angular velocities along n),
//   I1 w1' = -L1 - L2,   I2 (w1' + w2') = L2 + tau,
// tau a torque on the core along n, and the initial rates make both slips
// stop at t = T = 0.1 s.
//
// Why the decision must be joint: the inner ball's kinetic moment of the slip
// that just ended turns the shell back with L2 = 1.962 N m, more than the
// outer ball holds, L1 = 1.4715 N m. Decided alone, the outer element slips
// back (with a dry-friction hinge in its place the pair then moves off from
// rest).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kM1 = 1, kM2 = 4, kMu1 = 0.3, kMu2 = 0.5, kR = 0.1, kT = 0.1, kG = 9.81;
constexpr double kI1 = 0.1, kI2 = 0.4;
constexpr double kL1 = kMu1 * kR * (kM1 + kM2) * kG;  // 1.4715 N m
constexpr double kL2 = kMu2 * kR * kM2 * kG;          // 1.962 N m

// the direction of the spins (world), not an axis of the frame
const Vec3 kN = Vec3(1, 2, 2) / 3;

// Two nested balls; core_inertia its principal moments (along the world
// axes), w_shell and w_core the initial angular velocities, tau the torque
// on the core (world). With dry_hinge the shell turns on a hinge about z
// instead, with seed 003's dry friction of L1 on its angle.
std::string nested_balls(const Vec3& core_inertia, const Vec3& w_shell, const Vec3& w_core,
                         const Vec3& tau, double until, bool dry_hinge = false) {
  const std::string outer =
      dry_hinge ? fmt::format(
                      "outer: {{type: revolute, between: [ground, shell], at: [0, 0, 0], "
                      "axis: [0, 0, 1]}}\nforces:\n  dry: {{type: rotational_spring_damper, "
                      "joint: outer, dry_friction: {:.17g}}}",
                      kL1)
                : fmt::format(
                      "outer: {{type: spherical, between: [ground, shell], at: [0, 0, 0], "
                      "friction: {{mu: {}, radius: {}}}}}\nforces:",
                      kMu1, kR);
  return fmt::format(
      R"(ictus: 1
gravity: [0, 0, -{g}]
bodies:
  shell: {{mass: {m1}, inertia: [{i1}, {i1}, {i1}], position: [0, 0, 0],
           angular_velocity: [{ws0:.17g}, {ws1:.17g}, {ws2:.17g}]}}
  core: {{mass: {m2}, inertia: [{ic0}, {ic1}, {ic2}], position: [0, 0, 0],
          angular_velocity: [{wc0:.17g}, {wc1:.17g}, {wc2:.17g}]}}
joints:
  inner: {{type: spherical, between: [shell, core], at: [0, 0, 0],
           friction: {{mu: {mu2}, radius: {r}}}}}
  {outer}
  twist: {{type: torque, on: core, components: [{t0:.17g}, {t1:.17g}, {t2:.17g}]}}
simulate: {{until: {until}, output_step: 0.001, rtol: 1e-10, atol: 1e-12}}
)",
      fmt::arg("g", kG), fmt::arg("m1", kM1), fmt::arg("m2", kM2), fmt::arg("i1", kI1),
      fmt::arg("ic0", core_inertia.x()), fmt::arg("ic1", core_inertia.y()),
      fmt::arg("ic2", core_inertia.z()), fmt::arg("ws0", w_shell.x()), fmt::arg("ws1", w_shell.y()),
      fmt::arg("ws2", w_shell.z()), fmt::arg("wc0", w_core.x()), fmt::arg("wc1", w_core.y()),
      fmt::arg("wc2", w_core.z()), fmt::arg("outer", outer), fmt::arg("mu2", kMu2),
      fmt::arg("r", kR), fmt::arg("t0", tau.x()), fmt::arg("t1", tau.y()), fmt::arg("t2", tau.z()),
      fmt::arg("until", until));
}

const std::vector<std::string> kChannels = {"shell.wx",
                                            "shell.wy",
                                            "shell.wz",
                                            "core.wx",
                                            "core.wy",
                                            "core.wz",
                                            "shell.alphax",
                                            "shell.alphay",
                                            "shell.alphaz",
                                            "outer.friction",
                                            "inner.friction",
                                            "outer.friction_mode",
                                            "inner.friction_mode",
                                            "outer.normal",
                                            "inner.normal",
                                            "energy.kinetic",
                                            "energy.dissipated",
                                            "energy.balance"};

Vec3 sample(const test::RecordedRun& r, const std::string& body, const char* what, std::size_t k) {
  return {r[fmt::format("{}.{}x", body, what)][k], r[fmt::format("{}.{}y", body, what)][k],
          r[fmt::format("{}.{}z", body, what)][k]};
}

// The run's switches: `count` (one per element), all at `when` (to
// `tolerance`), the inner ball's of kind `inner` and the others' of kind
// `outer`.
void expect_switches(const test::RecordedRun& r, double when, double tolerance, const char* outer,
                     const char* inner, int count = 2) {
  int switches = 0;
  for (const EventRecord& e : r.events) {
    if (e.kind == "end") continue;
    EXPECT_NEAR(e.t, when, tolerance) << e.name;
    EXPECT_EQ(e.kind, e.name == "inner.friction" ? inner : outer)
        << e.name << " at " << e.t << ": " << e.detail;
    ++switches;
  }
  EXPECT_EQ(switches, count);
}

// The outer element: the outer ball (spins along n) or, for a ball and a
// scalar element in one decision, a hinge about z with seed 003's dry
// friction f_T = L1 on its angle (spins about z; the same closed forms).
struct Outer {
  bool dry_hinge;
  Vec3 axis;
  std::string friction, mode;  // channels
  double slipping;             // its friction channel slipping forward
};
const Outer kOuterBall{false, kN, "outer.friction", "outer.friction_mode", kL1};
const Outer kDryHinge{true, Vec3::UnitZ(), "dry.friction_force", "dry.mode", -kL1};

// the spins along the axis that stop both slips at T, for a torque tau on the
// core along it
test::RecordedRun run_stopping(const Outer& outer, double tau) {
  const double a1 = (-kL1 - kL2) / kI1;      // -34.335 rad/s^2
  const double a2 = (kL2 + tau) / kI2 - a1;  // the core relative to the shell
  const double v1 = -a1 * kT, v2 = -a2 * kT;
  const Vec3& e = outer.axis;
  return test::run_and_record(parse_model(nested_balls(Vec3::Constant(kI2), v1 * e, (v1 + v2) * e,
                                                       tau * e, 0.3, outer.dry_hinge),
                                          "nested.yaml"),
                              {"shell.wx", "shell.wy", "shell.wz", "core.wx", "core.wy", "core.wz",
                               "shell.alphax", "shell.alphay", "shell.alphaz", outer.friction,
                               outer.mode, "inner.friction", "inner.friction_mode", "inner.normal",
                               "energy.kinetic", "energy.dissipated", "energy.balance"});
}

// Nothing turns them at T: both stick and stay, and the initial kinetic
// energy is all dissipated.
void expect_both_stick_and_stay(const Outer& outer) {
  const test::RecordedRun r = run_stopping(outer, 0.0);
  const double a1 = (-kL1 - kL2) / kI1, a2 = kL2 / kI2 - a1;
  const double v1 = -a1 * kT, v2 = -a2 * kT;
  const Vec3& e = outer.axis;
  expect_switches(r, kT, 1e-9, "stick", "stick");
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k];
    EXPECT_NEAR(r["inner.normal"][k], kM2 * kG, 1e-9) << t;
    if (t < kT - 1e-6) {
      EXPECT_LT((sample(r, "shell", "w", k) - (v1 + a1 * t) * e).norm(), 1e-9) << t;
      EXPECT_LT((sample(r, "core", "w", k) - (v1 + v2 + (a1 + a2) * t) * e).norm(), 1e-9) << t;
    } else if (t > kT + 1e-6) {
      EXPECT_LT(sample(r, "shell", "w", k).norm(), 1e-12) << t;
      EXPECT_LT(sample(r, "core", "w", k).norm(), 1e-12) << t;
      EXPECT_NEAR(r[outer.friction][k], 0.0, 1e-9) << t;
      EXPECT_NEAR(r["inner.friction"][k], 0.0, 1e-9) << t;
      EXPECT_EQ(r[outer.mode][k], 0.0) << t;
      EXPECT_EQ(r["inner.friction_mode"][k], 0.0) << t;
    }
  }
  const double kinetic0 = 0.5 * kI1 * v1 * v1 + 0.5 * kI2 * (v1 + v2) * (v1 + v2);
  EXPECT_NEAR(r.final("energy.dissipated"), kinetic0, 1e-9);
  EXPECT_LT(r.final("energy.kinetic"), 1e-20);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
  fmt::print("stopping together: dissipated {:.12f} J of {:.12f} J\n", r.final("energy.dissipated"),
             kinetic0);
}

// One after the other, the outer ball logged a slip at T against the inner
// ball's kinetic moment before a second round stuck it.
TEST(CoupledBallFriction, TwoNestedBallsStoppingTogetherBothStickAndStayAtRest) {
  expect_both_stick_and_stay(kOuterBall);
}

// A ball and a scalar element in one decision. One after the other, the dry
// hinge reversed at T (the inner ball's kinetic moment, 1.962 N m > f_T)
// and the pair moved off from rest: 0.0866 J of kinetic energy by 0.3 s.
TEST(CoupledBallFriction, ADryFrictionHingeAndABallStoppingTogetherBothStick) {
  expect_both_stick_and_stay(kDryHinge);
}

// With a torque of 1.7 N m on the core along the axis, holding both takes
// 1.7 N m at the outer element, above L1. The consistent combination: the
// outer element slips on with the inner ball stuck,
//   (I1 + I2) a = tau - L1,  a = 0.457 rad/s^2,
// the inner ball holding the core with I2 a - tau = -1.5172 N m, within L2.
void expect_outer_slips_on_inner_stuck(const Outer& outer) {
  constexpr double kTau = 1.7;
  const test::RecordedRun r = run_stopping(outer, kTau);
  const double a = (kTau - kL1) / (kI1 + kI2);
  const Vec3& e = outer.axis;
  expect_switches(r, kT, 1e-9, "slip", "stick");
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k];
    if (!(t > kT + 1e-6)) continue;
    EXPECT_LT((sample(r, "shell", "w", k) - a * (t - kT) * e).norm(), 1e-9) << t;
    EXPECT_LT((sample(r, "core", "w", k) - a * (t - kT) * e).norm(), 1e-9) << t;
    EXPECT_LT((sample(r, "shell", "alpha", k) - a * e).norm(), 1e-9) << t;
    EXPECT_NEAR(r[outer.friction][k], outer.slipping, 1e-9) << t;
    EXPECT_NEAR(r["inner.friction"][k], kTau - kI2 * a, 1e-9) << t;
    EXPECT_EQ(r[outer.mode][k], 1.0) << t;
    EXPECT_EQ(r["inner.friction_mode"][k], 0.0) << t;
  }
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
}

TEST(CoupledBallFriction, ATwistedPairSlipsOnAtTheOuterBallWithTheInnerStuck) {
  expect_outer_slips_on_inner_stuck(kOuterBall);
}

TEST(CoupledBallFriction, ATwistedHingeAndBallSlipAtTheHingeWithTheBallStuck) {
  expect_outer_slips_on_inner_stuck(kDryHinge);
}

// The slip direction decided by the solution: both balls at rest at the
// start, a core with unequal principal moments (0.2, 0.45, 0.6 kg m^2 along
// the world axes) and a torque tau = (1.5, 1, 0.5) N m on it, |tau| =
// 1.871 N m: above L1 (holding both is not possible) and below L2 (the
// inner ball slipping alone is not either). The outer ball slips and the
// inner one sticks: shell and core turn as one body of inertia
// J = I1 + I2 = diag(0.3, 0.55, 0.7), with
//   J a = tau - L1 e,   e = a / |a|
// (the friction moment opposes the slip that starts along the
// acceleration): a_i = tau_i / (J_i + L1 / s), s = |a| the root of
// sum_i tau_i^2 / (J_i + L1 / s)^2 = s^2, solved here by bisection. a is
// 4.1 degrees off tau, the direction the holding moment alone would give.
Vec3 slip_acceleration(const Vec3& J, const Vec3& tau, double limit) {
  auto acceleration = [&](double s) { return Vec3(tau.array() / (J.array() + limit / s)); };
  double lo = 1e-12, hi = tau.norm() / J.minCoeff();
  for (int i = 0; i < 200; ++i) {
    const double s = 0.5 * (lo + hi);
    (acceleration(s).norm() > s ? lo : hi) = s;
  }
  return acceleration(0.5 * (lo + hi));
}

const Vec3 kCore(0.2, 0.45, 0.6), kTwist(1.5, 1.0, 0.5);

TEST(CoupledBallFriction, BallsAtRestUnderATwistTheOuterSlipsAlongItsAccelerationNotTheTorque) {
  const Vec3 &core = kCore, &tau = kTwist;
  const Vec3 a = slip_acceleration(core + Vec3::Constant(kI1), tau, kL1);
  ASSERT_GT(std::acos(a.normalized().dot(tau.normalized())), 0.05);
  // the inner ball's holding moment on the core, I2 a - tau, within L2
  const Vec3 hold = Vec3(core.array() * a.array()) - tau;
  ASSERT_LT(hold.norm(), kL2);
  const test::RecordedRun r = test::run_and_record(
      parse_model(nested_balls(core, Vec3::Zero(), Vec3::Zero(), tau, 0.05), "twisted.yaml"),
      kChannels);
  expect_switches(r, 0.0, 0.0, "slip", "stick");
  ASSERT_EQ(r.t.front(), 0.0);
  // at the start (w = 0, no gyroscopic moment): the closed-form acceleration
  EXPECT_LT((sample(r, "shell", "alpha", 0) - a).norm(), 1e-9 * a.norm());
  EXPECT_NEAR(r["outer.friction"][0], kL1, 1e-9);
  EXPECT_NEAR(r["inner.friction"][0], hold.norm(), 1e-9);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k];
    EXPECT_EQ(r["outer.friction_mode"][k], 1.0) << t;
    EXPECT_EQ(r["inner.friction_mode"][k], 0.0) << t;
    EXPECT_LT((sample(r, "core", "w", k) - sample(r, "shell", "w", k)).norm(), 1e-12) << t;
  }
  // a moment later w has grown along a (to first order in t; the gyroscopic
  // moment and the turn of J with the body are of second order)
  const std::size_t k = 1;
  const Vec3 w = sample(r, "shell", "w", k);
  EXPECT_LT((w / r.t[k] - a).norm(), 1e-6 * a.norm());  // 6.5e-8: second order in t
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
  fmt::print(
      "balls at rest under a twist: shell alpha ({:.12f}, {:.12f}, {:.12f}), closed form "
      "({:.12f}, {:.12f}, {:.12f}); {:.3f} deg off the torque\n",
      r["shell.alphax"][0], r["shell.alphay"][0], r["shell.alphaz"][0], a.x(), a.y(), a.z(),
      std::acos(a.normalized().dot(tau.normalized())) * 180 / M_PI);
}

// A slip that stops in mid-run and starts again along its acceleration. A
// core with unequal principal moments Ic = (0.2, 0.45, 0.6) kg m^2 (world
// axes) turns in an isotropic shell (Is = 0.1) on the inner ball; the shell
// turns on a frictionless ball. The shell spins along n (not a principal
// axis of the core) and the core is at rest, held there by a torque
// tau_c = -L2 n against the friction moment L2 n that the spinning shell
// exerts on it: no gyroscopic moment on either body, so the shell slows
// along n in a straight line, Is w' = (beta - L2) n with a torque beta n on
// it, and the relative angular velocity reaches zero at T. Holding the
// pair there is not possible (the holding moment 2.12 N m > L2): the slip
// starts again along the relative angular acceleration a = ac - as, with
//   Ic ac = tau_c - L2 e,   Is as = beta n + L2 e,   e = a / |a|,
// a = K (tau' - L2 e), K = Ic^-1 + Is^-1 (diagonal), tau' = K^-1 (Ic^-1 tau_c
// - beta n / Is): the closed form of slip_acceleration with J = K^-1. At T
// the relative angular velocity is what the location of the zero leaves,
// of round-off size and any direction. Before, the friction moment followed
// it (w/|w| for |w| > 1e-300) instead of e.
TEST(CoupledBallFriction, ASlipThatStopsInMidRunStartsAgainAlongItsAcceleration) {
  const Vec3 core = kCore;
  constexpr double kIs = 0.1, kBeta = -3.0;
  const double spin = (kL2 - kBeta) / kIs * kT;  // stops at T
  const Vec3 tau_core = -kL2 * kN, tau_shell = kBeta * kN;
  const Vec3 K = core.cwiseInverse() + Vec3::Constant(1.0 / kIs);
  const Vec3 J = K.cwiseInverse();
  const Vec3 tau = J.cwiseProduct(tau_core.cwiseQuotient(core) - tau_shell / kIs);
  const Vec3 a = slip_acceleration(J, tau, kL2);
  const Vec3 e = a.normalized();
  const Vec3 alpha_core = (tau_core - kL2 * e).cwiseQuotient(core);
  const Vec3 alpha_shell = (tau_shell + kL2 * e) / kIs;
  ASSERT_LT((alpha_core - alpha_shell - a).norm(), 1e-12 * a.norm());
  // holding both: one body under tau_c + tau_s, the core held by I_c a - tau_c
  const Vec3 together = (tau_core + tau_shell).cwiseQuotient(core + Vec3::Constant(kIs));
  ASSERT_GT((core.cwiseProduct(together) - tau_core).norm(), kL2);
  ASSERT_GT(std::acos(e.dot(kN)), 0.05);  // the slip starts off n
  const std::string text = fmt::format(
      R"(ictus: 1
gravity: [0, 0, -{g}]
bodies:
  shell: {{mass: 1, inertia: [{is}, {is}, {is}], position: [0, 0, 0],
           angular_velocity: [{w0:.17g}, {w1:.17g}, {w2:.17g}]}}
  core: {{mass: {m2}, inertia: [{c0}, {c1}, {c2}], position: [0, 0, 0]}}
joints:
  outer: {{type: spherical, between: [ground, shell], at: [0, 0, 0]}}
  inner: {{type: spherical, between: [shell, core], at: [0, 0, 0],
           friction: {{mu: {mu2}, radius: {r}}}}}
forces:
  hold: {{type: torque, on: core, components: [{h0:.17g}, {h1:.17g}, {h2:.17g}]}}
  brake: {{type: torque, on: shell, components: [{b0:.17g}, {b1:.17g}, {b2:.17g}]}}
simulate: {{until: 0.15, output_step: 0.001, rtol: 1e-10, atol: 1e-12}}
)",
      fmt::arg("g", kG), fmt::arg("is", kIs), fmt::arg("w0", spin * kN.x()),
      fmt::arg("w1", spin * kN.y()), fmt::arg("w2", spin * kN.z()), fmt::arg("m2", kM2),
      fmt::arg("c0", core.x()), fmt::arg("c1", core.y()), fmt::arg("c2", core.z()),
      fmt::arg("mu2", kMu2), fmt::arg("r", kR), fmt::arg("h0", tau_core.x()),
      fmt::arg("h1", tau_core.y()), fmt::arg("h2", tau_core.z()), fmt::arg("b0", tau_shell.x()),
      fmt::arg("b1", tau_shell.y()), fmt::arg("b2", tau_shell.z()));
  const test::RecordedRun r =
      test::run_and_record(parse_model(text, "restart.yaml"),
                           {"shell.alphax", "shell.alphay", "shell.alphaz", "inner.friction",
                            "inner.friction_mode", "energy.impacts", "energy.balance"});
  expect_switches(r, kT, 1e-9, "", "slip", 1);
  // the event's second sample at T: the state just after the switch
  std::size_t k = 0;
  while (k + 1 < r.t.size() && r.t[k + 1] < kT + 1e-9) ++k;
  ASSERT_NEAR(r.t[k], kT, 1e-9);
  ASSERT_NEAR(r.t[k - 1], kT, 1e-9);
  const Vec3 alpha = sample(r, "shell", "alpha", k);
  EXPECT_LT((alpha - alpha_shell).norm(), 1e-9 * alpha_shell.norm()) << alpha.transpose();
  EXPECT_NEAR(r["inner.friction"][k], kL2, 1e-9);
  EXPECT_EQ(r["inner.friction_mode"][k], 1.0);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
  fmt::print(
      "slip again in mid-run: shell alpha ({:.12f}, {:.12f}, {:.12f}), closed form ({:.12f}, "
      "{:.12f}, {:.12f}), relative error {:.1e}; e {:.3f} deg off n; energy audit {:.2e} J, "
      "impacts {:.2e} J\n",
      alpha.x(), alpha.y(), alpha.z(), alpha_shell.x(), alpha_shell.y(), alpha_shell.z(),
      (alpha - alpha_shell).norm() / alpha_shell.norm(), std::acos(e.dot(kN)) * 180 / M_PI,
      r.max_abs("energy.balance"), r.final("energy.impacts"));
}

// One ball alone, decided as a set of one: a body of the pair's mass and
// inertia J (so the same closed form) on the outer ball, at rest under the
// same torque. Its slip starts along a, not against the holding moment
// (along tau, as the decision of one ball did before).
TEST(CoupledBallFriction, ABallAloneAtRestSlipsAlongItsAccelerationNotTheTorque) {
  const Vec3 J = kCore + Vec3::Constant(kI1);
  const Vec3 a = slip_acceleration(J, kTwist, kL1);
  const std::string model = fmt::format(
      R"(ictus: 1
gravity: [0, 0, -{}]
bodies:
  knob: {{mass: {}, inertia: [{}, {}, {}], position: [0, 0, 0]}}
joints:
  outer: {{type: spherical, between: [ground, knob], at: [0, 0, 0],
           friction: {{mu: {}, radius: {}}}}}
forces:
  twist: {{type: torque, on: knob, components: [{}, {}, {}]}}
simulate: {{until: 0.05, output_step: 0.001, rtol: 1e-10, atol: 1e-12}}
)",
      kG, kM1 + kM2, J.x(), J.y(), J.z(), kMu1, kR, kTwist.x(), kTwist.y(), kTwist.z());
  const test::RecordedRun r = test::run_and_record(
      parse_model(model, "knob.yaml"),
      {"knob.alphax", "knob.alphay", "knob.alphaz", "outer.friction", "outer.friction_mode"});
  ASSERT_EQ(r.t.front(), 0.0);
  EXPECT_LT((sample(r, "knob", "alpha", 0) - a).norm(), 1e-9 * a.norm());
  EXPECT_NEAR(r["outer.friction"][0], kL1, 1e-9);
  for (std::size_t k = 0; k < r.t.size(); ++k) EXPECT_EQ(r["outer.friction_mode"][k], 1.0);
}

// Both balls at rest, a torque of 5 N m on the isotropic core along n: holding
// either ball is not possible (the outer one would hold 5 N m > L1; with the
// inner one stuck the outer slipping leaves it 2.18 N m > L2 to hold; with
// the outer one stuck the inner one slipping leaves the shell L2 > L1), so
// both slip, each direction found with the other's (two slipping balls):
//   I1 a1 = L2 - L1,   I2 a2 = tau - L2   (a2 > a1: the core overtakes),
// along n for good (isotropic bodies: no gyroscopic moment).
TEST(CoupledBallFriction, ATwistAboveBothLimitsSetsBothBallsSlippingTogether) {
  constexpr double kTau = 5;
  const double a1 = (kL2 - kL1) / kI1, a2 = (kTau - kL2) / kI2;  // 4.905, 7.595 rad/s^2
  const test::RecordedRun r = test::run_and_record(
      parse_model(nested_balls(Vec3::Constant(kI2), Vec3::Zero(), Vec3::Zero(), kTau * kN, 0.05),
                  "twisted.yaml"),
      kChannels);
  expect_switches(r, 0.0, 0.0, "slip", "slip");
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k];
    // the decision at t = 0 to round-off; after it the slip directions follow
    // w, whose sideways error the friction does not damp out
    EXPECT_LT((sample(r, "shell", "alpha", k) - a1 * kN).norm(), k == 0 ? 1e-12 : 1e-7) << t;
    EXPECT_LT((sample(r, "shell", "w", k) - a1 * t * kN).norm(), 1e-9) << t;
    EXPECT_LT((sample(r, "core", "w", k) - a2 * t * kN).norm(), 1e-9) << t;
    EXPECT_NEAR(r["outer.friction"][k], kL1, 1e-9) << t;
    EXPECT_NEAR(r["inner.friction"][k], kL2, 1e-9) << t;
    EXPECT_EQ(r["outer.friction_mode"][k], 1.0) << t;
    EXPECT_EQ(r["inner.friction_mode"][k], 1.0) << t;
  }
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
}

// Thirteen nested balls at one centre, beyond the enumeration (12): decided
// through the complementarity problem, each ball as three components of its
// moment. Body i (mass m_i, isotropic inertia 0.1 m_i, alternately 1 and
// 4 kg) turns in body i - 1 (the ground for i = 0) on ball i (mu_i
// alternately 0.3 and 0.5, r = 0.1 m, N_i = g sum_{j >= i} m_j), its
// relative spin along n of sign s_i = (-1)^i. Slipping,
//   I_i w_i' = -L_i s_i + L_{i+1} s_{i+1},   u_i'' = w_i' - w_{i-1}',
// L_i = mu_i r N_i, and u_i(0) = -u_i'' T stops every slip at T. Nothing
// turns them there: all stick and stay.
TEST(CoupledBallFriction, ThirteenNestedBallsStoppingTogetherAllStickThroughTheLcp) {
  constexpr int kBalls = 13;
  std::vector<double> m, mu, normal(kBalls), alpha(kBalls), rate(kBalls);
  for (int i = 0; i < kBalls; ++i) {
    m.push_back(i % 2 == 0 ? 1.0 : 4.0);
    mu.push_back(i % 2 == 0 ? 0.3 : 0.5);
  }
  for (int i = kBalls - 1; i >= 0; --i)
    normal[i] = kG * m[i] + (i + 1 < kBalls ? normal[i + 1] : 0);
  auto sign = [](int i) { return i % 2 == 0 ? 1.0 : -1.0; };
  auto limit = [&](int i) { return i < kBalls ? mu[i] * kR * normal[i] : 0.0; };
  std::string text = fmt::format("ictus: 1\ngravity: [0, 0, -{}]\nbodies:\n", kG);
  std::string joints = "joints:\n";
  double spin = 0.0, kinetic0 = 0.0;
  for (int i = 0; i < kBalls; ++i) {
    alpha[i] = (-limit(i) * sign(i) + limit(i + 1) * sign(i + 1)) / (0.1 * m[i]);
    rate[i] = -(alpha[i] - (i > 0 ? alpha[i - 1] : 0.0)) * kT;
    ASSERT_GT(rate[i] * sign(i), 0.0);  // each slips the way it is set to
    spin += rate[i];
    kinetic0 += 0.5 * 0.1 * m[i] * spin * spin;
    const Vec3 w = spin * kN;
    text += fmt::format(
        "  b{0}: {{mass: {1}, inertia: [{2}, {2}, {2}], position: [0, 0, 0], "
        "angular_velocity: [{3:.17g}, {4:.17g}, {5:.17g}]}}\n",
        i, m[i], 0.1 * m[i], w.x(), w.y(), w.z());
    joints += fmt::format(
        "  ball{}: {{type: spherical, between: [{}, b{}], at: [0, 0, 0], "
        "friction: {{mu: {}, radius: {}}}}}\n",
        i, i == 0 ? std::string("ground") : fmt::format("b{}", i - 1), i, mu[i], kR);
  }
  text += joints + "simulate: {until: 0.3, output_step: 0.001, rtol: 1e-10, atol: 1e-12}\n";
  std::vector<std::string> channels = {"energy.kinetic", "energy.dissipated", "energy.balance"};
  for (int i = 0; i < kBalls; ++i)
    for (const char* c : {"wx", "wy", "wz"}) channels.push_back(fmt::format("b{}.{}", i, c));
  const test::RecordedRun r = test::run_and_record(parse_model(text, "nested13.yaml"), channels);
  expect_switches(r, kT, 1e-9, "stick", "stick", kBalls);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    if (r.t[k] <= kT + 1e-6) continue;
    for (int i = 0; i < kBalls; ++i)
      EXPECT_LT(sample(r, fmt::format("b{}", i), "w", k).norm(), 1e-12) << r.t[k];
  }
  EXPECT_NEAR(r.final("energy.dissipated"), kinetic0, 1e-9 * kinetic0);
  EXPECT_LT(r.final("energy.kinetic"), 1e-20);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9 * kinetic0);
  fmt::print("thirteen nested balls: dissipated {:.12f} J of {:.12f} J\n",
             r.final("energy.dissipated"), kinetic0);
}

// A ball whose reaction vanishes has no friction: a body held at its centre
// of mass by a frictional ball, without gravity, turns from rest under a
// torque as if the ball were frictionless, w' = I^-1 tau (principal axes
// along the world's at t = 0). The slip moment's root phi = |M| - mu r |N|
// lies at kappa -> infinity there (phi > 0 at every finite kappa, 0 in the
// limit); before, no root was found and the run stopped as a Painleve case.
TEST(CoupledBallFriction, ABallWithoutReactionTurnsFreelyUnderATorque) {
  const Vec3 inertia(0.2, 0.45, 0.6), tau(1.5, 1.0, 0.5);
  const std::string text = fmt::format(
      R"(ictus: 1
gravity: [0, 0, 0]
bodies:
  core: {{mass: 4, inertia: [{}, {}, {}], position: [0, 0, 0]}}
joints:
  ball: {{type: spherical, between: [ground, core], at: [0, 0, 0],
          friction: {{mu: 0.5, radius: 0.1}}}}
forces:
  twist: {{type: torque, on: core, components: [{}, {}, {}]}}
simulate: {{until: 0.01, output_step: 0.001, rtol: 1e-10, atol: 1e-12}}
)",
      inertia.x(), inertia.y(), inertia.z(), tau.x(), tau.y(), tau.z());
  const test::RecordedRun r = test::run_and_record(
      parse_model(text, "free_ball.yaml"),
      {"core.alphax", "core.alphay", "core.alphaz", "ball.friction", "ball.normal"});
  ASSERT_FALSE(r.t.empty());
  const Vec3 alpha0 = sample(r, "core", "alpha", 0);
  const Vec3 expected = tau.cwiseQuotient(inertia);
  EXPECT_LT((alpha0 - expected).norm(), 1e-9 * expected.norm()) << alpha0.transpose();
  EXPECT_LT(r.max_abs("ball.friction"), 1e-12);
  EXPECT_LT(r.max_abs("ball.normal"), 1e-9);
  EXPECT_NEAR(r.t.back(), 0.01, 1e-12);
}

}  // namespace
}  // namespace ictus
