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

#include <array>

#include <Eigen/Dense>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

// The ladder put at rest: its two stuck holds stop one motion, so their
// forces are statically indeterminate (docs/theory/friction.md, "Stuck holds
// that other rows make dependent"). It stays at rest where some split lies
// within both cones, up to the classical limit tan(theta) = 2 mu1 / (1 - mu1
// mu2) from the wall (0.5680 rad), whichever guide the file declares first;
// beyond it both ends slip at once. Before, the kept hold carried the whole
// load: at 0.55 rad the foot needed 30.07 N against 29.43 N and was let go,
// and with the top declared first it carried 49.05 N against none at 0.4 rad.
std::string ladder_text(bool top_first) {
  std::ifstream in(test::source_path("tests/models/ladder_friction.yaml"));
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  if (!top_first) return yaml;
  const std::size_t foot = yaml.find("  foot:\n"), top = yaml.find("  top:\n");
  const std::size_t end = yaml.find("initial_velocities:");
  return yaml.substr(0, foot) + yaml.substr(top, end - top) + yaml.substr(foot, top - foot) +
         yaml.substr(end);
}

TEST(LadderFriction, ALadderAtRestStaysUpToTheClassicalLimitAndSlidesBeyond) {
  const double limit = std::atan(2 * kMu1 / (1 - kMu1 * kMu2));  // 0.56800 rad
  for (const bool top_first : {false, true}) {
    for (const double th0 : {0.4, 0.55, 0.565, 0.572, 0.6}) {
      Model model = parse_model(ladder_text(top_first), "ladder_at_rest.yaml",
                                {{"th0", fmt::format("{}", th0)}, {"w0", "0"}});
      model.settings().until = 0.1;
      const test::RecordedRun r = test::run_and_record(
          model, {"foot.x", "foot.v", "foot.normal", "top.normal", "foot.friction", "top.friction",
                  "foot.friction_mode", "top.friction_mode", "energy.balance"});
      const std::string where = fmt::format("th0 {} top first {}", th0, top_first);
      ASSERT_DOUBLE_EQ(r.t.back(), 0.1) << where;
      EXPECT_LT(r.max_abs("energy.balance"), 1e-9) << where;
      for (std::size_t k = 0; k < r.t.size(); ++k) {
        const double N1 = r["foot.normal"][k], N2 = r["top.normal"][k];
        if (th0 < limit) {
          // at rest, both stuck, each friction force within its cone and
          // the two with the normal forces balancing the weight
          ASSERT_EQ(r["foot.friction_mode"][k], 0.0) << where << " at " << r.t[k];
          ASSERT_EQ(r["top.friction_mode"][k], 0.0) << where << " at " << r.t[k];
          EXPECT_NEAR(r["foot.x"][k], kLength * std::sin(th0), 1e-12) << where;
          EXPECT_LE(std::abs(r["foot.friction"][k]), kMu1 * N1 * (1 + 1e-9)) << where;
          EXPECT_LE(std::abs(r["top.friction"][k]), kMu2 * N2 * (1 + 1e-9)) << where;
          // (the friction forces act on the ladder along +x at the foot, +y at the top)
          EXPECT_NEAR(r["foot.friction"][k], -N2, 1e-9 * N1) << where;
          EXPECT_NEAR(N1 + r["top.friction"][k], kMass * kG, 1e-9 * N1) << where;
        } else if (r.t[k] > 0.0) {
          // sliding from the start: both ends slip, the Newton-Euler equations
          EXPECT_NE(r["foot.friction_mode"][k], 0.0) << where << " at " << r.t[k];
          EXPECT_NE(r["top.friction_mode"][k], 0.0) << where << " at " << r.t[k];
          const double th = std::asin(r["foot.x"][k] / kLength);
          const double w = r["foot.v"][k] / (kLength * std::cos(th));
          const Eigen::Vector3d x = ladder(th, w);
          EXPECT_NEAR(N1, x(1), 1e-8 * x(1)) << where << " at " << r.t[k];
          EXPECT_NEAR(N2, x(2), 1e-8 * x(1)) << where << " at " << r.t[k];
        }
      }
    }
  }
}

