// Contacts between body shapes: a ball dropped on a plane against the closed
// form (impacts, rebounds, the accumulation point, rest with N = m g); two
// spheres and a wall hit at once; a box dropped flat on four corners.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

// "gap rate A -> B; ..." of an impact record
std::pair<double, double> rates_of(const EventRecord& r) {
  const auto at = r.detail.find("gap rate ");
  const auto arrow = r.detail.find(" -> ", at);
  return {std::stod(r.detail.substr(at + 9)), std::stod(r.detail.substr(arrow + 4))};
}

// A ball of radius r dropped from h0 (centre height) on the plane z = 0:
// free fall from h = h0 - r, v0 = sqrt(2 g h), first impact at sqrt(2 h/g),
// then flights 2 e^n v0 / g, apex heights (e^n v0)^2 / (2 g), and the
// accumulation at t_inf = sqrt(2 h/g) + 2 e v0 / (g (1 - e)).
TEST(ContactShapes, BallDropAgainstTheClosedForm) {
  const double g = 9.81, r = 0.1, h0 = 1.0, e = 0.9, m = 1.5;
  const Model model = parse_model(fmt::format(R"(
gravity: [0, 0, -{}]
bodies:
  ball: {{mass: {}, inertia: [0.006, 0.006, 0.006], position: [0, 0, {}]}}
shapes:
  ball_shape: {{body: ball, type: sphere, radius: {}}}
  floor_plane: {{body: ground, type: plane, normal: [0, 0, 1]}}
contacts:
  floor: {{type: shapes, between: [ball, ground], restitution: {}}}
simulate: {{until: 10, output_step: 0.01, rtol: 1e-12, atol: 1e-14}}
)",
                                              g, m, h0, r, e),
                                  "ball.yaml");
  const test::RecordedRun run =
      test::run_and_record(model, {"ball.z", "floor.normal", "floor.state", "energy.balance"});
  const double h = h0 - r;
  const double v0 = std::sqrt(2 * g * h);
  double t = std::sqrt(2 * h / g);
  double v = v0;
  int n = 0;
  for (const EventRecord& rec : run.events) {
    if (rec.kind != "impact") continue;
    const auto [before, after] = rates_of(rec);
    if (std::abs(after) < 1e-12) break;  // the accumulation's plastic impact
    SCOPED_TRACE(n);
    EXPECT_NEAR(rec.t, t, 1e-8);
    EXPECT_NEAR(before, -v, 1e-8);
    // the rebound, and so the next apex height v^2 / (2 g) above r
    EXPECT_NEAR(after, e * v, 1e-8);
    v *= e;
    t += 2 * v / g;
    ++n;
  }
  EXPECT_GT(n, 100);
  const double t_inf = std::sqrt(2 * h / g) + 2 * e * v0 / (g * (1 - e));
  int accumulations = 0;
  for (const EventRecord& rec : run.events)
    if (rec.kind == "accumulation") {
      ++accumulations;
      EXPECT_NEAR(test::accumulation_point(rec), t_inf, 1e-8);
    }
  EXPECT_EQ(accumulations, 1);
  // rest on the floor with N = m g to the end of the run
  EXPECT_DOUBLE_EQ(run.t.back(), 10.0);
  EXPECT_NEAR(run.final("floor.normal"), m * g, 1e-9);
  EXPECT_NEAR(run.final("ball.z"), r, 1e-12);
  for (std::size_t k = 0; k < run.t.size(); ++k) {
    EXPECT_LE(std::abs(run["energy.balance"][k]), 1e-9);
    if (run.t[k] > t_inf + 1e-6) {
      EXPECT_EQ(run["floor.state"][k], 1.0);
    }
  }
}

