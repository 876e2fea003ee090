// Ball friction in a spherical joint (docs/theory/friction.md, "A ball";
// docs/theory/stick-slip.md): the moment mu r |N| opposes the relative
// angular velocity w, N the joint's whole reaction force.
//  * tests/models/ball_friction_spin.yaml: a disk spun about the vertical
//    through the ball (N = m g) spins down at mu m g r / I, stops at the
//    closed-form time and angle, and stays stuck;
//  * tests/models/ball_friction_pendulum.yaml: the pin-friction pendulum on
//    a ball of the same radius, swinging in a plane, moves as on the pin
//    (the revolute path of pin_friction_test.cpp);
//  * tests/models/ball_friction_spherical_pendulum.yaml: a 3-D swing whose
//    slip direction turns; the energy lost is the friction work.
//  * tests/models/ball_torque_ramp.yaml: a body held at its centre of mass
//    leaves its hold under a growing torque, along the acceleration the
//    kinetic moment leaves (closed form), not against the holding moment.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "ictus/observers.h"
#include "ictus/simulation.h"
#include "support/test_support.h"

namespace ictus {
namespace {

double logged_u(const EventRecord& e) {
  return std::stod(e.detail.substr(e.detail.find("u = ") + 4));
}

std::vector<EventRecord> switches_of(const test::RecordedRun& r, const std::string& element) {
  std::vector<EventRecord> out;
  for (const EventRecord& e : r.events)
    if (e.name == element && (e.kind == "stick" || e.kind == "slip" || e.kind == "reversal"))
      out.push_back(e);
  return out;
}

// Friction work -integral of M . w dt by the trapezoidal rule on the samples:
// slipping, M = -|M| w/|w|, so M . w = -|M| |w|; stuck, w = 0.
double friction_work(const test::RecordedRun& r, const std::string& body,
                     const std::string& joint) {
  const std::vector<double>& M = r[joint + ".friction"];
  const std::vector<double>& wx = r[body + ".wx"];
  const std::vector<double>& wy = r[body + ".wy"];
  const std::vector<double>& wz = r[body + ".wz"];
  auto power = [&](std::size_t k) { return -M[k] * std::hypot(wx[k], wy[k], wz[k]); };
  double work = 0.0;
  for (std::size_t k = 1; k < r.t.size(); ++k)
    work += 0.5 * (power(k) + power(k - 1)) * (r.t[k] - r.t[k - 1]);
  return work;
}

TEST(BallFriction, SpinningDiskStopsAtTheClosedFormTimeAndAngleAndStaysStuck) {
  const double m = 1.0, I = 0.01, r_ball = 0.01, mu = 0.2, w0 = 3.0, g = 9.81;
  const test::RecordedRun r = test::run_and_record(
      load_model(test::source_path("tests/models/ball_friction_spin.yaml")),
      {"disk.wx", "disk.wy", "disk.wz", "ball.friction", "ball.normal", "ball.friction_mode",
       "energy.total", "energy.dissipated", "energy.balance"});
  const double deceleration = mu * m * g * r_ball / I;  // 1.962 rad/s^2
  const double t_stop = w0 / deceleration;
  const double angle = w0 * w0 / (2.0 * deceleration);
  const std::vector<EventRecord> s = switches_of(r, "ball.friction");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].kind, "stick");
  EXPECT_NEAR(s[0].t, t_stop, 1e-9);
  EXPECT_NEAR(logged_u(s[0]), angle, 1e-8);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k];
    EXPECT_NEAR(r["ball.normal"][k], m * g, 1e-9) << t;
    EXPECT_NEAR(r["disk.wx"][k], 0.0, 1e-12) << t;
    EXPECT_NEAR(r["disk.wy"][k], 0.0, 1e-12) << t;
    if (t < t_stop - 1e-6) {
      ASSERT_EQ(r["ball.friction_mode"][k], 1.0) << t;
      EXPECT_NEAR(r["disk.wz"][k], w0 - deceleration * t, 1e-9) << t;
      EXPECT_NEAR(r["ball.friction"][k], mu * r_ball * m * g, 1e-12) << t;
    } else if (t > t_stop + 1e-6) {
      // stuck: nothing turns it, the holding moment is zero
      ASSERT_EQ(r["ball.friction_mode"][k], 0.0) << t;
      EXPECT_NEAR(r["disk.wz"][k], 0.0, 1e-12) << t;
      EXPECT_NEAR(r["ball.friction"][k], 0.0, 1e-9) << t;
    }
  }
  // the energy lost, I w0^2 / 2, is the friction work: booked and integrated
  const double lost = 0.5 * I * w0 * w0;
  EXPECT_NEAR(r["energy.total"].front() - r.final("energy.total"), lost, 1e-9);
  EXPECT_NEAR(r.final("energy.dissipated"), lost, 1e-9);
  EXPECT_NEAR(-friction_work(r, "disk", "ball"), lost, 1e-6 * lost);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
  fmt::print(
      "ball spin-down: stuck at {:.12f} s (closed form {:.12f}) after {:.10f} rad "
      "(closed form {:.10f}); dissipated {:.12f} J of {:.12f}\n",
      s[0].t, t_stop, logged_u(s[0]), angle, r.final("energy.dissipated"), lost);
}