// The ladder at rest at 0.5 rad, pushed out at its centre of mass by P = b t:
// it stands while a split of the two stuck forces lies within both cones,
// and both ends start to slip together where none does, at
//   P = m g (tan(th) (1 + mu1 mu2) / 2 - mu1 (1 + mu2 tan(th))) /
//       ((1 + mu1 mu2) / 2 - 1 - mu2 tan(th))          (7.3226 N),
// both forces at their limits (the foot's against its way out, the top's up).
TEST(LadderFriction, APushedLadderStartsToSlipAtBothEndsTogetherAtTheClassicalLoad) {
  const double th = 0.5, b = 10.0, t = std::tan(th), w = kMass * kG;
  const double P = w * (t * (1 + kMu1 * kMu2) / 2 - kMu1 * (1 + kMu2 * t)) /
                   ((1 + kMu1 * kMu2) / 2 - 1 - kMu2 * t);
  for (const bool top_first : {false, true}) {
    std::string yaml = ladder_text(top_first);
    const std::size_t at = yaml.find("initial_velocities:");
    yaml = yaml.substr(0, at) +
           "forces:\n  push: {type: force, on: ladder, direction: [1, 0, 0], value: b*t}\n" +
           yaml.substr(at);
    yaml = yaml.substr(0, yaml.find("parameters:\n") + 12) + "  b: 10\n" +
           yaml.substr(yaml.find("parameters:\n") + 12);
    Model model = parse_model(yaml, "pushed_ladder.yaml", {{"th0", "0.5"}, {"w0", "0"}});
    model.settings().until = 1.0;
    const test::RecordedRun r = test::run_and_record(
        model, {"foot.x", "foot.friction_mode", "top.friction_mode", "energy.balance"});
    ASSERT_DOUBLE_EQ(r.t.back(), 1.0) << top_first;
    std::vector<EventRecord> slips;
    for (const EventRecord& e : r.events) {
      if (e.kind == "reversal" || (e.kind == "stick" && e.t > 0.0)) ADD_FAILURE() << e.detail;
      if (e.kind == "slip") slips.push_back(e);
    }
    ASSERT_EQ(slips.size(), 2u) << top_first;
    for (const EventRecord& e : slips) {
      EXPECT_NEAR(e.t, P / b, 1e-7) << e.name << " top first " << top_first;
      EXPECT_NE(e.detail.find(e.name == "foot.friction" ? "-> +1" : "-> -1"), std::string::npos)
          << e.detail;
    }
    for (std::size_t k = 0; k < r.t.size(); ++k) {
      if (r.t[k] < P / b - 1e-6) {
        EXPECT_EQ(r["foot.friction_mode"][k], 0.0) << r.t[k];
        EXPECT_NEAR(r["foot.x"][k], kLength * std::sin(th), 1e-12) << r.t[k];
      } else if (r.t[k] > P / b + 1e-6) {
        EXPECT_EQ(r["foot.friction_mode"][k], 1.0) << r.t[k];
        EXPECT_EQ(r["top.friction_mode"][k], -1.0) << r.t[k];
      }
    }
    EXPECT_LT(r.max_abs("energy.balance"), 1e-9) << top_first;
  }
}

