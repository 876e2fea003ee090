// Orientation as angles (issue 17, part 2): Bryant x-y-z and Euler z-x-z
// angles and direction cosines of bodies and joints as channels, and as the
// input `orientation: {bryant: [...]}` / `{euler: [...]}`.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "ictus/orientation_angles.h"
#include "ictus/simulation.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kPi = std::numbers::pi;

double channel(System& system, const std::string& name) {
  const int k = system.find_channel(name);
  EXPECT_GE(k, 0) << name;
  return system.channel_value(k);
}

const std::vector<Vec3> kAngles = {{0.3, -0.7, 2.1}, {-2.9, 1.2, -0.4}, {3.0, -1.5, 3.1},
                                   {0.0, 0.0, 0.0},  {-1.0, 0.01, 1.0}, {2.5, -0.2, -3.0}};

TEST(OrientationAngles, BryantRoundTrip) {
  for (const Vec3& a : kAngles) {
    const Mat3 R = quat_from_bryant(a).toRotationMatrix();
    // R = Rx(a) Ry(b) Rz(c) of rotating axes
    const Mat3 expected =
        (Eigen::AngleAxisd(a[0], Vec3::UnitX()) * Eigen::AngleAxisd(a[1], Vec3::UnitY()) *
         Eigen::AngleAxisd(a[2], Vec3::UnitZ()))
            .toRotationMatrix();
    EXPECT_LT((R - expected).norm(), 1e-14);
    EXPECT_LT((bryant_angles(R) - a).norm(), 1e-12) << a.transpose();
  }
}

TEST(OrientationAngles, EulerRoundTrip) {
  for (const Vec3& b : kAngles) {
    // theta in [0, pi]: the same rotation has (phi + pi, -theta, psi + pi)
    const Vec3 a(b[0], std::abs(b[1]) + 0.05, b[2]);
    const Mat3 R = quat_from_euler_zxz(a).toRotationMatrix();
    EXPECT_LT((euler_zxz_angles(R) - a).norm(), 1e-12) << a.transpose();
  }
}

// At gimbal lock only a + c (Bryant) or phi + psi (Euler) is defined: the
// third angle is set to 0, the angles are finite and give back the rotation.
TEST(OrientationAngles, GimbalLockIsFiniteAndGivesTheRotationBack) {
  for (const double sign : {1.0, -1.0}) {
    const Mat3 R = quat_from_bryant({0.4, sign * kPi / 2, 0.3}).toRotationMatrix();
    const Vec3 a = bryant_angles(R);
    ASSERT_TRUE(a.allFinite());
    EXPECT_EQ(a[2], 0.0);
    EXPECT_NEAR(a[1], sign * kPi / 2, 1e-12);
    EXPECT_LT((quat_from_bryant(a).toRotationMatrix() - R).norm(), 1e-12);
  }
  for (const double theta : {0.0, kPi}) {
    const Mat3 R = quat_from_euler_zxz({0.5, theta, 0.2}).toRotationMatrix();
    const Vec3 e = euler_zxz_angles(R);
    ASSERT_TRUE(e.allFinite());
    EXPECT_EQ(e[2], 0.0);
    EXPECT_LT((quat_from_euler_zxz(e).toRotationMatrix() - R).norm(), 1e-12);
  }
}

// The input forms and the channels: a body given by Bryant angles reads them
// back (and the Euler angles and direction cosines of the same rotation).
TEST(OrientationAngles, InputFormsRoundTripThroughTheChannels) {
  const Model model = parse_model(R"(
bodies:
  a: {mass: 1, inertia: [1, 2, 3], orientation: {bryant: [0.3, -0.7, 2.1]}}
  b: {mass: 1, inertia: [1, 2, 3], orientation: {euler: [-2.9, 1.2, -0.4]}}
  c: {mass: 1, inertia: [1, 2, 3], orientation: {bryant: [30*deg, 0, 0]}}
simulate: {until: 0.1}
)",
                                  "inline.yaml");
  System system(model);
  system.evaluate(0.0, system.initial_state(), Stage::kKinematics);
  EXPECT_NEAR(channel(system, "a.bryant_x"), 0.3, 1e-12);
  EXPECT_NEAR(channel(system, "a.bryant_y"), -0.7, 1e-12);
  EXPECT_NEAR(channel(system, "a.bryant_z"), 2.1, 1e-12);
  EXPECT_NEAR(channel(system, "b.euler_phi"), -2.9, 1e-12);
  EXPECT_NEAR(channel(system, "b.euler_theta"), 1.2, 1e-12);
  EXPECT_NEAR(channel(system, "b.euler_psi"), -0.4, 1e-12);
  EXPECT_NEAR(channel(system, "c.bryant_x"), kPi / 6, 1e-12);
  const Mat3 Ra = quat_from_bryant({0.3, -0.7, 2.1}).toRotationMatrix();
  const Vec3 euler = euler_zxz_angles(Ra);
  EXPECT_NEAR(channel(system, "a.euler_phi"), euler[0], 1e-12);
  EXPECT_NEAR(channel(system, "a.euler_theta"), euler[1], 1e-12);
  EXPECT_NEAR(channel(system, "a.euler_psi"), euler[2], 1e-12);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(channel(system, "a.R" + std::to_string(i + 1) + std::to_string(j + 1)), Ra(i, j),
                  1e-14);
}