// The same pendulum, swinging in the plane z = 0, on a pin (revolute, pin
// friction) and on a ball of the same radius: the ball's whole reaction is
// in the plane, the pin's radial reaction, so everything agrees.
void expect_ball_moves_as_pin(const ParameterOverrides& overrides) {
  const std::vector<std::string> channels = {"bob.x",         "bob.y",
                                             "bob.wz",        "pivot.friction",
                                             "pivot.normal",  "pivot.friction_mode",
                                             "energy.total",  "energy.dissipated",
                                             "energy.balance"};
  const test::RecordedRun pin = test::run_and_record(
      load_model(test::source_path("tests/models/pin_friction_pendulum.yaml"), overrides),
      channels);
  const test::RecordedRun ball = test::run_and_record(
      load_model(test::source_path("tests/models/ball_friction_pendulum.yaml"), overrides),
      channels);
  ASSERT_EQ(pin.t.size(), ball.t.size());
  double worst = 0.0;
  for (std::size_t k = 0; k < pin.t.size(); ++k) {
    const double t = pin.t[k];
    EXPECT_NEAR(ball["bob.x"][k], pin["bob.x"][k], 1e-12) << t;
    EXPECT_NEAR(ball["bob.y"][k], pin["bob.y"][k], 1e-12) << t;
    EXPECT_NEAR(ball["bob.wz"][k], pin["bob.wz"][k], 1e-11) << t;
    EXPECT_NEAR(ball["pivot.normal"][k], pin["pivot.normal"][k], 1e-10) << t;
    // the pin's friction is signed along its axis, the ball's is a size
    EXPECT_NEAR(ball["pivot.friction"][k], std::abs(pin["pivot.friction"][k]), 1e-11) << t;
    EXPECT_EQ(ball["pivot.friction_mode"][k] == 0.0, pin["pivot.friction_mode"][k] == 0.0) << t;
    EXPECT_NEAR(ball["energy.dissipated"][k], pin["energy.dissipated"][k], 1e-9) << t;
    worst = std::max(worst, std::abs(ball["bob.x"][k] - pin["bob.x"][k]));
  }
  EXPECT_LT(ball.max_abs("energy.balance"), 1e-8);
  // every switch at the same instant: the pin's reversals are the ball's
  // slips on in the new direction
  const std::vector<EventRecord> p = switches_of(pin, "pivot.friction");
  const std::vector<EventRecord> b = switches_of(ball, "pivot.friction");
  ASSERT_EQ(p.size(), b.size());
  ASSERT_GE(p.size(), 2u);
  for (std::size_t i = 0; i < p.size(); ++i) {
    EXPECT_NEAR(b[i].t, p[i].t, 1e-11) << i;
    EXPECT_EQ(b[i].kind == "stick", p[i].kind == "stick") << i << ' ' << p[i].kind;
  }
  fmt::print("ball vs pin: {} switches, last {} at {:.9f} s (pin {:.9f} s); |dx| <= {:.2e} m\n",
             b.size(), b.back().kind, b.back().t, p.back().t, worst);
}