// The ladder at rest at 0.5 rad pushed toward the wall by P = b t at a
// point a tenth of the way up from its foot: the foot slides in (-1), the
// top up (+1), both forces at their limits, where (statics about the foot,
// F1 = mu1 N1 along +x, F2 = -mu2 N2)
//   P ((cos th - mu2 sin th) / (1 + mu1 mu2) - cos th / 10)
//       = m g (sin th / 2 + mu1 (cos th - mu2 sin th) / (1 + mu1 mu2)),
// b chosen to reach it at t = 1 (69.6006 N). Both limits are reached
// together (the split of the two stuck forces keeps them equally far
// within); let go together, each was stuck again alone at its limit by the
// decision at zero rate, until the rounds of the instant ran out with the
// foot stuck: it then held 18 N beyond its cone while the load grew.
TEST(LadderFriction, ALadderPushedTowardTheWallNearItsFootSlipsAtBothEndsAtTheClassicalLoad) {
  const double th = 0.5, s = std::sin(th), c = std::cos(th), m = kMass;
  const double slant = (c - kMu2 * s) / (1 + kMu1 * kMu2);
  const double b = m * kG * (s / 2 + kMu1 * slant) / (slant - c / 10);
  std::string yaml = ladder_text(false);
  const std::size_t at = yaml.find("initial_velocities:");
  yaml = yaml.substr(0, at) +
         fmt::format(
             "forces:\n  push: {{type: force, on: ladder, at: [{}, {}, 0], direction: "
             "[-1, 0, 0], value: {}*t}}\n",
             0.9 * kLength * s, 0.1 * kLength * c, b) +
         yaml.substr(at);
  Model model = parse_model(yaml, "pushed_in_ladder.yaml", {{"th0", "0.5"}, {"w0", "0"}});
  model.settings().until = 1.3;
  const test::RecordedRun r = test::run_and_record(
      model, {"foot.x", "foot.normal", "top.normal", "foot.friction", "top.friction",
              "foot.friction_mode", "top.friction_mode", "energy.balance"});
  ASSERT_DOUBLE_EQ(r.t.back(), 1.3);
  int slips = 0;
  for (const EventRecord& e : r.events) {
    if (e.kind == "stick" && e.t > 0.0) ADD_FAILURE() << e.name << " " << e.detail;
    if (e.kind != "slip" || e.detail.find("mode +0 ->") == std::string::npos) continue;
    ++slips;
    EXPECT_NEAR(e.t, 1.0, 1e-7) << e.name;
    EXPECT_NE(e.detail.find(e.name == "foot.friction" ? "-> -1" : "-> +1"), std::string::npos)
        << e.detail;
  }
  EXPECT_EQ(slips, 2);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k], N1 = r["foot.normal"][k], N2 = r["top.normal"][k];
    if (t < 1.0 - 1e-6) {
      EXPECT_NEAR(r["foot.x"][k], kLength * s, 1e-12) << t;
      EXPECT_LE(std::abs(r["foot.friction"][k]), kMu1 * std::abs(N1) * (1 + 1e-9)) << t;
      EXPECT_LE(std::abs(r["top.friction"][k]), kMu2 * std::abs(N2) * (1 + 1e-9)) << t;
    } else if (t > 1.0 + 1e-6) {
      EXPECT_LT(r["foot.x"][k], kLength * s) << t;  // sliding in
      EXPECT_EQ(r["foot.friction_mode"][k], -1.0) << t;
      EXPECT_EQ(r["top.friction_mode"][k], 1.0) << t;
      EXPECT_NEAR(std::abs(r["foot.friction"][k]), kMu1 * std::abs(N1), 1e-9 * m * kG) << t;
      EXPECT_NEAR(std::abs(r["top.friction"][k]), kMu2 * std::abs(N2), 1e-9 * m * kG) << t;
    }
  }
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
}

// The ladder as a box (length L, width w, thickness w) leaning with its
// lower edge on a rough floor and its upper edge against a rough wall, each
// edge resting on two corners: four contacts (mu = mu_s = 0.3 at both), their
// eight tangents stuck at rest on a body of six degrees of freedom, the
// forces indeterminate along several directions at once. The corners touch
// at A = (L sin th, 0) and B = (0, L cos th), the centre of mass lies w / 2
// off AB away from the wall, and the statics of both ends slipping give the
// limit
//   tan th = (mu1 L + (1 + mu1 mu2) w / 2) / ((1 - mu1 mu2) L / 2)  (0.6035 rad).
// Below it the ladder stands with some split of the forces within every
// cone; beyond it the foot slides out and the top down from the start.
// Before, the decision at zero rate searched the indeterminate forces at a
// few points only, found no split, and stopped the run at t = 0 as
// Painleve's paradox at 0.5 rad.
constexpr const char* kBoxLadder = R"(ictus: 1
name: box ladder on a rough floor against a rough wall
parameters: {m: 10, L: 2, w: 0.05, mu: 0.3, th: 0.5, g: 9.81}
bodies:
  ladder:
    mass: m
    inertia: [m*L^2/12, m*L^2/12, m*L^2/12]
    position: [w/2*cos(th) + L/2*sin(th), w/2*sin(th) + L/2*cos(th), 0]
    orientation: {bryant: [0, 0, th]}