// Two equal spheres and a wall (the plane x = 0): sphere 1 rests against
// the wall, sphere 2 hits it at 1 m/s; both contacts take part in one
// impact. e = 1: sphere 2 leaves at 1 m/s, sphere 1 stays; e = 0: both stop.
TEST(ContactShapes, TwoSpheresAndAWallAtOnce) {
  for (const double e : {1.0, 0.0}) {
    SCOPED_TRACE(e);
    const Model model = parse_model(fmt::format(R"(
bodies:
  one: {{mass: 2, inertia: [0.008, 0.008, 0.008], position: [0.1, 0, 0]}}
  two: {{mass: 2, inertia: [0.008, 0.008, 0.008], position: [0.5, 0, 0], velocity: [-1, 0, 0]}}
shapes:
  s1: {{body: one, type: sphere, radius: 0.1}}
  s2: {{body: two, type: sphere, radius: 0.1}}
  wall_plane: {{body: ground, type: plane, normal: [1, 0, 0]}}
contacts:
  wall: {{type: shapes, between: [ground, one], restitution: {}}}
  pair: {{type: shapes, between: [one, two], restitution: {}}}
simulate: {{until: 1, output_step: 0.01, rtol: 1e-12, atol: 1e-14}}
)",
                                                e, e),
                                    "spheres.yaml");
    const test::RecordedRun run = test::run_and_record(
        model, {"one.vx", "two.vx", "wall.impulse", "pair.impulse", "energy.kinetic", "system.px"});
    int impacts = 0;
    for (const EventRecord& rec : run.events)
      if (rec.kind == "impact") {
        ++impacts;
        EXPECT_NEAR(rec.t, 0.2, 1e-12);  // 0.2 m to close at 1 m/s
      }
    EXPECT_EQ(impacts, 2);  // one impact, both sides
    EXPECT_NEAR(run.final("one.vx"), 0.0, 1e-12);
    EXPECT_NEAR(run.final("two.vx"), e, 1e-12);
    double wall = 0.0, pair = 0.0;
    for (std::size_t k = 0; k < run.t.size(); ++k) {
      EXPECT_GE(run["wall.impulse"][k], 0.0);
      EXPECT_GE(run["pair.impulse"][k], 0.0);
      wall = std::max(wall, run["wall.impulse"][k]);
      pair = std::max(pair, run["pair.impulse"][k]);
    }
    // the momentum changes by the wall's impulse alone: 2 (1 + e) N s
    EXPECT_NEAR(wall, 2.0 * (1.0 + e), 1e-12);
    EXPECT_NEAR(pair, 2.0 * (1.0 + e), 1e-12);
    EXPECT_NEAR(run.final("system.px") - run["system.px"].front(), wall, 1e-12);
    if (e == 1.0) {
      EXPECT_NEAR(run.final("energy.kinetic"), 1.0, 1e-12);
    }
  }
}

// Regression: with a loose tolerance the integrator takes one step past the
// contact, carrying sphere 2 beyond sphere 1's centre, where the distance of
// the centres turns back and the gap rate is positive; the switching
// function hid the crossing and the spheres passed through each other.
TEST(ContactShapes, ASphereCarriedPastAnotherInOneStepStillHits) {
  const Model model = parse_model(R"(
bodies:
  one: {mass: 2, inertia: [0.008, 0.008, 0.008], position: [0.1, 0, 0]}
  two: {mass: 2, inertia: [0.008, 0.008, 0.008], position: [0.5, 0, 0], velocity: [-1, 0, 0]}
shapes:
  s1: {body: one, type: sphere, radius: 0.1}
  s2: {body: two, type: sphere, radius: 0.1}
  wall_plane: {body: ground, type: plane, normal: [1, 0, 0]}
contacts:
  wall: {type: shapes, between: [ground, one], restitution: 1}
  pair: {type: shapes, between: [one, two], restitution: 1}
simulate: {until: 0.5, output_step: 0.01, rtol: 1e-9, atol: 1e-12}
)",
                                  "spheres.yaml");
  const test::RecordedRun run = test::run_and_record(model, {"one.vx", "two.vx", "pair.gap"});
  EXPECT_NEAR(run.final("two.vx"), 1.0, 1e-12);
  EXPECT_NEAR(run.final("one.vx"), 0.0, 1e-12);
  for (const double g : run["pair.gap"]) EXPECT_GE(g, -1e-9);
}

