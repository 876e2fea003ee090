// Two frictional joints coupled through one degree of freedom
// (tests/models/ladder_friction.yaml): a ladder sliding with Coulomb friction
// at the floor (mu1) and at the wall (mu2), each normal force a guide's
// reaction. ictus solves the two friction forces together by enumerating the
// sides of the two normal forces (docs/theory/friction.md); here the
// Newton-Euler equations of the rod, written out with N1, N2 > 0 and both
// ends slipping (theta' > 0: the foot moves out, the top down), give theta'',
// N1 and N2 at every recorded state.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kMass = 10, kLength = 2, kMu1 = 0.3, kMu2 = 0.2, kG = 9.81;

// (theta'', N1, N2): m x_G'' = N2 - mu1 N1, m y_G'' = N1 + mu2 N2 - m g,
// I theta'' = moment about G of (-mu1 N1, N1) at A and (N2, mu2 N2) at B
Eigen::Vector3d ladder(double th, double w) {
  const double s = std::sin(th), c = std::cos(th), h = kLength / 2;
  Eigen::Matrix3d A;
  A << kMass * h * c, kMu1, -1.0,  //
      kMass * h * s, 1.0, kMu2,    //
      kMass * kLength * kLength / 12, -h * (s - kMu1 * c), h * (kMu2 * s + c);
  const Eigen::Vector3d b(kMass * h * s * w * w, kMass * kG - kMass * h * c * w * w, 0.0);
  return A.fullPivLu().solve(b);
}

TEST(LadderFriction, TwoCoupledFrictionalGuidesMatchTheNewtonEulerEquations) {
  const test::RecordedRun r =
      test::run_and_record(load_model(test::source_path("tests/models/ladder_friction.yaml")),
                           {"foot.x", "foot.v", "foot.normal", "top.normal", "foot.friction",
                            "top.friction", "ladder.alphaz", "energy.balance"});
  double worst = 0.0;
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double th = std::asin(r["foot.x"][k] / kLength);
    const double w = r["foot.v"][k] / (kLength * std::cos(th));
    ASSERT_GT(w, 0.0);
    const Eigen::Vector3d x = ladder(th, w);
    ASSERT_GT(x(1), 0.0);
    ASSERT_GT(x(2), 0.0);
    const double e = std::max({std::abs(r["ladder.alphaz"][k] - x(0)) / (1 + std::abs(x(0))),
                               std::abs(r["foot.normal"][k] - x(1)) / x(1),
                               std::abs(r["top.normal"][k] - x(2)) / x(2)});
    EXPECT_LT(e, 1e-8) << r.t[k];
    worst = std::max(worst, e);
    // each friction force opposes its slip with mu |N|
    EXPECT_NEAR(r["foot.friction"][k], -kMu1 * r["foot.normal"][k], 1e-9 * x(1));
    EXPECT_NEAR(r["top.friction"][k], kMu2 * r["top.normal"][k], 1e-9 * x(2));
  }
  EXPECT_LT(r.max_abs("energy.balance"), 1e-8);
  fmt::print("ladder with two frictional guides: {} states within {:.2e} (relative)\n", r.t.size(),
             worst);
}

}  // namespace
}  // namespace ictus