shapes:
  rod: {body: ladder, type: box, size: [w, L, w]}
  floor_plane: {body: ground, type: plane, normal: [0, 1, 0]}
  wall_plane: {body: ground, type: plane, normal: [1, 0, 0]}
contacts:
  c: {type: shapes, between: [ground, ladder], friction: mu}
gravity: [0, -g, 0]
simulate: {until: 0.1, output_step: 0.01, rtol: 1e-10, atol: 1e-12}
)";

TEST(LadderFriction, ABoxLadderOnFourRoughCornersStandsUpToItsLimitAndSlidesBeyond) {
  const double mu = 0.3, w = 0.05;
  const double limit =
      std::atan((mu * kLength + (1 + mu * mu) * w / 2) / ((1 - mu * mu) * kLength / 2));
  // the corners on the floor (their x tangent along +x) and on the wall (along +y)
  const std::array<const char*, 2> floor = {"c.p0", "c.p4"}, wall = {"c.p10", "c.p14"};
  std::vector<std::string> channels = {"ladder.bryant_z", "energy.balance"};
  for (const char* p : {"c.p0", "c.p4", "c.p10", "c.p14"})
    for (const char* channel : {".normal", ".friction_x", ".friction_y", ".friction_mode_x"})
      channels.push_back(std::string(p) + channel);
  for (const double th : {0.5, limit - 0.005, limit + 0.005}) {
    const test::RecordedRun r = test::run_and_record(
        parse_model(kBoxLadder, "box ladder", {{"th", fmt::format("{}", th)}}), channels);
    ASSERT_DOUBLE_EQ(r.t.back(), 0.1) << th;
    EXPECT_LT(r.max_abs("energy.balance"), 1e-9) << th;
    for (std::size_t k = 1; k < r.t.size(); ++k) {
      const std::string where = fmt::format("th {} at {}", th, r.t[k]);
      double floor_normal = 0.0, floor_friction = 0.0, wall_normal = 0.0, wall_friction = 0.0;
      for (const char* p : floor) {
        floor_normal += r[std::string(p) + ".normal"][k];
        floor_friction += r[std::string(p) + ".friction_x"][k];
      }
      for (const char* p : wall) {
        wall_normal += r[std::string(p) + ".normal"][k];
        wall_friction += r[std::string(p) + ".friction_x"][k];
      }
      if (th < limit) {
        EXPECT_NEAR(r["ladder.bryant_z"][k], th, 1e-12) << where;
        for (const char* p : {"c.p0", "c.p4", "c.p10", "c.p14"}) {
          const std::string c = p;
          ASSERT_EQ(r[c + ".friction_mode_x"][k], 0.0) << c << " " << where;
          const double N = r[c + ".normal"][k];
          EXPECT_GT(N, 0.0) << c << " " << where;
          EXPECT_LE(std::hypot(r[c + ".friction_x"][k], r[c + ".friction_y"][k]),
                    std::sqrt(2.0) * mu * N * (1 + 1e-9))
              << c << " " << where;
          EXPECT_LE(std::abs(r[c + ".friction_x"][k]), mu * N * (1 + 1e-9)) << c << " " << where;
        }
        // at rest: the forces balance the weight
        EXPECT_NEAR(floor_friction + wall_normal, 0.0, 1e-9 * kMass * kG) << where;
        EXPECT_NEAR(floor_normal + wall_friction, kMass * kG, 1e-9 * kMass * kG) << where;
      } else {
        // sliding from the start: the foot out, the top down, each at mu N
        EXPECT_GT(r["ladder.bryant_z"][k], th) << where;
        for (const char* p : floor)
          EXPECT_EQ(r[std::string(p) + ".friction_mode_x"][k], 1.0) << p << " " << where;
        for (const char* p : wall)
          EXPECT_EQ(r[std::string(p) + ".friction_mode_x"][k], -1.0) << p << " " << where;
        EXPECT_NEAR(floor_friction, -mu * floor_normal, 1e-9 * kMass * kG) << where;
        EXPECT_NEAR(wall_friction, mu * wall_normal, 1e-9 * kMass * kG) << where;
      }
    }
  }
}

}  // namespace
}  // namespace ictus