// A box dropped flat: its four lower corners hit at once (a redundant set:
// four rows, three independent); it stops without rotating, the impulses are
// >= 0 and equal, and it rests with the four normal forces summing to m g.
TEST(ContactShapes, BoxDroppedFlatStopsWithoutRotating) {
  const Model model = parse_model(R"(
gravity: [0, 0, -9.81]
bodies:
  box: {mass: 4, inertia: [0.05, 0.06, 0.07], position: [0, 0, 0.3]}
shapes:
  body_box: {body: box, type: box, size: [0.4, 0.3, 0.2]}
  floor_plane: {body: ground, type: plane, normal: [0, 0, 1]}
contacts:
  floor: {type: shapes, between: [ground, box], restitution: 0}
simulate: {until: 1, output_step: 0.01, rtol: 1e-12, atol: 1e-14}
)",
                                  "box.yaml");
  std::vector<std::string> channels = {"box.z", "box.wx", "box.wy", "box.wz", "energy.balance"};
  for (int k = 0; k < 8; ++k) {
    channels.push_back(fmt::format("floor.p{}.impulse", k));
    channels.push_back(fmt::format("floor.p{}.normal", k));
  }
  const test::RecordedRun run = test::run_and_record(model, channels);
  double impulses[8] = {};
  for (int k = 0; k < 8; ++k)
    for (const double p : run[fmt::format("floor.p{}.impulse", k)]) {
      EXPECT_GE(p, 0.0);
      impulses[k] = std::max(impulses[k], p);
    }
  // lower corners (z = -0.1 in the body: k & 4 == 0) share the impulse m v
  const double v = std::sqrt(2 * 9.81 * 0.2);
  for (int k = 0; k < 8; ++k) {
    if ((k & 4) != 0) {
      EXPECT_EQ(impulses[k], 0.0);
    } else {
      EXPECT_NEAR(impulses[k], 4.0 * v / 4.0, 1e-9) << k;
    }
  }
  EXPECT_NEAR(run.final("box.z"), 0.1, 1e-9);
  double total = 0.0;
  for (int k = 0; k < 4; ++k) total += run.final(fmt::format("floor.p{}.normal", k));
  EXPECT_NEAR(total, 4.0 * 9.81, 1e-6);
  for (const char* w : {"box.wx", "box.wy", "box.wz"}) EXPECT_LE(run.max_abs(w), 1e-9) << w;
  EXPECT_LE(run.max_abs("energy.balance"), 1e-9);
}

// A plank standing from t0 on five box feet, its 20 lower corners closed at
// rest: a contact problem of 20 sides on three degrees of freedom (17
// redundant). siconos' Lemke ends it with info 1 and a solution whose error
// is 1.25e-14; taken on that flag, the run stopped at t = 0 ("no
// solution"). The error, that of z itself, is what decides (lcp.cpp).
TEST(ContactShapes, APlankOnFiveBoxFeetRestsOnItsTwentyCorners) {
  std::string feet;
  const double at[5][2] = {{-0.5, -0.2}, {0.5, -0.2}, {-0.5, 0.2}, {0.5, 0.2}, {0, 0}};
  for (int f = 0; f < 5; ++f)
    feet += fmt::format(
        "  foot{}: {{body: plank, type: box, at: [{}, {}, -0.1], size: [0.1, 0.1, 0.1]}}\n", f,
        at[f][0], at[f][1]);
  const Model model = parse_model(fmt::format(R"(
gravity: [0, 0, -9.81]
bodies:
  plank: {{mass: 4, inertia: [0.1, 0.5, 0.55], position: [0, 0, 0.15]}}
shapes:
  slab: {{body: plank, type: box, size: [1.2, 0.5, 0.05]}}
{}  floor_plane: {{body: ground, type: plane, normal: [0, 0, 1]}}
contacts:
  floor: {{type: shapes, between: [ground, plank]}}
simulate: {{until: 0.5, output_step: 0.01, rtol: 1e-10, atol: 1e-12}}
)",
                                              feet),
                                  "plank.yaml");
  std::vector<std::string> channels = {"plank.z", "plank.wx", "plank.wy", "energy.balance"};
  for (int k = 0; k < 48; ++k) channels.push_back(fmt::format("floor.p{}.normal", k));
  const test::RecordedRun run = test::run_and_record(model, channels);
  ASSERT_DOUBLE_EQ(run.t.back(), 0.5);
  for (std::size_t i = 0; i < run.t.size(); ++i) {
    double total = 0.0;
    int pressing = 0;
    for (int k = 0; k < 48; ++k) {
      const double N = run[fmt::format("floor.p{}.normal", k)][i];
      EXPECT_GE(N, 0.0) << k << " at " << run.t[i];
      total += N;
      if (N > 0.0) ++pressing;
    }
    EXPECT_NEAR(total, 4.0 * 9.81, 1e-9) << run.t[i];
    EXPECT_EQ(pressing, 20) << run.t[i];
    EXPECT_NEAR(run["plank.z"][i], 0.15, 1e-12) << run.t[i];
  }
  for (const char* w : {"plank.wx", "plank.wy"}) EXPECT_LE(run.max_abs(w), 1e-12) << w;
  EXPECT_LE(run.max_abs("energy.balance"), 1e-9);
}