TEST(BallFriction, PlanarPendulumMovesAsOnAPinOfTheSameRadius) {
  expect_ball_moves_as_pin({});
}

TEST(BallFriction, PlanarPendulumWithStaticAboveKineticMovesAsOnAPin) {
  expect_ball_moves_as_pin({{"mu", "0.3"}, {"mu_s", "0.6"}});
}

TEST(BallFriction, StuckBallSlipsWhenTheTorqueExceedsStaticFrictionAsAPin) {
  // at rest at theta = 0, held from the start; b t = mu_s r m g at 0.24525 s
  expect_ball_moves_as_pin({{"th0", "0"}, {"b", "1"}, {"mu", "0.3"}, {"mu_s", "0.5"}});
}

TEST(BallFriction, ThreeDimensionalSwingLosesTheFrictionWorkAndSticks) {
  const test::RecordedRun r = test::run_and_record(
      load_model(test::source_path("tests/models/ball_friction_spherical_pendulum.yaml")),
      {"rod.wx", "rod.wy", "rod.wz", "pivot.friction", "pivot.normal", "pivot.friction_mode",
       "energy.total", "energy.dissipated", "energy.impacts", "energy.balance"});
  const double mu = 0.4, mu_s = 0.5, r_ball = 0.1;
  // the swing dies down and the ball sticks once, for good
  const std::vector<EventRecord> s = switches_of(r, "pivot.friction");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].kind, "stick");
  const double held = s[0].t;
  double turned = 0.0;  // largest angle between w and its initial direction
  const Vec3 w0(r["rod.wx"][0], r["rod.wy"][0], r["rod.wz"][0]);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k];
    const Vec3 w(r["rod.wx"][k], r["rod.wy"][k], r["rod.wz"][k]);
    for (const char* c : {"rod.wx", "rod.wy", "rod.wz", "pivot.friction", "pivot.normal",
                          "energy.total", "energy.dissipated", "energy.balance"})
      ASSERT_TRUE(std::isfinite(r[c][k])) << c << " at " << t;
    if (t < held) {
      ASSERT_EQ(r["pivot.friction_mode"][k], 1.0) << t;
      EXPECT_NEAR(r["pivot.friction"][k], mu * r_ball * r["pivot.normal"][k], 1e-12) << t;
      turned =
          std::max(turned, std::acos(std::clamp(w.dot(w0) / (w.norm() * w0.norm()), -1.0, 1.0)));
    } else if (t > held) {
      // stuck off the vertical: held by a moment within the static limit
      ASSERT_EQ(r["pivot.friction_mode"][k], 0.0) << t;
      EXPECT_LT(w.norm(), 1e-12) << t;
      EXPECT_GT(r["pivot.friction"][k], 0.0) << t;
      EXPECT_LE(r["pivot.friction"][k], mu_s * r_ball * r["pivot.normal"][k]) << t;
    }
  }
  // the slip direction turns through most of a half turn during the swing
  EXPECT_GT(turned, 2.0);
  const double lost = r["energy.total"].front() - r.final("energy.total");
  EXPECT_GT(lost, 0.0);
  // the stick's plastic impact takes out the residual of the root finding
  EXPECT_LT(r.final("energy.impacts"), 1e-15);
  EXPECT_NEAR(r.final("energy.dissipated") + r.final("energy.impacts"), lost, 1e-8);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-8);
  // the booked dissipation is the friction work, integrated from the samples
  // (the moment's size times |w|; a kink at the stick: 1e-5 relative)
  EXPECT_NEAR(-friction_work(r, "rod", "pivot"), lost, 1e-5 * lost);
  fmt::print(
      "ball, 3-D swing: w turned up to {:.3f} rad, stuck at {:.6f} s; energy lost {:.9f} J, "
      "friction work {:.9f} J, audit {:.2e} J\n",
      turned, held, lost, -friction_work(r, "rod", "pivot"), r.max_abs("energy.balance"));
}

