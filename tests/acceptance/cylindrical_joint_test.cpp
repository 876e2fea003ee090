// Seed 002 check cases 5A and 5B (shared/reference/REPORT.md, case 5): a
// cylindrical joint built from two point-on-plane and two rotation locks.
// Reference values and tolerances (1e-9 relative) from the report.
#include <gtest/gtest.h>

#include <cmath>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kTol = 1e-9;  // REPORT.md: "1e-9 relative ... with a tight integrator"

std::size_t sample_at(const test::RecordedRun& run, double t) {
  for (std::size_t k = 0; k < run.t.size(); ++k)
    if (std::abs(run.t[k] - t) < 1e-9) return k;
  ADD_FAILURE() << "no sample at t = " << t;
  return 0;
}

Vec3 vec(const test::RecordedRun& run, const std::string& prefix, std::size_t k,
         const std::string& suffix = "") {
  return {run[prefix + "x" + suffix][k], run[prefix + "y" + suffix][k],
          run[prefix + "z" + suffix][k]};
}

TEST(CylindricalJoint5A, SpinAndSlideOnAnInclinedAxis) {
  const Model model = load_model(test::source_path("examples/cylindrical_spin_5a.yaml"));
  const test::RecordedRun run =
      test::run_and_record(model, {"body.x", "body.y", "body.z", "body.vx", "body.vy", "body.vz",
                                   "body.qw", "body.qx", "body.qy", "body.qz", "slide.Fx",
                                   "slide.Fy", "slide.Fz", "slide.Mx", "slide.My", "slide.Mz"});
  const double alpha = std::acos(-1.0) / 6.0;
  const Vec3 e(std::cos(alpha), 0.0, std::sin(alpha));
  const Mat3 inertia = (Mat3() << 0.5, 0.02, -0.03, 0.02, 0.7, 0.05, -0.03, 0.05, 0.9).finished();
  const Vec3 force_exact(-12.7435638167, 0.0, 22.0725);
  ASSERT_GT(run.t.size(), 30u);
  for (std::size_t k = 0; k < run.t.size(); ++k) {
    const double t = run.t[k];
    // translation along e: s = 0.4 t + (g.e) t^2 / 2, g.e = -4.905
    const double s = 0.4 * t - 2.4525 * t * t;
    EXPECT_LT((vec(run, "body.", k) - s * e).norm(), kTol * std::max(1.0, std::abs(s)));
    EXPECT_LT((vec(run, "body.v", k) - (0.4 - 4.905 * t) * e).norm(), kTol * 10.0);
    // rotation 3 t about e
    const Mat3 r_exact = Eigen::AngleAxisd(3.0 * t, e).toRotationMatrix();
    const Quat q(run["body.qw"][k], run["body.qx"][k], run["body.qy"][k], run["body.qz"][k]);
    const double angle_error =
        Eigen::AngleAxisd(q.toRotationMatrix() * r_exact.transpose()).angle();
    EXPECT_LT(angle_error, kTol);
    // reaction force constant; moment w0^2 e x (R I R^T e)
    EXPECT_LT((vec(run, "slide.F", k) - force_exact).norm(), kTol * force_exact.norm());
    const Vec3 moment_exact = 9.0 * e.cross(r_exact * inertia * r_exact.transpose() * e);
    EXPECT_LT((vec(run, "slide.M", k) - moment_exact).norm(), kTol * 1.5) << "t = " << t;
  }
  // the values printed in the report
  const Vec3 m05(0.6966681327, -0.4806493140, -1.2066646018);
  const Vec3 m1(0.2890029947, 1.3558461519, -0.5005678704);
  const Vec3 m2(-0.3817793062, -1.2607093070, 0.6612611557);
  EXPECT_LT((vec(run, "slide.M", sample_at(run, 0.5)) - m05).norm(), 1e-9);
  EXPECT_LT((vec(run, "slide.M", sample_at(run, 1.0)) - m1).norm(), 1e-9);
  EXPECT_LT((vec(run, "slide.M", sample_at(run, 2.0)) - m2).norm(), 1e-9);
  EXPECT_NEAR(vec(run, "body.", sample_at(run, 1.0)).dot(e), -2.0525, 1e-9);
  EXPECT_NEAR(vec(run, "body.v", sample_at(run, 1.0)).dot(e), -4.505, 1e-9);
  EXPECT_NEAR(vec(run, "body.", sample_at(run, 2.0)).dot(e), -9.01, 1e-9);
}

TEST(CylindricalJoint5B, PendulumOnACylindricalJoint) {
  Model model = load_model(test::source_path("examples/cylindrical_pendulum_5b.yaml"));
  Event mark;
  mark.name = "upswing";
  mark.condition = Condition{Expression("pendulum.wx > 0")};
  model.add_event(mark);
  Simulation simulation(model);
  Recorder recorder({"pendulum.x", "pendulum.y", "pendulum.z", "axle.Fx", "axle.Fy", "axle.Fz",
                     "axle.Mx", "axle.My", "axle.Mz"});
  simulation.add_observer(recorder);
  simulation.run();
  test::RecordedRun run;
  run.t = recorder.times();
  run.channels = recorder.channels();
  for (const std::string& c : run.channels) run.values.push_back(recorder.series(c));

  // exact period 4 K(sin^2(phi0/2)) / w_p = 1.324423915676 s, from the
  // upward crossings of the swing rate
  std::vector<double> crossings;
  for (const EventRecord& r : simulation.events())
    if (r.kind == "event" && r.name == "upswing") crossings.push_back(r.t);
  ASSERT_GE(crossings.size(), 2u);
  for (std::size_t k = 1; k < crossings.size(); ++k)
    EXPECT_LT(test::relative_error(crossings[k] - crossings[k - 1], 1.324423915676), kTol);

  // swing angle from the centre of mass (s, d sin phi, -d cos phi)
  const struct {
    double t, phi;
  } kAngles[] = {
      {0.1, 0.893603717844}, {0.25, 0.382550219121}, {0.5, -0.725875883249}, {1.0, 0.032405986480}};
  for (const auto& [t, phi] : kAngles) {
    const std::size_t k = sample_at(run, t);
    EXPECT_NEAR(std::atan2(run["pendulum.y"][k], -run["pendulum.z"][k]), phi, kTol) << t;
    EXPECT_NEAR(run["pendulum.x"][k], 0.2 * t, kTol) << t;  // axial motion is decoupled
  }
  // reactions at release (10 digits in the report)
  const Vec3 force0(0.0, -6.9810321578, 8.7476865914);
  const Vec3 moment0(0.0, -0.2613147147, -0.0881247947);
  EXPECT_LT((vec(run, "axle.F", 0) - force0).norm(), 1e-9 * force0.norm());
  EXPECT_LT((vec(run, "axle.M", 0) - moment0).norm(), 1e-9 * moment0.norm() + 1e-10);
}

}  // namespace
}  // namespace ictus