// A body spinning about x for two full turns: Bryant a grows continuously to
// 4 pi (unwrapped), b and c stay 0; Euler phi likewise for a spin about z; a
// revolute joint's relative Bryant z follows its angle.
TEST(OrientationAngles, ContinuousThroughFullTurns) {
  const Model model = parse_model(R"(
gravity: [0, 0, 0]
bodies:
  sx: {mass: 1, inertia: [1, 1, 1], angular_velocity: [2*pi, 0, 0]}
  sz: {mass: 1, inertia: [1, 1, 1], angular_velocity: [0, 0, 2*pi]}
  wheel: {mass: 1, inertia: [1, 1, 1], angular_velocity: [0, 0, 2*pi]}
joints:
  hinge: {type: revolute, between: [ground, wheel], at: [0, 0, 0], axis: [0, 0, 1]}
simulate: {until: 2, output_step: 0.01, rtol: 1e-10, atol: 1e-12}
)",
                                  "inline.yaml");
  const test::RecordedRun run =
      test::run_and_record(model, {"sx.bryant_x", "sx.bryant_y", "sx.bryant_z", "sz.euler_phi",
                                   "hinge.bryant_z", "hinge.angle"});
  for (std::size_t k = 0; k < run.t.size(); ++k) {
    const double t = run.t[k];
    EXPECT_NEAR(run["sx.bryant_x"][k], 2 * kPi * t, 1e-7) << t;
    EXPECT_NEAR(run["sx.bryant_y"][k], 0.0, 1e-9) << t;
    EXPECT_NEAR(run["sx.bryant_z"][k], 0.0, 1e-9) << t;
    EXPECT_NEAR(run["sz.euler_phi"][k], 2 * kPi * t, 1e-7) << t;
    EXPECT_NEAR(run["hinge.bryant_z"][k], run["hinge.angle"][k], 1e-9) << t;
  }
  EXPECT_NEAR(run.final("sx.bryant_x"), 4 * kPi, 1e-7);
}

// The angles are followed only once looked up (they cost 9 % of a
// slider-crank run): a caller that reads a spinning body's angle first after
// 1.7 turns gets it wrapped, unless it asked for every angle to be followed
// from the start; one that looks it up before the run gets it continuous.
TEST(OrientationAngles, FollowedFromTheirFirstLookUpOrWhenAsked) {
  const Model model = parse_model(R"(
gravity: [0, 0, 0]
bodies:
  sx: {mass: 1, inertia: [1, 1, 1], angular_velocity: [2*pi, 0, 0]}
simulate: {until: 2, output_step: 0.01, max_step: 0.01}
)",
                                  "inline.yaml");
  auto angle_at = [&](bool follow_all, bool look_up_first) {
    Simulation sim(model);
    if (follow_all) sim.system().follow_orientation_channels();
    if (look_up_first) sim.system().find_channel("sx.bryant_x");
    sim.advance_to(1.7);
    sim.system().evaluate(sim.time(), sim.state(), Stage::kKinematics);
    return channel(sim.system(), "sx.bryant_x");
  };
  EXPECT_NEAR(angle_at(true, false), 2 * kPi * 1.7, 1e-7);
  EXPECT_NEAR(angle_at(false, true), 2 * kPi * 1.7, 1e-7);
  EXPECT_NEAR(angle_at(false, false), 2 * kPi * (1.7 - 2.0), 1e-7);
}

// Three angles under a convention name ictus does not know.
TEST(OrientationAngles, UnknownConventionIsAModelError) {
  try {
    (void)parse_model(
        "bodies: {a: {mass: 1, inertia: [1, 1, 1], orientation: {cardan: [0, 0, 1]}}}\n",
        "inline.yaml");
    FAIL() << "no error";
  } catch (const ModelError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("inline.yaml:1:"), std::string::npos) << what;
    EXPECT_NE(what.find("'cardan' is not an angle convention"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace ictus