// The slip axis (slipping) and the held relative orientation (stuck) are
// part of the mode snapshot: a run continued from a checkpoint, through the
// stick at 8.37 s or after it, is bitwise the run continued in place.
TEST(BallFriction, ARunContinuedFromACheckpointIsBitwiseTheSame) {
  const Model model =
      load_model(test::source_path("tests/models/ball_friction_spherical_pendulum.yaml"));
  for (const double at : {4.0, 9.0}) {
    SCOPED_TRACE(at);
    Simulation original(model);
    Recorder in_place(select_channels(original.system(), {}));
    original.add_observer(in_place);
    ASSERT_TRUE(original.advance_to(at));
    test::expect_checkpoint_continues_bitwise(model, original, in_place);
  }
}

// Held at its centre of mass (N = m g), the body sticks until the torque b t
// d reaches mu_s r m g. The kinetic moment c = mu r m g is smaller, so the
// slip starts with an acceleration: with w = 0 (no gyroscopic moment) and
// the inertia about the world axes diag(I) (the body has not turned),
//   a = I^-1 (tau - c e) = kappa e,  kappa > 0,  i.e.  e = (kappa I + c)^-1 tau,
// kappa the one root of |(kappa I + c)^-1 tau| = 1 (decreasing from
// |tau| / c > 1 to 0). Before, the slip started against the holding moment
// (along d): a = (1.635, 0.409, 0.654) rad/s^2, 23 degrees off the slip
// axis, with the moment not against the slip until the first step turned it.
TEST(BallFriction, ALetGoBallSlipsAlongTheAccelerationItsKineticMomentLeaves) {
  const double m = 1.0, r_ball = 0.01, mu = 0.2, mu_s = 0.3, b = 0.1, g = 9.81;
  const Eigen::Vector3d inertia(0.004, 0.008, 0.01), d(2.0 / 3, 1.0 / 3, 2.0 / 3);
  const test::RecordedRun r =
      test::run_and_record(load_model(test::source_path("tests/models/ball_torque_ramp.yaml")),
                           {"body.alphax", "body.alphay", "body.alphaz", "ball.friction",
                            "ball.normal", "ball.friction_mode", "energy.balance"});
  const double t_slip = mu_s * r_ball * m * g / b;
  const std::vector<EventRecord> switches = switches_of(r, "ball.friction");
  ASSERT_EQ(switches.size(), 2u);  // stuck at t0, slips at t_slip, for good
  EXPECT_EQ(switches[1].kind, "slip");
  EXPECT_NEAR(switches[1].t, t_slip, 1e-9);
  // the closed form at t_slip
  const Eigen::Vector3d tau = b * t_slip * d;
  const double c = mu * r_ball * m * g;
  auto direction = [&](double kappa) {
    return Eigen::Vector3d(tau.array() / (kappa * inertia.array() + c));
  };
  double lo = 0.0, hi = 1e6;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (direction(mid).norm() > 1.0 ? lo : hi) = mid;
  }
  const Eigen::Vector3d e = direction(lo).normalized();
  const Eigen::Vector3d expected = lo * e;
  ASSERT_GT(std::acos(e.dot(d)), 0.1);  // the closed form is well off the holding moment's line
  // the first sample slipping is the one at the switch
  std::size_t k = 0;
  while (k < r.t.size() && r["ball.friction_mode"][k] == 0.0) ++k;
  ASSERT_LT(k, r.t.size());
  EXPECT_NEAR(r.t[k], t_slip, 1e-9);
  const Eigen::Vector3d alpha(r["body.alphax"][k], r["body.alphay"][k], r["body.alphaz"][k]);
  EXPECT_LT((alpha - expected).norm(), 1e-9 * expected.norm())
      << alpha.transpose() << " vs " << expected.transpose();
  EXPECT_NEAR(r["ball.normal"][k], m * g, 1e-9);
  EXPECT_NEAR(r["ball.friction"][k], c, 1e-12);  // its size, mu r |N|
  for (std::size_t j = k; j < r.t.size(); ++j) ASSERT_EQ(r["ball.friction_mode"][j], 1.0);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
}