// examples/box_tilted.yaml: a box dropped tilted (0.3 and 0.2 rad about x
// and y) with e = 0.5: it lands on a corner, rocks from corner to corner
// and edge to edge, and settles flat on its four lower corners (a redundant set: the forces are
// not unique, and the integrator's multipliers, with a dependent row
// dropped, may leave one corner touching at zero force and open it), the
// normal forces summing to m g, never gaining energy. Regression: the rocking ended in
// about 2e5 impacts of micrometres per second between sides that the
// others' impacts reopened (accumulation was detected per side only; a side
// that was closed before the impact rebounded with e times its hold row's
// drift; a closed side outside the impact problem was dropped as dependent).
TEST(ContactShapes, BoxDroppedTiltedRocksAndSettlesFlat) {
  const double m = 4, g = 9.81;
  const Model model = load_model(test::source_path("examples/box_tilted.yaml"));
  std::vector<std::string> channels = {"box.z",          "box.wx",          "box.wy",
                                       "box.wz",         "box.vz",          "energy.balance",
                                       "energy.kinetic", "energy.potential"};
  for (int k = 0; k < 4; ++k) {
    channels.push_back(fmt::format("floor.p{}.normal", k));
    channels.push_back(fmt::format("floor.p{}.state", k));
    channels.push_back(fmt::format("floor.p{}.gap", k));
  }
  const test::RecordedRun run = test::run_and_record(model, channels);
  EXPECT_DOUBLE_EQ(run.t.back(), 3.0);  // no hang: the run ends
  int impacts = 0, accumulations = 0;
  double last_impact = 0.0;
  for (const EventRecord& r : run.events) {
    impacts += r.kind == "impact" ? 1 : 0;
    accumulations += r.kind == "accumulation" ? 1 : 0;
    // the last impact faster than 1 um/s (later: a corner at zero force
    // closing on the drift of the integrator, 1e-9 m/s)
    if (r.kind == "impact" && std::abs(rates_of(r).first) > 1e-6) last_impact = r.t;
  }
  EXPECT_LT(impacts, 400);
  EXPECT_GT(accumulations, 0);
  EXPECT_LT(last_impact, 1.0);
  // it rocked: both ways about x and y
  EXPECT_GT(run.max_abs("box.wx"), 1.0);
  EXPECT_GT(run.max_abs("box.wy"), 1.0);
  // at rest flat: the lower face at z = 0, on its four lower corners
  EXPECT_NEAR(run.final("box.z"), 0.1, 1e-9);
  EXPECT_NEAR(run.final("box.vz"), 0.0, 1e-9);
  EXPECT_NEAR(run.final("box.wx"), 0.0, 1e-9);
  EXPECT_NEAR(run.final("box.wy"), 0.0, 1e-9);
  // a spin about the vertical stays (no friction): it is what the impacts left
  EXPECT_LE(std::abs(run.final("box.wz")), 1e-9);
  double total = 0.0;
  int closed = 0;
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(run.final(fmt::format("floor.p{}.gap", k)), 0.0, 1e-9) << k;
    EXPECT_GE(run.final(fmt::format("floor.p{}.normal", k)), -1e-9) << k;
    closed += run.final(fmt::format("floor.p{}.state", k)) == 1.0 ? 1 : 0;
    total += run.final(fmt::format("floor.p{}.normal", k));
  }
  EXPECT_GE(closed, 3);
  EXPECT_NEAR(total, m * g, 1e-6);
  // no energy gain: kinetic + potential never above the start, the audit closed
  const double start = run["energy.kinetic"][0] + run["energy.potential"][0];
  for (std::size_t k = 0; k < run.t.size(); ++k)
    EXPECT_LE(run["energy.kinetic"][k] + run["energy.potential"][k], start + 1e-9);
  EXPECT_LE(run.max_abs("energy.balance"), 1e-8);
}

}  // namespace
}  // namespace ictus