// A disk on a frictional ball (mu = 0.3, r = 0.05 m) pressed by 100 N,
// whose other two rotations a planar joint about d = (1, 1, 0)/sqrt(2)
// locks, under a torque b t about d: two of the stuck ball's three hold rows
// are dependent on the planar's locks and dropped. The hold's moment about
// d is statically determinate, b t; the others carry the rest. The kept row
// alone put it along its own axis, sqrt(2) b t, and at b t = 1.2 N m (limit
// 1.5 N m) the ball stuck and slipped again every 1e-11 s without end. Now
// its moment is the least, b t, and it slips at b t = mu r N = 1.5 N m,
// spinning about d at (b t - 1.5)/I after.
TEST(BallFriction, ABallWhosePlanarNeighbourLocksTwoRotationsHoldsWithItsLeastMoment) {
  constexpr const char* kModel = R"(ictus: 1
name: a disk on a frictional ball, its other rotations locked by a planar joint
parameters: {b: 6}
gravity: [0, 0, 0]
bodies:
  disk: {mass: 1, inertia: [0.1, 0.1, 0.1], position: [0, 0, 0]}
joints:
  ball:
    type: spherical
    between: [ground, disk]
    at: [0, 0, 0]
    friction: {mu: 0.3, radius: 0.05}
  guide:
    type: planar
    between: [ground, disk]
    at: [0, 0, 0]
    axis: [0.7071067811865476, 0.7071067811865476, 0]
forces:
  push: {type: force, on: disk, direction: [0, 0, 1], value: 100}
  twist: {type: torque, on: disk, direction: [0.7071067811865476, 0.7071067811865476, 0], value: b*t}
simulate:
  until: 0.4
  output_step: 0.01
  rtol: 1e-10
  atol: 1e-12
  outputs: [disk.wx]
)";
  const double b = 6.0, limit = 0.3 * 0.05 * 100.0, inertia = 0.1;
  const double t_slip = limit / b;  // 0.25 s
  const test::RecordedRun r = test::run_and_record(
      parse_model(kModel, "ball_beside_planar.yaml", {}),
      {"disk.wx", "disk.wy", "disk.wz", "ball.friction", "ball.friction_mode", "ball.normal"});
  ASSERT_DOUBLE_EQ(r.t.back(), 0.4);
  const std::vector<EventRecord> switches = switches_of(r, "ball.friction");
  ASSERT_EQ(switches.size(), 2u);
  EXPECT_EQ(switches[0].kind, "stick");
  EXPECT_EQ(switches[0].t, 0.0);
  EXPECT_EQ(switches[1].kind, "slip");
  EXPECT_NEAR(switches[1].t, t_slip, 1e-9);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k];
    EXPECT_NEAR(r["ball.normal"][k], 100.0, 1e-9) << t;
    // the spin about d, (w_x + w_y)/sqrt(2); about the locked axes none
    const double spin = (r["disk.wx"][k] + r["disk.wy"][k]) / std::sqrt(2.0);
    EXPECT_NEAR(r["disk.wx"][k], r["disk.wy"][k], 1e-12) << t;
    EXPECT_NEAR(r["disk.wz"][k], 0.0, 1e-12) << t;
    if (t < t_slip) {
      EXPECT_EQ(r["ball.friction_mode"][k], 0.0) << t;
      EXPECT_NEAR(r["ball.friction"][k], b * t, 1e-9) << t;
      EXPECT_NEAR(spin, 0.0, 1e-12) << t;
    } else if (t > t_slip + 1e-6) {
      EXPECT_EQ(r["ball.friction_mode"][k], 1.0) << t;
      EXPECT_NEAR(r["ball.friction"][k], limit, 1e-9) << t;
      // w = integral of (b s - limit)/I from t_slip: b (t - t_slip)^2 / (2 I)
      EXPECT_NEAR(spin, b * (t - t_slip) * (t - t_slip) / (2.0 * inertia), 1e-8) << t;
    }
  }
}

}  // namespace
}  // namespace ictus
