// Coulomb friction at contacts, event-driven (examples/incline_block.yaml,
// examples/pushed_block.yaml; docs/theory/friction.md, "Friction at
// contacts"). Closed forms for a block (a point mass on its contact point):
//   on an incline of angle a: stuck for tan a <= mu_s, the friction force
//   m g sin a; sliding for tan a > mu_s with s'' = g (sin a - mu cos a);
//   started down a slope with tan a < mu at v0 it stops after
//   v0 / (g (mu cos a - sin a)) and sticks;
//   pushed along a floor with F = b t: stuck until t_s = mu_s m g / b, then
//   m x'' = b t - mu m g.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ictus/error.h"
#include "ictus/model_file.h"
#include "ictus/observers.h"
#include "ictus/simulation.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kMass = 2.0, kG = 9.81, kR = 0.05;

test::RecordedRun run(const std::string& example, const ParameterOverrides& overrides,
                      const std::vector<std::string>& channels) {
  return test::run_and_record(load_model(test::source_path(example), overrides), channels);
}

const std::vector<std::string> kIncline = {"block.x",
                                           "block.z",
                                           "slope_contact.friction_x",
                                           "slope_contact.normal",
                                           "slope_contact.friction_mode_x",
                                           "slope_contact.slip_rate_x",
                                           "slope_contact.gap",
                                           "energy.total",
                                           "energy.dissipated",
                                           "energy.balance"};

// distance travelled down the slope from the start
double down_slope(const test::RecordedRun& r, std::size_t k, double a) {
  return -((r["block.x"][k] - r["block.x"][0]) * std::cos(a) +
           (r["block.z"][k] - r["block.z"][0]) * std::sin(a));
}

TEST(ContactFriction, BlockOnAnInclineSticksBelowTheStaticAngle) {
  const double a = 0.4, mu = 0.4, mu_s = 0.45;  // tan a = 0.4228 < mu_s
  const test::RecordedRun r = run("examples/incline_block.yaml",
                                  {{"angle", "0.4"}, {"mu", "0.4"}, {"mu_s", "0.45"}}, kIncline);
  ASSERT_GE(r.events.size(), 3u);
  for (const EventRecord& e : r.events) EXPECT_NE(e.kind, "slip") << e.t << " " << e.detail;
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    EXPECT_NEAR(down_slope(r, k, a), 0.0, 1e-12) << r.t[k];
    EXPECT_EQ(r["slope_contact.friction_mode_x"][k], 0.0);
    EXPECT_NEAR(r["slope_contact.normal"][k], kMass * kG * std::cos(a), 1e-9);
    // the hold's force points up the slope (+x tangent), m g sin a
    EXPECT_NEAR(r["slope_contact.friction_x"][k], kMass * kG * std::sin(a), 1e-9);
  }
  EXPECT_LT(r.max_abs("slope_contact.friction_x"), mu_s * kMass * kG * std::cos(a));
  (void)mu;
}

TEST(ContactFriction, BlockOnAnInclineSlidesWithTheClosedFormAcceleration) {
  const double a = 0.5, mu = 0.4;  // tan a = 0.546 > mu_s = 0.45
  const test::RecordedRun r = run("examples/incline_block.yaml", {}, kIncline);
  const double acc = kG * (std::sin(a) - mu * std::cos(a));
  double worst = 0.0;
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k];
    worst = std::max(worst, std::abs(down_slope(r, k, a) - 0.5 * acc * t * t));
    EXPECT_NEAR(r["slope_contact.slip_rate_x"][k], -acc * t, 1e-9);
    EXPECT_NEAR(r["slope_contact.normal"][k], kMass * kG * std::cos(a), 1e-9);
    if (t > 0.0) {
      EXPECT_EQ(r["slope_contact.friction_mode_x"][k], -1.0);
      EXPECT_NEAR(r["slope_contact.friction_x"][k], mu * kMass * kG * std::cos(a), 1e-9);
    }
    EXPECT_NEAR(r["slope_contact.gap"][k], 0.0, 1e-12);
  }
  EXPECT_LT(worst, 1e-9);
  // the energy lost is the friction work mu m g cos a times the distance
  const double s = 0.5 * acc;  // at t = 1
  EXPECT_NEAR(r.final("energy.dissipated"), mu * kMass * kG * std::cos(a) * s, 1e-8);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
  fmt::print(
      "incline (a = {}, mu = {}): s(t) within {:.2e} m of g (sin a - mu cos a) t^2 / 2 = "
      "{:.6f} t^2; friction work {:.9f} J\n",
      a, mu, worst, 0.5 * acc, r.final("energy.dissipated"));
}

TEST(ContactFriction, BlockSlidingDownAGentleSlopeStopsAndSticks) {
  const double a = 0.3, mu = 0.4, v0 = 0.5;  // tan a = 0.309 < mu
  const test::RecordedRun r =
      run("examples/incline_block.yaml", {{"angle", "0.3"}, {"v0", "0.5"}}, kIncline);
  const double decel = kG * (mu * std::cos(a) - std::sin(a));
  const double t_stop = v0 / decel;
  int sticks = 0;
  double t_stick = -1.0;
  for (const EventRecord& e : r.events)
    if (e.kind == "stick" && e.name == "slope_contact.friction_x" && e.t > 0.0) {
      ++sticks;
      t_stick = e.t;
    }
  ASSERT_EQ(sticks, 1);
  EXPECT_NEAR(t_stick, t_stop, 1e-9);
  const double stop_at = v0 * t_stop - 0.5 * decel * t_stop * t_stop;
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = std::min(r.t[k], t_stop);
    EXPECT_NEAR(down_slope(r, k, a), v0 * t - 0.5 * decel * t * t, 1e-9) << r.t[k];
    if (r.t[k] > t_stop) {
      EXPECT_EQ(r["slope_contact.friction_mode_x"][k], 0.0);
      EXPECT_NEAR(down_slope(r, k, a), stop_at, 1e-9);
      EXPECT_NEAR(r["slope_contact.friction_x"][k], kMass * kG * std::sin(a), 1e-9);
    }
  }
  fmt::print("sliding block on a gentle slope: sticks at {:.12f} s (closed form {:.12f} s)\n",
             t_stick, t_stop);
}

TEST(ContactFriction, PushedBlockSlipsAtTheStaticLimitAndSlidesWithKineticFriction) {
  const double b = 10.0, mu = 0.3, mu_s = 0.5;
  const test::RecordedRun r =
      run("examples/pushed_block.yaml", {},
          {"block.x", "block.vx", "floor.friction_x", "floor.friction_mode_x", "floor.normal",
           "energy.dissipated", "energy.balance"});
  const double t_s = mu_s * kMass * kG / b;
  double t_slip = -1.0;
  for (const EventRecord& e : r.events)
    if (e.kind == "slip" && e.name == "floor.friction_x") t_slip = e.t;
  EXPECT_NEAR(t_slip, t_s, 1e-9);
  double worst = 0.0;
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k];
    if (std::abs(t - t_s) < 1e-9) continue;  // the samples just before and after the slip
    if (t <= t_s) {
      EXPECT_NEAR(r["block.x"][k], 0.0, 1e-12) << t;
      EXPECT_NEAR(r["floor.friction_x"][k], -b * t, 1e-9) << t;
      continue;
    }
    const double tau = t - t_s;
    const double x = b / (6.0 * kMass) * (t * t * t - t_s * t_s * t_s) -
                     b / (2.0 * kMass) * t_s * t_s * tau - 0.5 * mu * kG * tau * tau;
    worst = std::max(worst, std::abs(r["block.x"][k] - x));
    EXPECT_EQ(r["floor.friction_mode_x"][k], 1.0);
    EXPECT_NEAR(r["floor.friction_x"][k], -mu * kMass * kG, 1e-9);
  }
  EXPECT_LT(worst, 1e-9);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
  fmt::print(
      "pushed block: slips at {:.12f} s (closed form mu_s m g / b = {:.12f} s); x(t) "
      "within {:.2e} m of the closed form with mu_k\n",
      t_slip, t_s, worst);
}

// A thin rod (a box 2 l x 2 w x 2 w, 1 kg, uniform) leaning at atan(2) on a
// floor with Coulomb friction mu, resting on the two corners p0, p2 of its
// lower edge (at y = -w, +w), its lower end at x = -l cos(th). It starts
// sliding along x at v (v < 0: the lower end away from under the rod; for
// mu > 4/3 that is Painleve's configuration of
// tests/bad_models/contact_friction_painleve_at_rest_sideways.yaml). The
// corners' x tangents slip, their y tangents are at rest and are decided
// together at the start, with the x tangents' forces responding through the
// normal forces (docs/theory/friction.md, "Several at zero rate").
constexpr const char* kLeaningRod = R"(ictus: 1
name: leaning rod sliding on a floor with friction
parameters:
  th: atan(2)
  l: 1
  w: 0.01
  mu: 0.3
  v: -1
bodies:
  rod:
    mass: 1
    inertia: [1e-4, 1/3, 1/3]
    position: [0, 0, l*sin(th) + w*cos(th)]
    orientation: {bryant: [0, -th, 0]}
    velocity: [v, 0, 0]
shapes:
  rod_box: {body: rod, type: box, size: [2*l, 2*w, 2*w]}
  floor_plane: {body: ground, type: plane, normal: [0, 0, 1]}
contacts:
  floor: {type: shapes, between: [ground, rod], friction: mu}
gravity: [0, 0, -9.81]
simulate:
  until: 0.01
  output_step: 0.001
  outputs: [rod.*, floor.*, energy.*]
)";

// The leaning rod (kLeaningRod) at its start:
// the x tangents of its two floor corners slip, the y tangents are at rest
// and are decided together. The expected values come from a brute-force
// computation outside ictus (NumPy/SciPy: the rod's instant t = 0 written
// from its mass, inertia and corner positions, every closed/open and
// stick/slip combination of the two corners tested as a linear feasibility
// problem, the statically indeterminate split of the two sideways holds
// included: tests/checks/leaning_rod_combinations.py). For the cases below
// it has exactly one consistent combination: both corners closed, both y
// tangents stuck, equal normal forces N (the table below) and sideways
// forces summing to zero.
struct LeaningRodCase {
  double mu, v, normal;  // normal: each corner's N from the independent computation
};

void expect_both_corners_stick_sideways(const LeaningRodCase& c) {
  const test::RecordedRun r = test::run_and_record(
      parse_model(kLeaningRod, "leaning rod",
                  {{"mu", fmt::format("{}", c.mu)}, {"v", fmt::format("{}", c.v)}}),
      {"floor.p0.normal", "floor.p2.normal", "floor.p0.friction_x", "floor.p2.friction_x",
       "floor.p0.friction_y", "floor.p2.friction_y", "floor.p0.friction_mode_y",
       "floor.p2.friction_mode_y"});
  ASSERT_FALSE(r.t.empty());
  const double n0 = r["floor.p0.normal"][0], n2 = r["floor.p2.normal"][0];
  EXPECT_NEAR(n0, c.normal, 1e-9) << "mu " << c.mu << ", v " << c.v;
  EXPECT_NEAR(n2, c.normal, 1e-9) << "mu " << c.mu << ", v " << c.v;
  EXPECT_NEAR(n0, n2, 1e-12);  // equal by symmetry
  for (const char* corner : {"p0", "p2"}) {
    const std::string p = fmt::format("floor.{}.", corner);
    EXPECT_EQ(r[p + "friction_mode_y"][0], 0.0) << corner;
    // the x tangent slips against v: F = -sgn(v) mu N
    EXPECT_NEAR(r[p + "friction_x"][0], -std::copysign(c.mu * c.normal, c.v), 1e-9) << corner;
    EXPECT_LE(std::abs(r[p + "friction_y"][0]), c.mu * c.normal) << corner;
  }
  EXPECT_NEAR(r["floor.p0.friction_y"][0] + r["floor.p2.friction_y"][0], 0.0, 1e-9);
  fmt::print("leaning rod, mu = {}, v = {}: N = {:.12f}, {:.12f} N (independent {:.12f} N)\n", c.mu,
             c.v, n0, n2, c.normal);
}

// Before, the x tangents kept the forces of the y tangents' provisional
// modes (both slipping +1): the corners' normal forces came out unequal,
// one negative, and these runs stopped at t = 0 as Painleve's paradox
// ("no consistent combinations of stick and slip"); mu = 0.2 ran.
TEST(ContactFriction, LeaningRodAtRestSidewaysSticksSidewaysOnBothCorners) {
  for (const LeaningRodCase& c :
       {LeaningRodCase{0.3, -1.0, 4.01497614752}, LeaningRodCase{2.0, 1.0, 1.24492385787},
        LeaningRodCase{0.5, 1.0, 2.2633099235}, LeaningRodCase{0.2, -1.0, 3.66081930703}})
    expect_both_corners_stick_sideways(c);
}

// Sliding away with mu = 1.2 and 1.3 the slipping problem of the two x
// tangents with the sideways holds on has det(I - G T) < 0 (-0.145 and
// -0.0416), the condition for one
// solution under every load. This instant has one all the same (the
// independent computation: both corners closed and stuck sideways, the
// normal forces below; from mu = 1.34 none): the enumeration of the
// instant's combinations finds it, and the run goes on. Before, both stopped
// as Painleve's paradox.
TEST(ContactFriction, LeaningRodWithOneSolutionBeyondTheEveryLoadConditionRuns) {
  for (const LeaningRodCase& c :
       {LeaningRodCase{1.2, -1.0, 31.0474478428195}, LeaningRodCase{1.3, -1.0, 123.253593325963}})
    expect_both_corners_stick_sideways(c);
}

// With v = -1 and mu = 0.5 the independent computation finds three
// consistent solutions: both corners closed and stuck sideways (N =
// 4.97817923475 each), or the rod pivoting on either corner alone (N =
// 9.98554589687, the other corner lifting at 0.0575 m/s^2). ictus keeps both
// corners closed; the slipping problem of the four tangents in the solve
// before the sideways ones are decided has det(I - G T) = -0.0116 < 0, and
// the enumeration of the instant's combinations finds the three, three
// distinct motions: reported as Painleve's paradox (several solutions), not
// run on one of them.
TEST(ContactFriction, LeaningRodWithThreeSolutionsIsReportedAsPainleve) {
  try {
    (void)test::run_and_record(
        parse_model(kLeaningRod, "leaning rod", {{"mu", "0.5"}, {"v", "-1"}}), {"floor.p0.normal"});
    FAIL() << "expected Painleve's paradox";
  } catch (const SimulationError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("det(I - G T)"), std::string::npos) << what;
    EXPECT_NE(what.find("3 combinations"), std::string::npos) << what;
    // three motions, not one with its forces split three ways
    EXPECT_NE(what.find("with 3 distinct motions"), std::string::npos) << what;
    EXPECT_NE(what.find("Painleve"), std::string::npos) << what;
  }
}

// A contact's tangents act only while it is closed. examples/box_tilted.yaml
// with friction on its floor falls as on a frictionless floor until its
// first corner strikes, without a stick or slip in the air. Before, the
// tangents of the corners in the air were decided stuck at t0 (F_max 0, no
// force needed) and their hold rows took the first impact as if the box
// could not turn: it bounced straight up, with a normal impulse of
// m (1 + e) v = 12.58 N s. The impact is now frictional (the pyramid): the
// normal impulse lies between the frictionless one, 3.205 N s, and that,
// the box turns, and friction takes more energy than the frictionless
// impact.
TEST(ContactFriction, TangentsOfOpenContactsHoldNothing) {
  const std::vector<std::string> channels = {"box.x",  "box.y",  "box.z",
                                             "box.wx", "box.wy", "box.wz"};
  std::ifstream in(test::source_path("examples/box_tilted.yaml"));
  std::stringstream text;
  text << in.rdbuf();
  std::string with_friction = text.str();
  const std::string law = "restitution: 0.5}";
  ASSERT_NE(with_friction.find(law), std::string::npos);
  with_friction.replace(with_friction.find(law), law.size(), "restitution: 0.5, friction: 0.5}");
  const test::RecordedRun frictionless =
      test::run_and_record(load_model(test::source_path("examples/box_tilted.yaml")), channels);
  const test::RecordedRun rough =
      test::run_and_record(parse_model(with_friction, "box_tilted with friction"), channels);
  const EventRecord* first[2] = {nullptr, nullptr};
  for (int run = 0; run < 2; ++run)
    for (const EventRecord& e : (run == 0 ? frictionless : rough).events) {
      if (e.kind == "impact" && first[run] == nullptr) first[run] = &e;
      if (first[run] == nullptr) {
        EXPECT_TRUE(e.kind != "stick" && e.kind != "slip" && e.kind != "reversal")
            << e.t << " " << e.kind << " " << e.name << " " << e.detail;
      }
    }
  ASSERT_NE(first[0], nullptr);
  ASSERT_NE(first[1], nullptr);
  EXPECT_NEAR(first[1]->t, first[0]->t, 1e-12);
  EXPECT_EQ(first[1]->name, first[0]->name);
  // "... normal impulse P; kinetic energy K0 -> K1 J ..."
  auto impulse_and_loss = [](const std::string& detail) {
    const std::size_t p = detail.find("normal impulse ");
    const std::size_t k = detail.find("kinetic energy ");
    const std::size_t arrow = detail.find(" -> ", k);
    return std::pair<double, double>{
        std::stod(detail.substr(p + 15)),
        std::stod(detail.substr(k + 15)) - std::stod(detail.substr(arrow + 4))};
  };
  const auto [p0, loss0] = impulse_and_loss(first[0]->detail);
  const auto [p1, loss1] = impulse_and_loss(first[1]->detail);
  EXPECT_NEAR(p0, 3.20507871044, 1e-9);
  EXPECT_GT(p1, p0 + 0.1);
  EXPECT_LT(p1, 12.0);  // 12.58: the box held from turning
  EXPECT_GT(loss1, loss0);
  // the samples of the output grid (both runs add samples at their events)
  auto grid = [](const test::RecordedRun& r) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < r.t.size(); ++i)
      if (std::abs(r.t[i] / 0.01 - std::round(r.t[i] / 0.01)) < 1e-9 &&
          (out.empty() || r.t[out.back()] != r.t[i]))
        out.push_back(i);
    return out;
  };
  const std::vector<std::size_t> f = grid(frictionless), g = grid(rough);
  int compared = 0;
  for (std::size_t k = 0; k < g.size() && k < f.size() && rough.t[g[k]] < first[1]->t;
       ++k, ++compared) {
    ASSERT_EQ(rough.t[g[k]], frictionless.t[f[k]]);
    for (const std::string& c : channels)
      EXPECT_NEAR(rough[c][g[k]], frictionless[c][f[k]], 1e-12) << c << " at t = " << rough.t[g[k]];
  }
  EXPECT_EQ(compared, 22);  // t = 0 .. 0.21
  // after the impact the box turns (held from turning, it did not)
  const std::size_t after = g[static_cast<std::size_t>(compared) + 1];
  const double w =
      std::hypot(rough["box.wx"][after], rough["box.wy"][after], rough["box.wz"][after]);
  EXPECT_GT(w, 1.0) << "at t = " << rough.t[after];
}

// A ball (a point mass on its contact sphere) dropped from h with a
// sideways speed v_x onto a floor with friction (restitution e): Newton's
// normal impulse P = m (1 + e) v_z, v_z = sqrt(2 g (h - r)); the friction
// impulse opposes the slip up to mu P: the ball leaves with
// v_x - mu (1 + e) v_z when that is positive (it slid through the impact),
// else with 0 (it stuck). Before, impacts were frictionless: v_x passed
// through.
TEST(ContactFriction, AnImpactTakesItsFrictionImpulseUpToMuTimesTheNormalImpulse) {
  constexpr const char* kDrop = R"(ictus: 1
name: ball dropped onto a rough floor with a sideways speed
parameters: {m: 2, mu: 0.3, r: 0.05, g: 9.81, vx: 3, e: 0.5, h: 0.5}
bodies:
  ball: {mass: m, point_mass: true, position: [0, 0, h], velocity: [vx, 0, 0]}
shapes:
  foot: {body: ball, type: sphere, radius: r}
  floor: {body: ground, type: plane, normal: [0, 0, 1]}
contacts:
  c: {type: shapes, between: [ground, ball], restitution: e, friction: mu}
gravity: [0, 0, -g]
simulate: {until: 0.5, output_step: 0.01, rtol: 1e-10, atol: 1e-12}
)";
  const double mu = 0.3, e = 0.5, vz = std::sqrt(2.0 * kG * (0.5 - kR));
  const double t_impact = vz / kG, t_next = t_impact + 2.0 * e * vz / kG;
  for (const double vx : {3.0, 1.0}) {
    const test::RecordedRun r =
        test::run_and_record(parse_model(kDrop, "ball drop", {{"vx", fmt::format("{}", vx)}}),
                             {"ball.vx", "ball.vz", "energy.impacts"});
    int impacts = 0;
    for (const EventRecord& ev : r.events)
      if (ev.kind == "impact") {
        ++impacts;
        EXPECT_NEAR(ev.t, t_impact, 1e-9) << vx;
      }
    EXPECT_EQ(impacts, 1) << vx;  // until 0.5 s < the next impact at 0.606 s
    ASSERT_LT(0.5, t_next);
    const double vx_after = std::max(vx - mu * (1.0 + e) * vz, 0.0);
    EXPECT_NEAR(r.final("ball.vx"), vx_after, 1e-9) << vx;
    // the impact's loss: normal (1 - e^2) and tangential parts
    const double loss = 0.5 * kMass * ((1.0 - e * e) * vz * vz + vx * vx - vx_after * vx_after);
    EXPECT_NEAR(r.final("energy.impacts"), loss, 1e-8) << vx;
  }
}

// A block turned round at t_turn from speed v_back (toward -x): its
// tangent `element` reverses then, friction mu m g brakes it (F = +mu m g),
// it sticks at t_turn + v_back / (mu g), at x_stop.
void expect_braked_back(const test::RecordedRun& r, const std::string& element, double mu,
                        double t_turn, double v_back, double x_stop) {
  const double a = mu * kG, t_stop = t_turn + v_back / a;
  int reversals = 0, sticks = 0;
  for (const EventRecord& e : r.events) {
    if (e.name != element) continue;
    if (e.kind == "reversal") {
      ++reversals;
      EXPECT_NEAR(e.t, t_turn, 1e-9);
    }
    if (e.kind == "stick") {
      ++sticks;
      EXPECT_NEAR(e.t, t_stop, 1e-9);
    }
  }
  EXPECT_EQ(reversals, 1);
  EXPECT_EQ(sticks, 1);
  for (std::size_t i = 0; i < r.t.size(); ++i) {
    const double t = r.t[i];
    if (t > t_turn + 1e-6 && t < t_stop - 1e-6) {
      EXPECT_NEAR(r["block.vx"][i], -v_back + a * (t - t_turn), 1e-8) << t;
      EXPECT_NEAR(r[element][i], mu * kMass * kG, 1e-8) << t;  // against -x: braking
    }
  }
  EXPECT_NEAR(r.final("block.x"), x_stop, 1e-9);
  EXPECT_NEAR(r.final("block.vx"), 0.0, 1e-12);
}

// A box hanging on a ball joint from a cart on an inclined rail strikes a
// rough floor (mu = 0.4) with a corner, e = 0.6: near a jam the impulse
// level's law (Newton's restitution on the gap rate, Coulomb's friction
// against the slip after) has a solution of normal impulses near 3e4 N s
// that leaves the 3 kg system with 8572 J for the 13.4 J it had: energy
// the law creates (Kane and Levinson's paradox). The books stay closed, the
// impact's loss negative, and a warning says the law is unreliable there.
TEST(ContactFriction, AnImpactWhoseLawCreatesEnergyIsWarned) {
  const test::RecordedRun r = test::run_and_record(parse_model(R"(ictus: 1
name: a box hanging from a cart on an inclined rail strikes a rough floor
gravity: [0, -9.81, 0]
bodies:
  cart: {mass: 2, inertia: [0.05, 0.05, 0.05], position: [0, 0.8, 0]}
  box: {mass: 1, inertia: [0.02, 0.03, 0.025], position: [0, 0.45, 0],
        orientation: {bryant: [0, 0, 0.3]}}
joints:
  rail: {type: prismatic, between: [ground, cart], at: [0, 0.8, 0],
         axis: [cos(0.2), -sin(0.2), 0]}
  hang: {type: spherical, between: [cart, box], at: [0, 0.8, 0]}
shapes:
  body_box: {body: box, type: box, size: [0.3, 0.2, 0.2]}
  floor_plane: {body: ground, type: plane, normal: [0, 1, 0]}
contacts:
  floor: {type: shapes, between: [ground, box], friction: 0.4, restitution: 0.6}
initial_velocities: {rail.v: 2}
simulate: {until: 0.8, output_step: 0.01, max_step: 0.001, rtol: 1e-10, atol: 1e-12}
)",
                                                               "cart and box"),
                                                   {"energy.kinetic", "energy.balance"});
  const auto warned = std::find_if(r.events.begin(), r.events.end(), [](const EventRecord& e) {
    return e.kind == "warning" && e.detail.find("Kane and Levinson") != std::string::npos;
  });
  ASSERT_NE(warned, r.events.end());
  EXPECT_GT(r.max_abs("energy.kinetic"), 100 * 13.4);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-6 * r.max_abs("energy.kinetic"));
}

// A block slides on a floor with friction into a wall (restitution 1) and
// back. The impact turns its velocity round, and the floor's friction turns
// with it: it brakes the block on the way back until it sticks. With
// a = mu g, the gap to the wall s = d - r, the speed at the wall
// v1 = sqrt(v0^2 - 2 a s) at t1 = (v0 - v1) / a; back, v = -v1 + a (t - t1)
// until it stops at t1 + v1 / a, at s - v1^2 / (2 a). Before, the slip kept
// its direction through the impact and friction pushed the block away from
// the wall ever faster.
TEST(ContactFriction, AnImpactThatTurnsTheSlipTurnsTheFriction) {
  constexpr const char* kWall = R"(ictus: 1
name: block sliding into a wall
parameters: {m: 2, mu: 0.3, r: 0.05, g: 9.81, v0: 2, d: 0.5}
bodies:
  block: {mass: m, point_mass: true, position: [0, 0, r], velocity: [v0, 0, 0]}
shapes:
  foot: {body: block, type: sphere, radius: r}
  floor: {body: ground, type: plane, normal: [0, 0, 1]}
  wall: {body: ground, type: plane, normal: [-1, 0, 0], at: [d, 0, 0]}
contacts:
  c: {type: shapes, between: [ground, block], restitution: 1, friction: mu}
gravity: [0, 0, -g]
simulate: {until: 1, output_step: 0.01, max_step: 0.01, rtol: 1e-10, atol: 1e-12}
)";
  const double mu = 0.3, v0 = 2.0, s = 0.5 - kR, a = mu * kG;
  const double v1 = std::sqrt(v0 * v0 - 2.0 * a * s), t1 = (v0 - v1) / a;
  const test::RecordedRun r = test::run_and_record(
      parse_model(kWall, "block into a wall"),
      {"block.x", "block.vx", "c.p0.friction_x", "energy.dissipated", "energy.impacts"});
  int impacts = 0;
  for (const EventRecord& e : r.events)
    if (e.kind == "impact") {
      ++impacts;
      EXPECT_NEAR(e.t, t1, 1e-9);
    }
  EXPECT_EQ(impacts, 1);
  expect_braked_back(r, "c.p0.friction_x", mu, t1, v1, s - v1 * v1 / (2.0 * a));
  // a lossless impact: friction took all the kinetic energy
  EXPECT_NEAR(r.final("energy.impacts"), 0.0, 1e-9);
  EXPECT_NEAR(r.final("energy.dissipated"), 0.5 * kMass * v0 * v0, 1e-8);
}

// The same with an external impulse instead of the wall: the block,
// sliding at v0 on the floor, is kicked back at t_k = 0.1 s to -v(t_k)
// (an event's impulse action, a system impact); friction turns with the
// slip and the block stops at t_k + v(t_k) / a, at x(t_k) - v(t_k)^2 / (2 a).
TEST(ContactFriction, AnExternalImpulseThatTurnsTheSlipTurnsTheFriction) {
  constexpr const char* kKicked = R"(ictus: 1
name: block kicked back while it slides
parameters: {m: 2, mu: 0.3, r: 0.05, g: 9.81, v0: 2, tk: 0.1}
bodies:
  block: {mass: m, point_mass: true, position: [0, 0, r], velocity: [v0, 0, 0]}
shapes:
  foot: {body: block, type: sphere, radius: r}
  floor: {body: ground, type: plane, normal: [0, 0, 1]}
contacts:
  c: {type: shapes, between: [ground, block], friction: mu}
events:
  kick:
    when: t >= tk
    do: {impulse: {on: block, linear: [-2*m*(v0 - mu*g*tk), 0, 0]}}
    once: true
gravity: [0, 0, -g]
simulate: {until: 1, output_step: 0.01, max_step: 0.01, rtol: 1e-10, atol: 1e-12}
)";
  const double mu = 0.3, v0 = 2.0, tk = 0.1, a = mu * kG;
  const double vk = v0 - a * tk, xk = v0 * tk - 0.5 * a * tk * tk;
  const test::RecordedRun r = test::run_and_record(parse_model(kKicked, "kicked block"),
                                                   {"block.x", "block.vx", "c.friction_x"});
  expect_braked_back(r, "c.friction_x", mu, tk, vk, xk - vk * vk / (2.0 * a));
}

// A block resting on a rough floor (its tangents stuck) is kicked at t_k =
// 0.1 s by an event's impulse (J_x, 0, J_z). The closed contact is
// unilateral in the kick and its friction impulse is at most mu P: the kick
// is not taken by the stuck tangent's hold nor pulled back by the contact's
// row (before, the block did not move at all). Closed forms: sideways, it
// slides off at J_x/m and stops after (J_x/m)^2 / (2 mu g); up, it flies
// at J_z/m and lands 2 J_z/(m g) later; down and sideways, the floor takes
// P = -J_z and the block slides off at (J_x - mu P)/m.
test::RecordedRun kicked_resting_block(double jx, double jz, double mu_s = 0.3) {
  const std::string model = fmt::format(R"(ictus: 1
name: resting block kicked
parameters: {{m: 2, mu: 0.3, mu_s: {}, r: 0.05, g: 9.81, tk: 0.1}}
bodies:
  block: {{mass: m, point_mass: true, position: [0, 0, r]}}
shapes:
  foot: {{body: block, type: sphere, radius: r}}
  floor: {{body: ground, type: plane, normal: [0, 0, 1]}}
contacts:
  c: {{type: shapes, between: [ground, block], friction: {{mu: mu, mu_static: mu_s}}}}
events:
  kick:
    when: t >= tk
    do: {{impulse: {{on: block, linear: [{}, 0, {}]}}}}
    once: true
gravity: [0, 0, -g]
simulate: {{until: 1, output_step: 0.01, max_step: 0.01, rtol: 1e-10, atol: 1e-12}}
)",
                                        mu_s, jx, jz);
  return test::run_and_record(
      parse_model(model, "kicked resting block"),
      {"block.x", "block.z", "block.vx", "block.vz", "c.state", "energy.balance"});
}

TEST(ContactFriction, AKickOnARestingBlockIsBoundByFrictionNotHeldByTheStuckTangent) {
  const double mu = 0.3, tk = 0.1, a = mu * kG;
  {
    SCOPED_TRACE("sideways");
    const test::RecordedRun r = kicked_resting_block(4.0, 0.0);
    const double v = 4.0 / kMass;
    int slips = 0;
    for (const EventRecord& e : r.events)
      if (e.name == "c.friction_x" && e.kind == "slip") {
        ++slips;
        EXPECT_NEAR(e.t, tk, 1e-9);
      }
    EXPECT_EQ(slips, 1);
    for (std::size_t i = 0; i < r.t.size(); ++i) {
      if (r.t[i] > tk + 1e-6 && r.t[i] < tk + v / a - 1e-6) {
        EXPECT_NEAR(r["block.vx"][i], v - a * (r.t[i] - tk), 1e-8) << r.t[i];
      }
    }
    EXPECT_NEAR(r.final("block.x"), v * v / (2.0 * a), 1e-9);
    EXPECT_NEAR(r.final("energy.balance"), 0.0, 1e-9);
  }
  {
    SCOPED_TRACE("up");
    const test::RecordedRun r = kicked_resting_block(0.0, 4.0);
    const double v = 4.0 / kMass, landing = tk + 2.0 * v / kG;
    bool opened = false;
    for (const EventRecord& e : r.events)
      if (e.name == "c" && e.kind == "contact" && e.detail.find("opened") != std::string::npos) {
        opened = true;
        EXPECT_NEAR(e.t, tk, 1e-12);
      }
    EXPECT_TRUE(opened);
    for (std::size_t i = 0; i < r.t.size(); ++i)
      if (r.t[i] > tk + 1e-6 && r.t[i] < landing - 1e-6) {
        const double s = r.t[i] - tk;
        EXPECT_NEAR(r["block.vz"][i], v - kG * s, 1e-8) << r.t[i];
        EXPECT_NEAR(r["block.z"][i], 0.05 + v * s - 0.5 * kG * s * s, 1e-8) << r.t[i];
      }
    EXPECT_NEAR(r.final("block.x"), 0.0, 1e-12);
  }
  {
    SCOPED_TRACE("down and sideways");
    const test::RecordedRun r = kicked_resting_block(4.0, -4.0);
    const double v = (4.0 - mu * 4.0) / kMass;  // the floor's P = 4 N s
    for (std::size_t i = 0; i < r.t.size(); ++i) {
      if (r.t[i] > tk + 1e-6 && r.t[i] < tk + v / a - 1e-6) {
        EXPECT_NEAR(r["block.vx"][i], v - a * (r.t[i] - tk), 1e-8) << r.t[i];
      }
    }
    EXPECT_NEAR(r.final("block.x"), v * v / (2.0 * a), 1e-9);
    EXPECT_NEAR(r.final("block.z"), 0.05, 1e-9);
    EXPECT_NEAR(r.final("energy.balance"), 0.0, 1e-9);
  }
  {
    // the stuck block takes mu_s P: with mu_s = 0.5, P = 4 N s holds 1.6 N s
    SCOPED_TRACE("held by static friction");
    const test::RecordedRun r = kicked_resting_block(1.6, -4.0, 0.5);
    for (std::size_t i = 0; i < r.t.size(); ++i) EXPECT_NEAR(r["block.vx"][i], 0.0, 1e-12);
    EXPECT_NEAR(r.final("block.x"), 0.0, 1e-12);
    for (const EventRecord& e : r.events) EXPECT_NE(e.kind, "slip") << e.name << " " << e.t;
  }
}

// A kick elsewhere leaves a stuck block stuck: on an incline with mu <
// tan(angle) < mu_s (once slipping it would slide away), a free body far
// off is kicked. The block's contact is reopened and closed around the kick
// like every closed contact, and must come back stuck.
TEST(ContactFriction, AKickElsewhereLeavesAStuckBlockStuck) {
  constexpr const char* kInclineAndKick = R"(ictus: 1
name: stuck block on an incline, another body kicked
parameters: {m: 2, angle: 0.4074, mu: 0.4, mu_s: 0.45, r: 0.05, g: 9.81}
bodies:
  block: {mass: m, point_mass: true, position: [r*(-sin(angle)), 0, r*cos(angle)]}
  other: {mass: 1, point_mass: true, position: [0, 5, 100]}
shapes:
  block_foot: {body: block, type: sphere, radius: r}
  slope: {body: ground, type: plane, normal: [-sin(angle), 0, cos(angle)]}
contacts:
  slope_contact: {type: shapes, between: [ground, block], friction: {mu: mu, mu_static: mu_s}}
events:
  kick:
    when: t >= 0.1
    do: {impulse: {on: other, linear: [0, 1, 0]}}
    once: true
gravity: [0, 0, -g]
simulate: {until: 1, output_step: 0.1, max_step: 0.01, rtol: 1e-10, atol: 1e-12}
)";
  const test::RecordedRun r = test::run_and_record(parse_model(kInclineAndKick, "incline and kick"),
                                                   {"block.x", "block.vx", "other.vy"});
  EXPECT_NEAR(r.final("other.vy"), 1.0, 1e-12);
  EXPECT_NEAR(r.final("block.x"), r["block.x"][0], 1e-12);
  for (const EventRecord& e : r.events)
    EXPECT_TRUE((e.kind != "slip" && e.kind != "stick") || e.t == 0.0) << e.kind << " " << e.name;
}

// A box flat on four rough corners, event-driven: its four normal rows are
// dependent (one is dropped), and so are its stuck tangents' hold rows. The
// normal forces are shared out as the least-norm multipliers of those rows
// (system_dependent_contacts.cpp): m g / 4 each at rest, and while it slides
// the friction's moment shifts (m mu g h / (4 a)) onto the leading corners,
// h the centre's height and a the half-length along the slide. The box
// slides straight, s'' = -mu g, and sticks after v^2 / (2 mu g).
constexpr const char* kFlatBox = R"(ictus: 1
name: box flat on four rough corners
parameters: {m: 4, mu: 0.5, vx: 0.5, vy: 0, J: 0}
bodies:
  box:
    mass: m
    inertia: [0.05, 0.06, 0.07]
    position: [0, 0, 0.1]
    velocity: [vx, vy, 0]
shapes:
  body_box: {body: box, type: box, size: [0.4, 0.3, 0.2]}
  floor_plane: {body: ground, type: plane, normal: [0, 0, 1]}
contacts:
  floor: {type: shapes, between: [ground, box], restitution: 0.5, friction: mu}
events:
  kick:
    when: t >= 0.1
    do: {impulse: {on: box, linear: [0, J, 0]}}
    once: true
gravity: [0, 0, -9.81]
simulate: {until: 0.35, output_step: 0.01, rtol: 1e-10, atol: 1e-12}
)";

const std::vector<std::string> kFlatBoxChannels = {
    "box.x",           "box.y",           "box.z",         "box.vx",          "box.vy",
    "box.bryant_x",    "box.bryant_y",    "box.bryant_z",  "floor.p0.normal", "floor.p1.normal",
    "floor.p2.normal", "floor.p3.normal", "energy.balance"};

// Checks the flat box of kFlatBox sliding from t0 at speed v along `along`
// (sign the direction): the closed-form motion, no rotation, the corners'
// normal forces (the lower corners p0..p3 at (-+a, -b), (-+a, +b) in the
// box: `leading` those ahead), and the stick when it stops. `body` and
// `contact` name the box and its contact with the floor.
void expect_flat_box_slides_and_sticks(const test::RecordedRun& r, double t0, double v,
                                       const std::string& along, const std::string& velocity,
                                       double sign, double half_length,
                                       const std::array<bool, 4>& leading,
                                       const std::string& body = "box",
                                       const std::string& contact = "floor") {
  const double m = 4.0, mu = 0.5, h = 0.1;
  const double t_stop = t0 + v / (mu * kG), travel = v * v / (2.0 * mu * kG);
  const double share = m * kG / 4.0, shift = m * mu * kG * h / (4.0 * half_length);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = std::clamp(r.t[k], t0, t_stop) - t0;
    EXPECT_NEAR(r[along][k], sign * (v * t - 0.5 * mu * kG * t * t), 1e-9) << r.t[k];
    // at the kick and the stop a sample on either side of the instant
    const bool at_instant = std::abs(r.t[k] - t0) < 1e-9 || std::abs(r.t[k] - t_stop) < 1e-9;
    if (!at_instant) {
      EXPECT_NEAR(r[velocity][k], r.t[k] < t0 ? 0.0 : sign * (v - mu * kG * t), 1e-9) << r.t[k];
    }
    EXPECT_NEAR(r[body + ".z"][k], 0.1, 1e-9);
    for (const char* angle : {".bryant_x", ".bryant_y", ".bryant_z"})
      EXPECT_NEAR(r[body + angle][k], 0.0, 1e-12) << body << angle << " " << r.t[k];
    if (r.t[k] == 0.0 || at_instant) continue;  // nor at the start (its closing forces)
    const double d = r.t[k] > t0 && r.t[k] < t_stop ? shift : 0.0;
    for (std::size_t c = 0; c < 4; ++c)
      EXPECT_NEAR(r[fmt::format("{}.p{}.normal", contact, c)][k],
                  leading[c] ? share + d : share - d, 1e-9)
          << r.t[k] << " " << contact << " corner " << c;
  }
  EXPECT_NEAR(r.final(along), sign * travel, 1e-9);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
  bool stuck = false;  // the sliding axis's tangents stick when the box stops
  for (const EventRecord& e : r.events)
    stuck = stuck || (e.kind == "stick" && e.name.starts_with(contact + ".") &&
                      std::abs(e.t - t_stop) < 1e-9);
  EXPECT_TRUE(stuck) << contact;
}

TEST(ContactFriction, ABoxSlidingFlatOnFourRoughCornersDeceleratesAtMuGAndSticks) {
  for (const bool along_x : {true, false}) {
    const test::RecordedRun r = test::run_and_record(
        parse_model(kFlatBox, "sliding box",
                    {{"vx", along_x ? "0.5" : "0"}, {"vy", along_x ? "0" : "-0.5"}}),
        kFlatBoxChannels);
    // ahead: +x (p1, p3) or -y (p0, p1)
    expect_flat_box_slides_and_sticks(r, 0.0, 0.5, along_x ? "box.x" : "box.y",
                                      along_x ? "box.vx" : "box.vy", along_x ? 1.0 : -1.0,
                                      along_x ? 0.2 : 0.15,
                                      along_x ? std::array<bool, 4>{false, true, false, true}
                                              : std::array<bool, 4>{true, true, false, false});
  }
}

// The same box at rest, kicked sideways (an impulse event at 0.1 s): before,
// the particular normal forces left a corner pulling, its slipping tangent
// pulled the wrong way, and the box turned and stopped early, silently.
TEST(ContactFriction, AKickedBoxRestingFlatOnFourRoughCornersSlidesStraightAndSticks) {
  const test::RecordedRun r = test::run_and_record(
      parse_model(kFlatBox, "kicked box", {{"vx", "0"}, {"J", "2"}}), kFlatBoxChannels);
  expect_flat_box_slides_and_sticks(r, 0.1, 0.5, "box.y", "box.vy", 1.0, 0.15,
                                    {false, false, true, true});  // ahead: +y
  EXPECT_NEAR(r.final("box.x"), 0.0, 1e-12);
}

// Three such boxes on one rough floor (tests/models/three_flat_boxes.yaml),
// sliding at once along x, -y and x at 0.5, 0.4 and 0.3 m/s: 48 friction
// elements (two per corner of each box), 24 slipping together at first
// (each box's four lower corners), then 16 and 8 as the boxes stop. Before,
// a model was limited to 16 friction elements, one box on a plane. Each box
// follows its closed form alone.
constexpr const char* kThreeFlatBoxes = "tests/models/three_flat_boxes.yaml";

TEST(ContactFriction, ThreeBoxesSlidingFlatOnOneRoughFloorEachFollowTheirClosedForm) {
  std::vector<std::string> channels = {"energy.balance"};
  for (const std::string box : {"a", "b", "c"}) {
    for (const char* c : {".x", ".y", ".z", ".vx", ".vy", ".bryant_x", ".bryant_y", ".bryant_z"})
      channels.push_back("box_" + box + c);
    for (int p = 0; p < 4; ++p) channels.push_back(fmt::format("floor_{}.p{}.normal", box, p));
  }
  const test::RecordedRun r =
      test::run_and_record(load_model(test::source_path(kThreeFlatBoxes)), channels);
  // ahead: +x (p1, p3) or -y (p0, p1)
  expect_flat_box_slides_and_sticks(r, 0.0, 0.5, "box_a.x", "box_a.vx", 1.0, 0.2,
                                    {false, true, false, true}, "box_a", "floor_a");
  expect_flat_box_slides_and_sticks(r, 0.0, 0.4, "box_b.y", "box_b.vy", -1.0, 0.15,
                                    {true, true, false, false}, "box_b", "floor_b");
  expect_flat_box_slides_and_sticks(r, 0.0, 0.3, "box_c.x", "box_c.vx", 1.0, 0.2,
                                    {false, true, false, true}, "box_c", "floor_c");
}

// The flat box of kFlatBox at rest, pushed at its centre of mass along x
// or y by P = b t, with mu_s = 0.5 and mu = 0.3: the four corners share
// the load in many ways (their eight stuck tangents on three in-plane
// degrees of freedom, five self-stress modes tying them in pairs), and the
// box holds while some split keeps every corner within its cone, that is
// until P = mu_s m g (each corner then at mu_s N_i, whatever the normal
// forces, which the push moves to the corners ahead: share +- P h / (4 a)).
// All four tangents along the push then slip at once, and the box slides
// with m x'' = P - mu m g. Before, the modes were searched one at a time
// and the box slipped at about 17.5 N of its 19.62 N. The model's kick, of
// zero here, is an impact at 0.1 s that must leave the box at rest: it left
// the corners' rates at 1e-14 m/s, all eight tangents slipped the way of
// that round-off, and the push drove the box off against its friction.
TEST(ContactFriction, APushedBoxFlatOnFourRoughCornersSlipsAtMuSTimesItsWeight) {
  const double m = 4.0, b = 10.0, mu = 0.3, mu_s = 0.5, h = 0.1;
  const double t_s = mu_s * m * kG / b;
  for (const bool along_x : {true, false}) {
    std::string yaml = kFlatBox;
    const std::size_t at = yaml.find("events:");
    yaml = yaml.substr(0, at) +
           fmt::format(
               "forces:\n  push: {{type: force, on: box, direction: [{}, {}, 0], value: "
               "{}*t}}\n",
               along_x ? 1 : 0, along_x ? 0 : 1, b) +
           yaml.substr(at);
    const std::string rough = "friction: mu}";
    yaml.replace(yaml.find(rough), rough.size(),
                 fmt::format("friction: {{mu: {}, mu_static: {}}}}}", mu, mu_s));
    Model model = parse_model(yaml, "pushed box", {{"vx", "0"}});
    model.settings().until = 2.5;
    const std::string axis = along_x ? "x" : "y";
    std::vector<std::string> channels = {"box." + axis, "energy.balance"};
    for (int c = 0; c < 4; ++c)
      for (const std::string channel : {"normal", "friction_x", "friction_y"})
        channels.push_back(fmt::format("floor.p{}.{}", c, channel));
    const test::RecordedRun r = test::run_and_record(model, channels);
    ASSERT_DOUBLE_EQ(r.t.back(), 2.5) << axis;
    // the corners ahead: +x (p1, p3) or +y (p2, p3); their lever a
    const std::array<bool, 4> ahead = along_x ? std::array<bool, 4>{false, true, false, true}
                                              : std::array<bool, 4>{false, false, true, true};
    const double a = along_x ? 0.2 : 0.15;
    int slips = 0;  // from stuck (one decided again in the instant may log +1 -> +1)
    for (const EventRecord& e : r.events) {
      if (e.kind == "stick" && e.t > 0.0) ADD_FAILURE() << e.name << " " << e.detail;
      if (e.kind != "slip") continue;
      if (e.detail.find("mode +0 ->") != std::string::npos) ++slips;
      EXPECT_EQ(e.name.substr(e.name.size() - 1), axis) << e.name;
      EXPECT_NEAR(e.t, t_s, 1e-7) << e.name;
      EXPECT_NE(e.detail.find("-> +1"), std::string::npos) << e.detail;
    }
    EXPECT_EQ(slips, 4) << axis;
    for (std::size_t k = 0; k < r.t.size(); ++k) {
      const double t = r.t[k];
      if (t == 0.0 || std::abs(t - t_s) < 1e-6) continue;  // closing, and the slip's instant
      double sum = 0.0;
      for (int c = 0; c < 4; ++c) {
        const double N = r[fmt::format("floor.p{}.normal", c)][k];
        const double F = r[fmt::format("floor.p{}.friction_{}", c, axis)][k];
        const double shift = (t < t_s ? b * t : mu * m * kG) * h / (4.0 * a);
        EXPECT_NEAR(N, m * kG / 4.0 + (ahead[static_cast<std::size_t>(c)] ? shift : -shift), 1e-9)
            << axis << " corner " << c << " at " << t;
        if (t < t_s) {
          EXPECT_LE(std::abs(F), mu_s * N * (1 + 1e-9)) << axis << " corner " << c << " at " << t;
        } else {
          EXPECT_NEAR(F, -mu * N, 1e-9) << axis << " corner " << c << " at " << t;
        }
        sum += F;
      }
      if (t < t_s) {
        EXPECT_NEAR(r["box." + axis][k], 0.0, 1e-12) << t;
        EXPECT_NEAR(sum, -b * t, 1e-9) << axis << " at " << t;
      } else {
        const double tau = t - t_s;
        EXPECT_NEAR(r["box." + axis][k],
                    b / (6.0 * m) * (t * t * t - t_s * t_s * t_s) -
                        b / (2.0 * m) * t_s * t_s * tau - 0.5 * mu * kG * tau * tau,
                    1e-9)
            << axis << " at " << t;
      }
    }
    EXPECT_LT(r.max_abs("energy.balance"), 1e-9) << axis;
  }
}

// A 2a = 0.2 by 0.3 by 0.4 m box of mass m on four rough corners, pushed
// at the centre of its top by `push` (the force's value and keys).
std::string tall_box(double m, double I_yy, const std::string& push, double until) {
  return fmt::format(R"(
gravity: [0, 0, -9.81]
bodies:
  box: {{mass: {}, inertia: [0.0417, {}, 0.0217], position: [0, 0, 0.2]}}
shapes:
  box_shape: {{body: box, type: box, size: [0.2, 0.3, 0.4]}}
  floor_plane: {{body: ground, type: plane, normal: [0, 0, 1]}}
contacts:
  floor: {{type: shapes, between: [ground, box], friction: {{mu: 0.5, mu_static: 0.6}}}}
forces:
  push: {{type: force, on: box, at: [0, 0, 0.4], direction: [1, 0, 0], value: {}}}
simulate: {{until: {}, output_step: 0.01, rtol: 1e-10, atol: 1e-12}}
)",
                     m, I_yy, push, until);
}

// A tall box (2a by 2c by 2h_c) on four rough corners, pushed at the centre
// of its top by P = b t, tips about its front edge when P H = m g a (H its
// height): the two rear corners reach N = 0 together and open together.
// Regression: one opened first by round-off and the other was left closed
// with its switching function already below zero, so no crossing was ever
// located: it pulled the box down (-1.6 N) and the box never tipped. After
// the tip, the box turns about its front edge, held by the stuck front
// tangents: I_e theta'' = P (a sin theta + H cos theta) + m g (h_c sin theta
// - a cos theta), I_e = I_yy + m (a^2 + h_c^2), integrated here by RK4.
TEST(ContactFriction, ATallBoxPushedAtItsTopTipsAboutItsFrontEdge) {
  const double m = 2.0, b = 5.0, a = 0.1, h_c = 0.2, H = 0.4, I_yy = m * (0.04 + 0.16) / 12.0;
  const double t_tip = m * kG * a / (b * H);
  const Model model = parse_model(tall_box(m, I_yy, fmt::format("{}*t", b), 1.3), "tall box");
  std::vector<std::string> channels = {"box.wy", "energy.balance"};
  for (int c = 0; c < 4; ++c)
    for (const std::string channel : {"normal", "gap", "friction_x"})
      channels.push_back(fmt::format("floor.p{}.{}", c, channel));
  const test::RecordedRun r = test::run_and_record(model, channels);
  ASSERT_DOUBLE_EQ(r.t.back(), 1.3);
  // the rear corners p0, p2 (x = -a) open at the tip, both; nothing else switches
  int opened = 0;
  for (const EventRecord& e : r.events) {
    if (e.t == 0.0 || e.kind == "warning" || e.kind == "end") continue;
    EXPECT_NEAR(e.t, t_tip, 1e-7) << e.kind << " " << e.name << " " << e.detail;
    const bool rear = e.name.rfind("floor.p0", 0) == 0 || e.name.rfind("floor.p2", 0) == 0;
    EXPECT_TRUE(rear) << e.kind << " " << e.name << " " << e.detail;
    if (e.kind == "contact") {
      EXPECT_NE(e.detail.find("opened"), std::string::npos) << e.name << " " << e.detail;
      ++opened;
    }
  }
  EXPECT_EQ(opened, 2);
  // theta'' about the front edge, by RK4 from rest at the tip
  const double I_e = I_yy + m * (a * a + h_c * h_c);
  const auto accel = [&](double t, double theta) {
    return (b * t * (a * std::sin(theta) + H * std::cos(theta)) +
            m * kG * (h_c * std::sin(theta) - a * std::cos(theta))) /
           I_e;
  };
  double t = t_tip, theta = 0.0, omega = 0.0;
  const double dt = 1e-5;
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double rear_sum = r["floor.p0.normal"][k] + r["floor.p2.normal"][k];
    const double front_sum = r["floor.p1.normal"][k] + r["floor.p3.normal"][k];
    for (int c = 0; c < 4; ++c) {
      const double N = r[fmt::format("floor.p{}.normal", c)][k];
      EXPECT_GE(N, -1e-9) << "corner " << c << " pulls at " << r.t[k];
      EXPECT_LE(std::abs(r[fmt::format("floor.p{}.friction_x", c)][k]),
                0.6 * std::max(N, 0.0) + 1e-9)
          << "corner " << c << " at " << r.t[k];
    }
    if (r.t[k] < t_tip - 1e-6) {
      // statics: the rear pair carries m g / 2 - P H / (2 a)
      EXPECT_NEAR(rear_sum, m * kG / 2.0 - b * r.t[k] * H / (2.0 * a), 1e-9) << r.t[k];
      EXPECT_NEAR(front_sum, m * kG / 2.0 + b * r.t[k] * H / (2.0 * a), 1e-9) << r.t[k];
      EXPECT_NEAR(r["box.wy"][k], 0.0, 1e-9) << r.t[k];
      continue;
    }
    if (r.t[k] < t_tip + 1e-6) continue;  // the tip's instant
    while (t < r.t[k] - 1e-12) {
      const double h = std::min(dt, r.t[k] - t);
      const double k1v = accel(t, theta), k1x = omega;
      const double k2v = accel(t + h / 2, theta + h / 2 * k1x), k2x = omega + h / 2 * k1v;
      const double k3v = accel(t + h / 2, theta + h / 2 * k2x), k3x = omega + h / 2 * k2v;
      const double k4v = accel(t + h, theta + h * k3x), k4x = omega + h * k3v;
      theta += h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
      omega += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
      t += h;
    }
    EXPECT_NEAR(r["box.wy"][k], omega, 1e-6) << r.t[k];
    EXPECT_EQ(rear_sum, 0.0) << r.t[k];
    // the rear corners rise by 2 a sin(theta)
    EXPECT_NEAR(r["floor.p0.gap"][k], 2.0 * a * std::sin(theta), 1e-8) << r.t[k];
    EXPECT_NEAR(r["floor.p2.gap"][k], 2.0 * a * std::sin(theta), 1e-8) << r.t[k];
  }
  EXPECT_GT(omega, 0.5);  // it has tipped well beyond round-off
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);

  // a push of 8 N > m g a / H switched on by a condition at 0.3 s: the rear
  // corners open then, at the event's actions (they stayed closed, pulling
  // -3.1 N, when the opening was looked for before the actions only)
  const std::string stepped = tall_box(m, I_yy, "8, after: t > 0.3", 0.5);
  const test::RecordedRun s =
      test::run_and_record(parse_model(stepped, "tall box, stepped push"),
                           {"box.wy", "floor.p0.normal", "floor.p2.normal"});
  ASSERT_DOUBLE_EQ(s.t.back(), 0.5);
  int rear_opened = 0;
  for (const EventRecord& e : s.events)
    if (e.kind == "contact" && e.detail.find("opened") != std::string::npos) {
      EXPECT_NEAR(e.t, 0.3, 1e-9) << e.name;
      ++rear_opened;
    }
  EXPECT_EQ(rear_opened, 2);
  for (const char* rear : {"floor.p0.normal", "floor.p2.normal"})
    for (std::size_t k = 0; k < s.t.size(); ++k) EXPECT_GE(s[rear][k], -1e-9) << s.t[k];
  EXPECT_GT(s.final("box.wy"), 0.1);
}

// Two flat boxes (1 kg, mu 0.4, mu_s 0.5) at rest on one floor, pushed at
// their centres of mass by b t, b = 5 and 8 N/s: each starts to slide on
// its four x tangents at its own t_s = mu_s m g / b (0.981 and 0.613 s), as
// it does alone, and then x'' = b t - mu g:
//   x = b (t^3 - t_s^3) / 6 - b t_s^2 (t - t_s) / 2 - mu g (t - t_s)^2 / 2.
// Regression: their sixteen tangents at rest at t0 were decided as one set,
// beyond the enumeration (12), through the complementarity problem, whose
// pivoting ended on a ray; the run stopped at its start as Painleve's
// paradox. No row joins the boxes (the floor is the ground), so each set
// is decided on its own (System::stick_slip_group).
TEST(ContactFriction, TwoFlatBoxesAtRestOnOneFloorEachSlideAsAlone) {
  const double mu = 0.4, mu_s = 0.5;
  const Model model = parse_model(R"(
gravity: [0, 0, -9.81]
bodies:
  slow: {mass: 1, inertia: [0.0035, 0.0035, 0.0067], position: [0, 0, 0.025]}
  fast: {mass: 1, inertia: [0.0035, 0.0035, 0.0067], position: [0, 1, 0.025]}
shapes:
  slow_shape: {body: slow, type: box, size: [0.2, 0.2, 0.05]}
  fast_shape: {body: fast, type: box, size: [0.2, 0.2, 0.05]}
  floor_plane: {body: ground, type: plane, normal: [0, 0, 1]}
contacts:
  slow_floor: {type: shapes, between: [ground, slow], friction: {mu: 0.4, mu_static: 0.5}}
  fast_floor: {type: shapes, between: [ground, fast], friction: {mu: 0.4, mu_static: 0.5}}
forces:
  slow_push: {type: force, on: slow, at: [0, 0, 0.025], direction: [1, 0, 0], value: 5*t}
  fast_push: {type: force, on: fast, at: [0, 1, 0.025], direction: [1, 0, 0], value: 8*t}
simulate: {until: 1.1, output_step: 0.01, rtol: 1e-10, atol: 1e-12}
)",
                                  "two flat boxes");
  const test::RecordedRun r =
      test::run_and_record(model, {"slow.x", "slow.y", "fast.x", "fast.y", "energy.balance"});
  ASSERT_DOUBLE_EQ(r.t.back(), 1.1);
  // each box's four x tangents slip at its t_s, and nothing else switches
  std::map<std::string, int> slipped;
  for (const EventRecord& e : r.events) {
    if (e.t == 0.0 || e.kind == "warning" || e.kind == "end") continue;
    const std::string box = e.name.rfind("slow_floor.", 0) == 0 ? "slow" : "fast";
    const double b = box == "slow" ? 5.0 : 8.0;
    EXPECT_EQ(e.kind, "slip") << e.name << " " << e.detail;
    EXPECT_NE(e.name.find("friction_x"), std::string::npos) << e.name;
    EXPECT_NEAR(e.t, mu_s * kG / b, 1e-7) << e.name << " " << e.detail;
    ++slipped[box];
  }
  EXPECT_EQ(slipped["slow"], 4);
  EXPECT_EQ(slipped["fast"], 4);
  double worst = 0.0;
  for (const auto& [box, b] : {std::pair<std::string, double>{"slow", 5.0}, {"fast", 8.0}}) {
    const double t_s = mu_s * kG / b, x0 = r[box + ".x"][0];
    for (std::size_t k = 0; k < r.t.size(); ++k) {
      const double t = r.t[k], tau = std::max(t - t_s, 0.0);
      const double x = t <= t_s ? 0.0
                                : b * (t * t * t - t_s * t_s * t_s) / 6.0 -
                                      b * t_s * t_s * tau / 2.0 - mu * kG * tau * tau / 2.0;
      worst = std::max(worst, std::abs(r[box + ".x"][k] - x0 - x));
      EXPECT_NEAR(r[box + ".y"][k], r[box + ".y"][0], 1e-12) << box << " " << t;
    }
  }
  EXPECT_LT(worst, 1e-9);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
  fmt::print("two flat boxes on one floor: x within {:.1e} m of the closed forms\n", worst);
}

// A box (1 kg, 0.2 m cube) resting on a rough floor flush against a rough
// wall at x = 0.1, pushed at its centre by (fx, fy) N: the floor plane's
// eight corner points come first (p0-p7, the bottom four touching), the
// wall's next (p8-p15, the four at x = 0.1 touching). The box's normal and
// stuck forces are statically indeterminate (eight contacts and sixteen
// tangents on one body), and the wall's tangents can trade load with the
// floor's normals. Stopped at t0 as Painleve (the sixteen tangents' LCP
// ended on a ray) at rest or pushed below its limit; pushed 6 N along the
// wall it slid at 2.41 m/s^2 instead of 2.076, the wall's vertical tangent
// carrying 0.89 N of the weight on a normal force of 0.056 N.
test::RecordedRun box_against_a_wall(double fx, double fy,
                                     const char* inertia = "[0.0067, 0.0067, 0.0067]",
                                     double vy = 0.0) {
  const Model model = parse_model(fmt::format(R"(
gravity: [0, 0, -9.81]
bodies:
  box: {{mass: 1, inertia: {}, position: [0, 0, 0.1], velocity: [0, {}, 0]}}
shapes:
  box_shape: {{body: box, type: box, size: [0.2, 0.2, 0.2]}}
  floor_plane: {{body: ground, type: plane, normal: [0, 0, 1]}}
  wall_plane: {{body: ground, type: plane, normal: [-1, 0, 0], at: [0.1, 0, 0]}}
contacts:
  rough: {{type: shapes, between: [ground, box], friction: {{mu: 0.4, mu_static: 0.5}}}}
forces:
  push: {{type: force, on: box, components: [{}, {}, 0]}}
simulate: {{until: 0.1, output_step: 0.01, rtol: 1e-10, atol: 1e-12}}
)",
                                              inertia, vy, fx, fy),
                                  "box against a wall");
  std::vector<std::string> channels = {"box.x", "box.y", "box.z", "box.wx", "box.wy", "box.wz"};
  for (int p = 0; p < 16; ++p)
    for (const char* c :
         {"normal", "friction_x", "friction_y", "friction_mode_x", "friction_mode_y"})
      channels.push_back(fmt::format("rough.p{}.{}", p, c));
  return test::run_and_record(model, channels);
}

// At every sample (fx >= 0): the box slides along the wall alone, at a;
// every friction force within its cone (mu_s N stuck, mu N slipping); the
// tangents along the wall take the push less m a. Where the load leaves
// the split to the friction (`weight_on_the_floor`), the floor's normal
// forces carry the weight and the wall's the push into it: no tangent
// carries what a normal force can.
// With y(t) and y''(t) given (a box that slides and stops; y'' NaN at the
// stop, where the samples before and after the switch differ)
void expect_box_against_a_wall(const test::RecordedRun& r, double fx, double fy,
                               const std::function<double(double)>& y,
                               const std::function<double(double)>& a,
                               bool weight_on_the_floor = true);

void expect_box_against_a_wall(const test::RecordedRun& r, double fx, double fy, double a,
                               bool weight_on_the_floor = true) {
  expect_box_against_a_wall(
      r, fx, fy, [a](double t) { return a * t * t / 2.0; }, [a](double) { return a; },
      weight_on_the_floor);
}

void expect_box_against_a_wall(const test::RecordedRun& r, double fx, double fy,
                               const std::function<double(double)>& y,
                               const std::function<double(double)>& a, bool weight_on_the_floor) {
  const double mu = 0.4, mu_s = 0.5;
  ASSERT_DOUBLE_EQ(r.t.back(), 0.1);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    double floor = 0.0, wall = 0.0, along = 0.0;
    for (int p = 0; p < 16; ++p) {
      const std::string point = fmt::format("rough.p{}.", p);
      const double N = r[point + "normal"][k];
      EXPECT_GE(N, -1e-9) << point << " at " << r.t[k];
      (p < 8 ? floor : wall) += N;
      for (const char* axis : {"x", "y"}) {
        const double F = r[point + "friction_" + axis][k];
        const bool stuck = r[point + "friction_mode_" + axis][k] == 0.0;
        EXPECT_LE(std::abs(F), (stuck ? mu_s : mu) * std::max(N, 0.0) + 1e-9)
            << point << axis << " at " << r.t[k] << (stuck ? " stuck" : " slipping");
      }
      // the floor's friction_y is along y; the wall's friction_x is (its
      // tangents lie along y and z)
      along += r[point + (p < 8 ? "friction_y" : "friction_x")][k];
    }
    if (weight_on_the_floor) {
      EXPECT_NEAR(floor, kG, 1e-9) << r.t[k];
      EXPECT_NEAR(wall, fx, 1e-9) << r.t[k];
    }
    if (!std::isnan(a(r.t[k]))) {
      EXPECT_NEAR(along, a(r.t[k]) - fy, 1e-9) << r.t[k];
    }
    EXPECT_NEAR(r["box.y"][k], y(r.t[k]), 1e-12) << r.t[k];
    EXPECT_NEAR(r["box.x"][k], 0.0, 1e-12) << r.t[k];
    EXPECT_NEAR(r["box.z"][k], 0.1, 1e-12) << r.t[k];
    for (const char* w : {"box.wx", "box.wy", "box.wz"})
      EXPECT_NEAR(r[w][k], 0.0, 1e-12) << w << " at " << r.t[k];
  }
}

TEST(ContactFriction, ABoxAtRestInTheCornerOfAFloorAndAWallStaysAtRest) {
  // unloaded, pushed along the wall or into it below the static limit
  for (const auto& [fx, fy] : {std::pair{0.0, 0.0}, std::pair{0.0, 3.0}, std::pair{3.0, 0.0}}) {
    SCOPED_TRACE(fmt::format("push ({}, {}) N", fx, fy));
    expect_box_against_a_wall(box_against_a_wall(fx, fy), fx, fy, 0.0);
  }
  // along the wall beyond what the floor alone holds (mu_s m g = 4.905 N),
  // and into it: the wall's tangents must take part, and the split they
  // settle on is one of many within the cones (docs/theory/friction.md,
  // "A box in a corner")
  {
    SCOPED_TRACE("push (2, 5) N");
    expect_box_against_a_wall(box_against_a_wall(2.0, 5.0), 2.0, 5.0, 0.0, false);
  }
  // the same with a flatter inertia: a stick decision held the wall's
  // tangents on its own split within the cones, the dynamics' split left
  // three beyond (0.54 N against mu_s N = 0.07-0.42 N) and the decision's
  // ten rounds ended with them stuck there, reported for 0.05 s. The rounds
  // that do not settle now widen the dynamics' search of the split
  // (System::search_contact_splits), and it rests within the cones
  SCOPED_TRACE("push (2, 5) N, inertia (0.0035, 0.0035, 0.0067) kg m^2");
  const test::RecordedRun r = box_against_a_wall(2.0, 5.0, "[0.0035, 0.0035, 0.0067]");
  expect_box_against_a_wall(r, 2.0, 5.0, 0.0, false);
  for (const EventRecord& e : r.events)
    EXPECT_EQ(e.detail.find("beyond its limit after this instant"), std::string::npos) << e.detail;
}

// Pushed (3, 6) N, the floor and the wall hold up to mu_s (m g + fx) =
// 6.405 N along the wall with the wall's resultant normal force at the push
// into it. It slid (y(0.1) = 4.47 mm, 4.73 mm with the flatter inertia;
// at 6.3 N on the kinetic coefficients alone): the t0 decision stuck all
// sixteen tangents, the dynamics' split left some beyond their cones, and
// they were let go without the rounds failing to settle.
// The instant is decided again with the contact-modes split search
// (ElementSwitching::decide_again_with_contact_splits). Beyond 6.405 N it
// slides with a = fy - mu (m g + fx).
TEST(ContactFriction, ABoxPushedAlongAWallWithinWhatFloorAndWallHoldStaysAtRest) {
  for (const char* inertia : {"[0.0067, 0.0067, 0.0067]", "[0.0035, 0.0035, 0.0067]"}) {
    for (const double fy : {6.0, 6.3}) {
      SCOPED_TRACE(fmt::format("push (3, {}) N, inertia {} kg m^2", fy, inertia));
      // the split is one of many within the cones: the wall's tangents may
      // carry some of the weight
      expect_box_against_a_wall(box_against_a_wall(3.0, fy, inertia), 3.0, fy, 0.0, false);
    }
    SCOPED_TRACE(fmt::format("push (3, 6.5) N, inertia {} kg m^2", inertia));
    expect_box_against_a_wall(box_against_a_wall(3.0, 6.5, inertia), 3.0, 6.5,
                              6.5 - 0.4 * (kG + 3.0));
  }
}

// The same box sliding along the wall at 0.05 m/s against the push (fx, fy)
// N: friction and push stop it at a = fy + mu (m g + fx) (after 4.49 ms at
// (3, 6) N), and it stays where floor and wall hold it, mu_s (m g + fx) =
// 6.405 N at fx = 3 N; beyond that it slides back at fy - mu (m g + fx).
void expect_box_sliding_along_a_wall_to_stop(double fx, double fy) {
  const double v0 = 0.05, mu = 0.4, mu_s = 0.5;
  const double stop = fy + mu * (kG + fx);
  const double start = fy > mu_s * (kG + fx) ? fy - mu * (kG + fx) : 0.0;
  const double t_stop = v0 / stop, y_stop = -v0 * v0 / (2.0 * stop);
  auto y = [&](double t) {
    if (t <= t_stop) return -v0 * t + stop * t * t / 2.0;
    const double after = t - t_stop;
    return y_stop + start * after * after / 2.0;
  };
  auto a = [&](double t) {
    if (std::abs(t - t_stop) <= 1e-9) return std::numeric_limits<double>::quiet_NaN();
    return t < t_stop ? stop : start;
  };
  for (const char* inertia : {"[0.0067, 0.0067, 0.0067]", "[0.0035, 0.0035, 0.0067]"}) {
    SCOPED_TRACE(fmt::format("push ({}, {}) N, inertia {} kg m^2", fx, fy, inertia));
    expect_box_against_a_wall(box_against_a_wall(fx, fy, inertia, -v0), fx, fy, y, a, false);
  }
}

// Pushed (3, 6) N it slid back (y(0.1) = +3.97 mm): the decision at the
// stop stuck the tangents, the dynamics' split let them go. The instant is
// decided again from where it stood
// (ElementSwitching::decide_again_with_contact_splits).
// Pushed (0, 4) N, with nothing pressing it into the wall, the floor alone
// holds it (mu_s m g = 4.905 N). With the flatter inertia the run stopped
// at the stop (6.31 ms) as Painleve, naming the wall's four points; that
// instant is decided again the same way. The split it rests on is one of
// many: the wall's points carry up to 0.23 N (the floor's tangents press
// the box into it), within every cone.
TEST(ContactFriction, ABoxSlidingAlongAWallStopsWhereFloorAndWallHoldIt) {
  expect_box_sliding_along_a_wall_to_stop(3.0, 6.0);
  expect_box_sliding_along_a_wall_to_stop(0.0, 4.0);
}

// Its structure changes at every stick and slip: each "redundant
// constraints" warning names a dependent row that no earlier one did (the
// run logged 20, each naming most of the rows of one before; now 3)
TEST(ContactFriction, ABoxSlidingAlongAWallToAStopNamesEachDependentRowInOneWarning) {
  const test::RecordedRun r = box_against_a_wall(0.0, 4.0, "[0.0035, 0.0035, 0.0067]", -0.05);
  std::set<std::string> named;
  int warnings = 0;
  for (const EventRecord& e : r.events) {
    if (e.kind != "warning" || e.detail.rfind("redundant constraints", 0) != 0) continue;
    ++warnings;
    // the rows: "... eliminated (row, row, ...)"
    const std::string before = "eliminated (";
    const std::size_t open = e.detail.find(before) + before.size() - 1;
    const std::size_t close = e.detail.find(')', open);
    ASSERT_NE(e.detail.find(before), std::string::npos) << e.detail;
    ASSERT_NE(close, std::string::npos) << e.detail;
    bool new_row = false;
    std::stringstream rows(e.detail.substr(open + 1, close - open - 1));
    for (std::string row; std::getline(rows, row, ',');) {
      row.erase(0, row.find_first_not_of(' '));
      new_row = named.insert(row).second || new_row;
    }
    EXPECT_TRUE(new_row) << e.detail;
  }
  EXPECT_GE(warnings, 1);
  EXPECT_LE(warnings, 3);
}

// Pushed (3, 6.5) N it slides back from the stop (about 3 s a run in Release:
// the decision at the reversal enumerates the eight tangents along the wall)
TEST(ContactFrictionSlow, ABoxSlidingAlongAWallSlidesBackBeyondWhatFloorAndWallHold) {
  expect_box_sliding_along_a_wall_to_stop(3.0, 6.5);
}

TEST(ContactFriction, ABoxPushedAlongAWallSlidesWithTheFloorsAndTheWallsFriction) {
  // m a = fy - mu (m g + fx): the wall's normal force is the push into it
  const double mu = 0.4;
  for (const auto& [fx, fy] : {std::pair{0.0, 6.0}, std::pair{2.0, 8.0}}) {
    SCOPED_TRACE(fmt::format("push ({}, {}) N", fx, fy));
    expect_box_against_a_wall(box_against_a_wall(fx, fy), fx, fy, fy - mu * (kG + fx));
  }
}

// A cube on a rough floor pushed at its centre along a diagonal. The
// four-sided pyramid holds up to mu_s N on each tangent, so it holds the
// push (4, 4) N at rest. Beyond (5, 5 and 5, 4.6 N) the pyramid's corners
// also admit the cube turning about either of two mirror corners, each
// pivot stuck on both tangents at 1.73 N in all against mu_s N = 1.226 N;
// the run stopped at t0 with "several consistent combinations". The
// combination whose stuck points hold within the round cone is taken: it
// slides, each axis at (F - mu m g)/m, without turning. Pushed (5, 4.6) N
// the y tangents would hold on the pyramid beside the x tangents slipping,
// but a point stuck on one tangent and slipping at mu N on the other holds
// about 1.5 N against its round cone's 1.226 N: it slips on both.
TEST(ContactFriction, ACubePushedAlongADiagonalSlidesWithoutTurning) {
  const double mu = 0.4;
  for (const auto& [fx, fy] :
       {std::pair{4.0, 4.0}, std::pair{5.0, 5.0}, std::pair{5.0, 4.6}, std::pair{-5.0, 5.0}}) {
    const bool slides = std::hypot(fx, fy) > 6.0;
    SCOPED_TRACE(fmt::format("push ({}, {}) N", fx, fy));
    const Model model = parse_model(fmt::format(R"(
gravity: [0, 0, -9.81]
bodies:
  box: {{mass: 1, inertia: [0.0067, 0.0067, 0.0067], position: [0, 0, 0.1]}}
shapes:
  box_shape: {{body: box, type: box, size: [0.2, 0.2, 0.2]}}
  floor_plane: {{body: ground, type: plane, normal: [0, 0, 1]}}
contacts:
  rough: {{type: shapes, between: [ground, box], friction: {{mu: 0.4, mu_static: 0.5}}}}
forces:
  push: {{type: force, on: box, components: [{}, {}, 0]}}
simulate: {{until: 0.1, output_step: 0.01, rtol: 1e-10, atol: 1e-12}}
)",
                                                fx, fy),
                                    "cube pushed along a diagonal");
    const test::RecordedRun r = test::run_and_record(model, {"box.x", "box.y", "box.wz"});
    ASSERT_DOUBLE_EQ(r.t.back(), 0.1);
    // sliding, each axis at (F - mu m g)/m: the pyramid's kinetic friction
    auto along = [&](double f) { return slides ? f - std::copysign(mu * kG, f) : 0.0; };
    for (std::size_t k = 0; k < r.t.size(); ++k) {
      const double t = r.t[k];
      EXPECT_NEAR(r["box.x"][k], along(fx) * t * t / 2.0, 1e-12) << t;
      EXPECT_NEAR(r["box.y"][k], along(fy) * t * t / 2.0, 1e-12) << t;
      EXPECT_NEAR(r["box.wz"][k], 0.0, 1e-12) << t;
    }
  }
}

// Two 1 kg cubes welded side by side on a rough floor, pushed at their
// centre of mass: one box of 0.4 x 0.2 m on eight corners, whose normal
// forces' self-stress passes through the weld's rows. That split was left
// as the solve gave it (modes with a joint's row were): pushed (8, 8) N
// the corners carried 0.07 to 6.0 N (0.45 to 4.45 N now), it let go at
// 0.074 s and crept; pushed (9.5, 9.5) N, within what the four-sided
// pyramid holds on each axis (mu_s m g = 9.81 N), it slid (4.13 mm in
// 0.1 s). The weld's rows now follow the contact rows' least-norm split.
// Beyond 9.81 N on both axes it slides, each at (F - mu m g)/m, without
// turning. Pushed (10, 9) N, beyond 9.81 N along x only, it slid and
// turned (w_z = -0.19 rad/s at 0.1 s): its sixteen tangents are decided
// through the complementarity problem, whose combination held the y
// tangents stuck beside the x ones slipping, beyond the round cone. With
// the round cone's tie-break there it slides along both axes, as the
// single cube pushed (5, 4.6) N does; pushed (10, 5) N the y tangents hold
// beside the x ones slipping (the round cone leaves 0.6 mu_s m g = 5.886 N
// along y). The forces reported are the dynamics' split, within the
// pyramid: at (10, 5) N a corner's friction, stuck along y beside mu N
// along x, is 0.505 N in all against its round cone's mu_s N = 0.423 N.
TEST(ContactFriction, TwoCubesWeldedSideBySideRestAndSlideAsOneBox) {
  const double mu = 0.4, mu_s = 0.5, m = 2.0;
  for (const auto& [fx, fy] :
       {std::pair{0.0, 0.0}, std::pair{8.0, 8.0}, std::pair{9.5, 9.5}, std::pair{10.0, 10.0},
        std::pair{12.0, 12.0}, std::pair{10.0, 9.0}, std::pair{10.0, 5.0}}) {
    SCOPED_TRACE(fmt::format("push ({}, {}) N", fx, fy));
    const Model model = parse_model(fmt::format(R"(
gravity: [0, 0, -9.81]
bodies:
  a: {{mass: 1, inertia: [0.0067, 0.0067, 0.0067], position: [-0.1, 0, 0.1]}}
  b: {{mass: 1, inertia: [0.0067, 0.0067, 0.0067], position: [0.1, 0, 0.1]}}
joints:
  weld: {{type: fixed, between: [a, b], at: [0, 0, 0.1]}}
shapes:
  a_shape: {{body: a, type: box, size: [0.2, 0.2, 0.2]}}
  b_shape: {{body: b, type: box, size: [0.2, 0.2, 0.2]}}
  floor_plane: {{body: ground, type: plane, normal: [0, 0, 1]}}
contacts:
  rough_a: {{type: shapes, between: [ground, a], friction: {{mu: 0.4, mu_static: 0.5}}}}
  rough_b: {{type: shapes, between: [ground, b], friction: {{mu: 0.4, mu_static: 0.5}}}}
forces:
  push: {{type: force, on: a, at: [0, 0, 0.1], components: [{}, {}, 0]}}
simulate: {{until: 0.1, output_step: 0.01, rtol: 1e-10, atol: 1e-12}}
)",
                                                fx, fy),
                                    "two cubes welded side by side");
    std::vector<std::string> channels = {"a.x", "a.y", "a.wz"};
    for (const char* contact : {"rough_a", "rough_b"})
      for (int p = 0; p < 4; ++p)
        for (const char* c :
             {"normal", "friction_x", "friction_y", "friction_mode_x", "friction_mode_y"})
          channels.push_back(fmt::format("{}.p{}.{}", contact, p, c));
    const test::RecordedRun r = test::run_and_record(model, channels);
    ASSERT_DOUBLE_EQ(r.t.back(), 0.1);
    // x slides beyond the pyramid's mu_s m g; y too, unless what the round
    // cone leaves beside mu N along x holds it
    const bool slides_x = fx > mu_s * m * kG;
    const bool slides_y = fy > (slides_x ? std::sqrt(mu_s * mu_s - mu * mu) : mu_s) * m * kG;
    const double ax = slides_x ? (fx - mu * m * kG) / m : 0.0;
    const double ay = slides_y ? (fy - mu * m * kG) / m : 0.0;
    for (std::size_t k = 0; k < r.t.size(); ++k) {
      const double t = r.t[k];
      EXPECT_NEAR(r["a.x"][k], -0.1 + ax * t * t / 2.0, 1e-12) << t;
      EXPECT_NEAR(r["a.y"][k], ay * t * t / 2.0, 1e-12) << t;
      EXPECT_NEAR(r["a.wz"][k], 0.0, 1e-12) << t;
      double weight = 0.0;
      for (const char* contact : {"rough_a", "rough_b"})
        for (int p = 0; p < 4; ++p) {
          const std::string point = fmt::format("{}.p{}.", contact, p);
          const double N = r[point + "normal"][k];
          weight += N;
          if (fx == 0.0 && fy == 0.0) {
            EXPECT_NEAR(N, m * kG / 8.0, 1e-9) << point << " at " << t;
          }
          const double Fx = r[point + "friction_x"][k], Fy = r[point + "friction_y"][k];
          for (const auto& [axis, slides, F] :
               {std::tuple{"x", slides_x, Fx}, std::tuple{"y", slides_y, Fy}}) {
            const bool stuck = r[point + "friction_mode_" + axis][k] == 0.0;
            EXPECT_EQ(stuck, !slides) << point << axis << " at " << t;
            EXPECT_LE(std::abs(F), (stuck ? mu_s : mu) * std::max(N, 0.0) + 1e-9)
                << point << axis << " at " << t;
          }
        }
      EXPECT_NEAR(weight, m * kG, 1e-9) << t;
    }
  }
}

// The tall box pushed over: b t at (0, yp, 0.4) until it has turned by
// `ang` about y, then it falls onto its side (restitution e).
constexpr const char* kPushedOver = R"(
parameters: {b: 5, yp: 0, e: 0, ang: 0.6}
gravity: [0, 0, -9.81]
bodies:
  box: {mass: 2, inertia: [0.0417, 0.0333, 0.0217], position: [0, 0, 0.2]}
shapes:
  box_shape: {body: box, type: box, size: [0.2, 0.3, 0.4]}
  floor_plane: {body: ground, type: plane, normal: [0, 0, 1]}
contacts:
  floor: {type: shapes, between: [ground, box], friction: {mu: 0.5, mu_static: 0.6}, restitution: e}
forces:
  push: {type: force, on: box, at: [0, yp, 0.4], direction: [1, 0, 0], value: b*t, until: box.bryant_y > ang}
simulate: {until: 3, output_step: 0.01, rtol: 1e-10, atol: 1e-12}
)";

// The tall box pushed over: b t at (0, yp, 0.4) until it has turned by
// `ang` about y, it falls onto its side (restitution e), rocks on the edge
// it fell about and comes to rest lying on its 0.4 by 0.3 m face. Lying on
// that edge, the y tangents of its two corners are one row (to 1e-16, or to
// 1.6e-7 where the push's offset has yawed it): both at zero rate, stuck
// together they held only with their split statically indeterminate and
// the stabilisation's drift (1e-9 m/s^2) taken for none. Regression: each
// of these runs stopped as Painleve's paradox ("no" or "several consistent
// combinations") between 1.70 and 1.75 s, at mu = 0.5. Pushed far off
// centre (yp 0.1 and 0.15) it yaws while it pivots on its front edge, whose
// two y tangents, stuck, are one row while that edge lies along y: the
// second one's hold is dependent and dropped, its force zero. As the edge
// yaws the rows part and the hold is kept again, with the force the rigid
// model gives it there, hundreds of times its limit (869 to 1222 N against
// mu_s N of 4 N: the balance of the yaw moment through rows 1e-3 apart).
// Regression: that force was held, its margin having jumped below zero at
// an accepted step, past any crossing the step could locate; now the hold
// lets go there (ElementSwitching::let_go_overloaded). Landing with
// restitution (e 0.3, 0.6), in a cascade of bounces on its corners, some
// tangents were left slipping with their switching functions at zero, and
// the slips' ends were never located: friction drove the box lying on its
// side to 3.3 m/s, 20 to 23 J created, booked as negative dissipation (the
// balance closed). Now a slip moving against its direction at an accepted
// step is turned round there (ElementSwitching::turn_against_slips), and
// the dissipation never falls. (Those landings end at rest to 1e-8: the
// first turns at 6e-9 rad/s at 3 s, recorded with this channel set.)
TEST(ContactFriction, ATallBoxPushedOverFallsOnItsSideAndComesToRest) {
  struct Case {
    double ang, yp, e;
    double rest = 1e-9;  // |v|, |w| at the end
    double b = 5.0;      // the push's rate [N/s]
  };
  const double mu = 0.5, mu_s = 0.6;
  for (const Case c :
       {Case{0.5, 0.05, 0.3}, Case{0.5, 0.1, 0.3}, Case{0.7, 0.05, 0.3}, Case{1.2, 0.0, 0.3},
        Case{0.7, 0.1, 0.0}, Case{0.5, 0.15, 0.0}, Case{0.7, 0.15, 0.0}, Case{0.9, 0.1, 0.3, 1e-8},
        Case{1.2, 0.03, 0.3, 1e-8}, Case{0.7, 0.1, 0.6, 1e-8},
        // rocking on an edge yawed by 1e-7 rad at 1.82 s, a corner's y
        // tangent locked by the other's stuck hold: was stopped as Painleve
        // (no combination), its coupling through the parting rows taken for
        // a response (system_friction_decision.cpp, lock_below)
        Case{0.3, 0.15, 0.3},
        // landing flat after a cascade of bounces, its tangents' Baumgarte
        // pull of 1-3e-5 m/s^2 along the nearly locked directions: was
        // stopped as Painleve ('several', 2.4021 s; drop_dependent_directions)
        Case{0.3, 0.0, 0.6},
        // two tangents at zero rate together, either holding while the other
        // slips: the combination every mu_s from mu up admits is taken (was
        // stopped at 1.8429 s; the test below)
        Case{0.7, 0.1, 0.3},
        // landed on its side, yawed by the push's offset: two corners' y
        // tangents stuck on one line to a sine of 1.25e-5, kept as
        // independent, S lost the pivot (ratio -1.8e-9) and the run stopped
        // at 1.2571 s blaming the masses (System::Impl::kNearlyDependent)
        Case{0.6, 0.05, 0.0, 1e-9, 8.0},
        // an accumulation of impacts at two corners, then at rest on the
        // other diagonal pair, the corners between them at the floor: one
        // of them, touching and approaching as the instant ended, was left
        // on the far side of its switching function and sank through the
        // floor (0.048 m by 3 s, |w| 1.05 rad/s; ContactSwitching::settle)
        Case{0.5, 0.05, 0.3, 1e-9, 12.0},
        // stopped at 1.61 s with several combinations through the static
        // excess; it now comes to rest
        Case{1.0, 0.05, 0.3, 1e-9, 12.0}}) {
    const std::string label = fmt::format("ang {} yp {} e {} b {}", c.ang, c.yp, c.e, c.b);
    std::vector<std::string> channels = {"box.z",  "box.vx",         "box.vy",
                                         "box.vz", "box.wx",         "box.wy",
                                         "box.wz", "energy.balance", "energy.dissipated"};
    for (int p = 0; p < 8; ++p)
      for (const char* what :
           {"normal", "friction_x", "friction_y", "friction_mode_x", "friction_mode_y"})
        channels.push_back(fmt::format("floor.p{}.{}", p, what));
    const test::RecordedRun r = test::run_and_record(parse_model(kPushedOver, "pushed over",
                                                                 {{"ang", fmt::format("{}", c.ang)},
                                                                  {"yp", fmt::format("{}", c.yp)},
                                                                  {"e", fmt::format("{}", c.e)},
                                                                  {"b", fmt::format("{}", c.b)}}),
                                                     channels);
    ASSERT_DOUBLE_EQ(r.t.back(), 3.0) << label;
    // every corner presses or carries nothing; each tangent within mu_s N
    // stuck, at mu N against its slip slipping (the contact's four-sided cone)
    for (std::size_t k = 0; k < r.t.size(); ++k)
      for (int p = 0; p < 8; ++p) {
        const std::string corner = fmt::format("floor.p{}.", p);
        const double N = r[corner + "normal"][k];
        EXPECT_GE(N, -1e-9) << label << ", " << corner << " at " << r.t[k];
        for (const char* axis : {"x", "y"}) {
          const double F = r[corner + "friction_" + axis][k];
          const double mode = r[corner + "friction_mode_" + axis][k];
          if (mode == 0.0) {
            EXPECT_LE(std::abs(F), mu_s * std::max(N, 0.0) + 1e-9)
                << label << ", " << corner << axis << " at " << r.t[k];
          } else {
            EXPECT_NEAR(F, -mode * mu * std::max(N, 0.0), 1e-9)
                << label << ", " << corner << axis << " at " << r.t[k];
          }
        }
      }
    // at rest on its 0.4 by 0.3 m face, its centre 0.1 m above the floor
    EXPECT_NEAR(r.final("box.z"), 0.1, 1e-9) << label;
    for (const char* v : {"box.vx", "box.vy", "box.vz", "box.wx", "box.wy", "box.wz"})
      EXPECT_LT(std::abs(r.final(v)), c.rest) << label << ", " << v;
    EXPECT_LT(r.max_abs("energy.balance"), 1e-9) << label;
    // friction and the impacts take energy, never give it. Regression: the
    // dissipation fell by 9.2e-5 J (0.9 rad, 0.1 m, e 0.3; 1.2 rad, 0.03 m,
    // e 0.3) and 1.4e-5 J (0.7 rad, 0.1 m, e 0.6): lying on its side after
    // the bounces, at rest to 1e-17 J, tangents woken at a drift's rate
    // (1.5e-9 m/s) slipped the way they moved, their friction turning them
    // round at once, until turned round themselves 1.4 ms later at 6.8 mm/s
    // (ElementSwitching::decide: now decided at zero rate)
    double most = 0.0;
    for (const double dissipated : r["energy.dissipated"]) {
      most = std::max(most, dissipated);
      EXPECT_GE(dissipated, most - 1e-9) << label;
    }
  }
}

// A stuck hold dependent on another one is dropped; it is kept again where
// the mechanism leaves that singular configuration (a row dropped no longer
// holds: System::accept decides the rank again). That was judged only if
// the System's last evaluation was at the accepted state; the run's summary,
// locating the extrema of its channels on the step's dense output, may
// leave it inside the step, and then the hold came back a step later. The
// box pushed over at 0.9 rad, 0.15 m off centre, e = 0.3: recording box.x
// alone, floor.p3.friction_y came back at 1.47870 s and the run went on to
// its end; recording the command line's default channels, at 1.47978 s,
// and every channel, at 1.48518 s, and both stopped at 1.8125 s ("several
// consistent combinations"). Now the accepted state judges the stepper's
// own solve there, whatever the probes read after it.
TEST(ContactFriction, RecordingEveryChannelDoesNotChangeWhenADroppedHoldComesBack) {
  const Model model =
      parse_model(kPushedOver, "pushed over", {{"ang", "0.9"}, {"yp", "0.15"}, {"e", "0.3"}});
  Simulation positions_only(model);
  Recorder positions({"box.x"});
  positions_only.add_observer(positions);
  const RunStatistics a = positions_only.run();

  Simulation everything(model);
  std::vector<std::string> all;
  for (int k = 0; k < everything.system().channel_count(); ++k)
    all.push_back(everything.system().channel_info(k).name);
  Recorder recorded(all);
  Summary summary(all);
  everything.add_observer(recorded);
  everything.add_observer(summary);
  const RunStatistics b = everything.run();

  EXPECT_EQ(a.end_time, 3.0);
  EXPECT_EQ(b.end_time, a.end_time);
  EXPECT_EQ(b.integrator.steps, a.integrator.steps);
  EXPECT_EQ(b.element_switches, a.element_switches);
  EXPECT_EQ(recorded.series("box.x"), positions.series("box.x"));
}

// Several consistent combinations at zero rate through the static
// coefficient's excess (mu 0.5, mu_s 0.6): the tall box pushed over at
// 0.7 rad, 0.1 m off centre, e = 0.3 slides on its side, and at 1.8429 s
// two corners' tangents reach zero rate together; with mu_s = mu one
// combination holds, with as many stuck, and it holds with every static
// coefficient between (its stuck forces within mu N). It is taken, with a
// warning naming the contacts and the time, where the run stopped; the box
// comes to rest on its side (the cones and the rest: the test above). Where
// the one left with mu_s = mu has fewer stuck, the run still stops
// (tests/bad_models/contact_friction_static_excess_several.yaml).
TEST(ContactFriction,
     SeveralCombinationsThroughTheStaticExcessTakeTheOneEveryStaticCoefficientAdmits) {
  const test::RecordedRun r = test::run_and_record(
      parse_model(kPushedOver, "pushed over", {{"ang", "0.7"}, {"yp", "0.1"}, {"e", "0.3"}}),
      {"box.z"});
  ASSERT_DOUBLE_EQ(r.t.back(), 3.0);
  int taken = 0;
  for (const EventRecord& e : r.events) {
    if (e.kind != "warning" || e.detail.find("from mu to mu_static is taken") == std::string::npos)
      continue;
    ++taken;
    EXPECT_NEAR(e.t, 1.8429455, 1e-6);
    EXPECT_NE(e.detail.find("contact 'floor.p7', contact 'floor.p5'"), std::string::npos)
        << e.detail;
    EXPECT_NE(e.detail.find("t = 1.8429455"), std::string::npos) << e.detail;
    // which of them sticks and which slips is said, and is what the run does
    EXPECT_NE(e.detail.find("(stuck: floor.p5.friction_y; slipping: floor.p7.friction_y;"),
              std::string::npos)
        << e.detail;
    bool stuck_there = false;
    for (const EventRecord& s : r.events)
      stuck_there =
          stuck_there || (s.kind == "stick" && s.t == e.t && s.name == "floor.p5.friction_y" &&
                          s.detail.find("-> +0;") != std::string::npos);
    EXPECT_TRUE(stuck_there);
  }
  EXPECT_EQ(taken, 1);
  EXPECT_NEAR(r.final("box.z"), 0.1, 1e-9);
}

// A box on four rough corners pushed off its centre at 30 degrees, b t at a
// point of its top: six of its tangents let go at 2.2655 s and it starts to
// turn about the normal. Its two stuck y tangents across the front edge are
// one row while that edge lies along y, and their mode of the dependent
// contact rows stops holding as it turns; the normals' mode still holds.
// Regression: the failing mode dropped the least-norm split of every mode,
// the normals' too, so that a corner's normal jumped from 6.9 N to -5.7 N
// within a step and the corner opened. Checked until 2.5 s, at two output
// steps: every normal presses, no contact opens, every tangent within mu_s N
// and every slipping one at mu N, the energy balanced. At 2.4288 s the two
// y tangents' rows part as the box turns, and the dropped hold is kept
// again with 343 N, which was held (mu_s N is 3 N): now it lets go there
// (the tall box pushed over, below). (The dropped hold, which nothing
// holds, has drifted by then, at 1 cm/s: docs/theory/friction.md, a known
// gap.)
TEST(ContactFriction, ABoxPushedOffCentreKeepsItsFourCornersPressingAsItStartsToTurn) {
  const double mu = 0.3, mu_s = 0.5;
  for (const double output_step : {0.01, 0.001}) {
    const Model model = parse_model(fmt::format(R"(
gravity: [0, 0, -9.81]
bodies:
  box: {{mass: 4, inertia: [0.05, 0.06, 0.07], position: [0, 0, 0.1]}}
shapes:
  body_box: {{body: box, type: box, size: [0.4, 0.3, 0.2]}}
  floor_plane: {{body: ground, type: plane, normal: [0, 0, 1]}}
contacts:
  floor: {{type: shapes, between: [ground, box], friction: {{mu: {}, mu_static: {}}}}}
forces:
  push: {{type: force, on: box, at: [0.1, 0.1, 0.1], direction: [0.8660254037844387, 0.5, 0], value: 10*t}}
simulate: {{until: 2.5, output_step: {}, rtol: 1e-10, atol: 1e-12}}
)",
                                                mu, mu_s, output_step),
                                    "box pushed off centre");
    std::vector<std::string> channels = {"box.wz", "energy.balance"};
    for (int c = 0; c < 4; ++c) {
      channels.push_back(fmt::format("floor.p{}.normal", c));
      for (const char* axis : {"x", "y"})
        for (const char* channel : {"friction_", "friction_mode_"})
          channels.push_back(fmt::format("floor.p{}.{}{}", c, channel, axis));
    }
    const test::RecordedRun r = test::run_and_record(model, channels);
    ASSERT_DOUBLE_EQ(r.t.back(), 2.5);
    int slips = 0;
    for (const EventRecord& e : r.events) {
      if (e.t > 0.0) {
        EXPECT_NE(e.kind, "contact") << e.t << " " << e.name << " " << e.detail;
      }
      slips += e.kind == "slip" ? 1 : 0;
    }
    EXPECT_GE(slips, 6) << output_step;
    for (std::size_t k = 0; k < r.t.size(); ++k)
      for (int c = 0; c < 4; ++c) {
        const double N = r[fmt::format("floor.p{}.normal", c)][k];
        EXPECT_GT(N, 1.0) << "corner " << c << " at " << r.t[k];
        for (const char* axis : {"x", "y"}) {
          const double F = r[fmt::format("floor.p{}.friction_{}", c, axis)][k];
          const double mode = r[fmt::format("floor.p{}.friction_mode_{}", c, axis)][k];
          const std::string where = fmt::format("p{}.{} at {}", c, axis, r.t[k]);
          if (mode == 0.0) {
            EXPECT_LE(std::abs(F), mu_s * N + 1e-9) << where;
          } else {
            EXPECT_NEAR(F, -mode * mu * N, 1e-9) << where;
          }
        }
      }
    EXPECT_GT(r.max_abs("box.wz"), 0.02);  // it turns
    EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
  }
}

// A plank on three to six box feet, 12 to 24 rough corners on the floor,
// pushed at its centre of mass by b t: the corners' 24 to 48 stuck tangents
// hold its three in-plane degrees of freedom with 21 to 45 self-stress modes
// in one program (system_dependent_holds.cpp), and all the corners reach
// mu_s N together at P = mu_s m g, by the static argument of the box above
// (any split with every corner within its cone holds, and at that load only
// the one with every x tangent at its limit does). Checked: every corner
// within its cone until then, the x tangents alone let go then, together
// (each one's release used to load the next beyond its limit, and the split
// carried that to y tangents that then slipped at zero rate), and the
// closed-form motion after. On seven feet (53 modes, beyond the search's
// bounds) the split is left as solved, and a warning says so.
std::string plank_on_feet(const std::vector<std::array<double, 2>>& at, double m, double mu,
                          double mu_s, double b) {
  std::string shapes;
  for (std::size_t f = 0; f < at.size(); ++f)
    shapes += fmt::format(
        "  foot{}: {{body: plank, type: box, at: [{}, {}, -0.1], size: [0.1, 0.1, 0.1]}}\n", f,
        at[f][0], at[f][1]);
  return fmt::format(R"(ictus: 1
name: plank on rough feet
bodies:
  plank: {{mass: {}, inertia: [0.1, 0.5, 0.55], position: [0, 0, 0.15]}}
shapes:
  slab: {{body: plank, type: box, size: [1.2, 0.5, 0.05]}}
{}  floor_plane: {{body: ground, type: plane, normal: [0, 0, 1]}}
contacts:
  floor: {{type: shapes, between: [ground, plank], friction: {{mu: {}, mu_static: {}}}}}
forces:
  push: {{type: force, on: plank, direction: [1, 0, 0], value: {}*t}}
gravity: [0, 0, -9.81]
simulate: {{until: 2.5, output_step: 0.01, rtol: 1e-10, atol: 1e-12}}
)",
                     m, shapes, mu, mu_s, b);
}

TEST(ContactFriction, APushedPlankOnThreeToSixRoughFeetSlipsAtMuSTimesItsWeight) {
  const double m = 4.0, b = 10.0, mu = 0.3, mu_s = 0.5;
  const double t_s = mu_s * m * kG / b;
  const std::vector<std::array<double, 2>> corners = {
      {-0.5, -0.2}, {0.5, -0.2}, {-0.5, 0.2}, {0.5, 0.2}};
  for (const int feet : {3, 4, 5, 6}) {
    std::vector<std::array<double, 2>> at = corners;
    if (feet == 3) at = {{-0.5, -0.2}, {-0.5, 0.2}, {0.5, 0.0}};
    if (feet == 5) at.push_back({0.0, 0.0});
    if (feet == 6) at.insert(at.end(), {{0.0, -0.2}, {0.0, 0.2}});
    const std::string yaml = plank_on_feet(at, m, mu, mu_s, b);
    const Model model = parse_model(yaml, "plank");
    // the slab's corners and each foot's (8 apiece; a foot's lower four touch)
    const int points = 8 * (feet + 1);
    std::vector<std::string> channels = {"plank.x", "plank.y", "plank.bryant_z", "energy.balance"};
    for (int c = 0; c < points; ++c)
      for (const std::string channel : {"normal", "friction_x", "friction_y"})
        channels.push_back(fmt::format("floor.p{}.{}", c, channel));
    const test::RecordedRun r = test::run_and_record(model, channels);
    ASSERT_DOUBLE_EQ(r.t.back(), 2.5) << feet;
    int slips = 0;
    for (const EventRecord& e : r.events) {
      if (e.kind == "stick" && e.t > 0.0) ADD_FAILURE() << feet << " " << e.name << " " << e.detail;
      if (e.kind != "slip") continue;
      ++slips;
      EXPECT_EQ(e.name.substr(e.name.size() - 1), "x") << feet << " " << e.name;
      EXPECT_NEAR(e.t, t_s, 1e-7) << e.name;
      EXPECT_NE(e.detail.find("mode +0 -> +1"), std::string::npos) << e.detail;
    }
    EXPECT_EQ(slips, 4 * feet);
    int touching = 0;
    for (std::size_t k = 0; k < r.t.size(); ++k) {
      const double t = r.t[k];
      if (t == 0.0 || std::abs(t - t_s) < 1e-6) continue;  // closing, and the slip's instant
      double normal = 0.0, along = 0.0;
      touching = 0;
      for (int c = 0; c < points; ++c) {
        const double N = r[fmt::format("floor.p{}.normal", c)][k];
        const double Fx = r[fmt::format("floor.p{}.friction_x", c)][k];
        const double Fy = r[fmt::format("floor.p{}.friction_y", c)][k];
        normal += N;
        along += Fx;
        if (N > 0.0) ++touching;
        if (t < t_s) {
          EXPECT_LE(std::abs(Fx), mu_s * N * (1 + 1e-9) + 1e-12)
              << feet << " p" << c << " at " << t;
          EXPECT_LE(std::abs(Fy), mu_s * N * (1 + 1e-9) + 1e-12)
              << feet << " p" << c << " at " << t;
        } else {
          EXPECT_NEAR(Fx, -mu * N, 1e-9) << feet << " p" << c << " at " << t;
          EXPECT_NEAR(Fy, 0.0, 1e-9) << feet << " p" << c << " at " << t;
        }
      }
      EXPECT_NEAR(normal, m * kG, 1e-9) << feet << " at " << t;
      EXPECT_NEAR(along, t < t_s ? -b * t : -mu * m * kG, 1e-9) << feet << " at " << t;
      const double tau = std::max(t - t_s, 0.0);
      EXPECT_NEAR(r["plank.x"][k],
                  t < t_s ? 0.0
                          : b / (6.0 * m) * (t * t * t - t_s * t_s * t_s) -
                                b / (2.0 * m) * t_s * t_s * tau - 0.5 * mu * kG * tau * tau,
                  1e-9)
          << feet << " at " << t;
      EXPECT_NEAR(r["plank.y"][k], 0.0, 1e-12) << feet << " at " << t;
      EXPECT_NEAR(r["plank.bryant_z"][k], 0.0, 1e-12) << feet << " at " << t;
    }
    EXPECT_EQ(touching, 4 * feet);
    EXPECT_LT(r.max_abs("energy.balance"), 1e-9) << feet;
  }
  // seven feet: 53 modes, beyond the bounds
  std::vector<std::array<double, 2>> seven = corners;
  seven.insert(seven.end(), {{0.0, -0.2}, {0.0, 0.2}, {0.25, 0.0}});
  const test::RecordedRun r =
      test::run_and_record(parse_model(plank_on_feet(seven, m, mu, mu_s, b), "plank"), {});
  EXPECT_TRUE(std::any_of(r.events.begin(), r.events.end(), [](const EventRecord& e) {
    return e.kind == "warning" &&
           e.detail.find("share 53 self-stress modes, beyond the 72 terms and 48 modes") !=
               std::string::npos;
  }));
}

}  // namespace
}  // namespace ictus

namespace ictus {
namespace {

// Moreau-Jean time-stepping with the friction pyramid in the step's
// complementarity problem: the same closed forms.
test::RecordedRun run_moreau_jean(const std::string& example, const ParameterOverrides& overrides,
                                  const std::vector<std::string>& channels, double step) {
  Model model = load_model(test::source_path(example), overrides);
  IntegratorSettings& in = model.settings().integrator;
  in.name = "moreau_jean";
  in.step = step;
  in.given = {"step"};
  in.given_where = {in.where};
  model.settings().output_step = 0.01;
  return test::run_and_record(model, channels);
}

TEST(ContactFrictionMoreauJean, BlockOnAnInclineSticksBelowTheStaticAngle) {
  const double a = 0.4;
  const test::RecordedRun r =
      run_moreau_jean("examples/incline_block.yaml",
                      {{"angle", "0.4"}, {"mu", "0.4"}, {"mu_s", "0.45"}}, kIncline, 1e-3);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    EXPECT_NEAR(down_slope(r, k, a), 0.0, 1e-12) << r.t[k];
    if (r.t[k] == 0.0) continue;
    EXPECT_EQ(r["slope_contact.friction_mode_x"][k], 0.0);
    EXPECT_NEAR(r["slope_contact.normal"][k], kMass * kG * std::cos(a), 1e-9);
    EXPECT_NEAR(r["slope_contact.friction_x"][k], kMass * kG * std::sin(a), 1e-9);
  }
}

TEST(ContactFrictionMoreauJean, BlockOnAnInclineSlidesWithTheClosedFormAcceleration) {
  // mu_static = mu: the scheme is exact for constant forces (theta = 1/2)
  const double a = 0.5, mu = 0.4;
  const test::RecordedRun r =
      run_moreau_jean("examples/incline_block.yaml", {{"mu_s", "0.4"}}, kIncline, 1e-3);
  const double acc = kG * (std::sin(a) - mu * std::cos(a));
  double worst = 0.0;
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k];
    worst = std::max(worst, std::abs(down_slope(r, k, a) - 0.5 * acc * t * t));
    EXPECT_NEAR(r["slope_contact.slip_rate_x"][k], -acc * t, 1e-9);
    if (t == 0.0) continue;
    EXPECT_EQ(r["slope_contact.friction_mode_x"][k], -1.0);
    EXPECT_NEAR(r["slope_contact.normal"][k], kMass * kG * std::cos(a), 1e-9);
    EXPECT_NEAR(r["slope_contact.friction_x"][k], mu * kMass * kG * std::cos(a), 1e-9);
  }
  EXPECT_LT(worst, 1e-9);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
  fmt::print("Moreau-Jean incline (h = 1e-3): s(t) within {:.2e} m of the closed form\n", worst);
}

TEST(ContactFrictionMoreauJean, PushedBlockSlipsAtTheStaticLimitWithinTheStep) {
  const double b = 10.0, mu = 0.3, mu_s = 0.5, t_end = 1.5;
  const double t_s = mu_s * kMass * kG / b;
  const double v_end = b / (2.0 * kMass) * (t_end * t_end - t_s * t_s) - mu * kG * (t_end - t_s);
  double error[2] = {0.0, 0.0};
  int n = 0;
  for (const double h : {1e-3, 1e-4}) {
    const test::RecordedRun r =
        run_moreau_jean("examples/pushed_block.yaml", {},
                        {"block.x", "block.vx", "floor.friction_x", "floor.normal"}, h);
    // stuck (no motion) before t_s; moving one step after it
    double t_move = -1.0;
    for (std::size_t k = 0; k < r.t.size(); ++k)
      if (t_move < 0.0 && r["block.vx"][k] > 1e-9) t_move = r.t[k];
    for (std::size_t k = 0; k < r.t.size(); ++k)
      if (r.t[k] < t_s - h) {
        EXPECT_NEAR(r["block.x"][k], 0.0, 1e-12) << r.t[k];
      }
    EXPECT_GE(t_move, t_s - h);
    EXPECT_LE(t_move, t_s + 0.01 + h);  // the first output sample after the onset
    // the velocity at the end: the onset within a step, and the first
    // sliding step with mu_s, each worth at most (b t_s / m - mu g) h
    error[n] = std::abs(r.final("block.vx") - v_end);
    EXPECT_LT(error[n], 2.0 * (b * t_s / kMass - mu * kG + (mu_s - mu) * kG) * h);
    ++n;
  }
  EXPECT_LT(error[1], 0.2 * error[0]);  // first order in h
  fmt::print(
      "Moreau-Jean pushed block: final velocity error {:.3e} (h = 1e-3), {:.3e} (h = "
      "1e-4) m/s of {:.6f}\n",
      error[0], error[1], v_end);
}

// A box resting flat on four rough corners (their rows dependent), kicked
// sideways: the step's friction problem is degenerate (the slip and gap
// rates of resting corners exactly zero), where siconos' pivoting ends on a
// ray; the fallback (contact/friction_pyramid.h) solves it. The box slides
// off at J/m and stops after (J/m)^2 / (2 mu g), to O(h).
TEST(ContactFrictionMoreauJean, ABoxKickedFlatOnFourRoughCornersSlidesAndStops) {
  constexpr const char* kBox = R"(ictus: 1
name: box resting flat, kicked
parameters: {m: 4, J: 2, mu: 0.5}
bodies:
  box: {mass: m, inertia: [0.05, 0.06, 0.07], position: [0, 0, 0.1]}
shapes:
  body_box: {body: box, type: box, size: [0.4, 0.3, 0.2]}
  floor_plane: {body: ground, type: plane, normal: [0, 0, 1]}
contacts:
  floor: {type: shapes, between: [ground, box], restitution: 0.5, friction: mu}
events:
  kick:
    when: t >= 0.1
    do: {impulse: {on: box, linear: [J, 0, 0]}}
    once: true
gravity: [0, 0, -9.81]
simulate: {integrator: moreau_jean, step: 1e-3, until: 0.4, output_step: 0.01}
)";
  const test::RecordedRun r =
      test::run_and_record(parse_model(kBox, "kicked box"), {"box.x", "box.y", "box.vx", "box.z"});
  const double v = 2.0 / 4.0, x_stop = v * v / (2.0 * 0.5 * kG);
  EXPECT_NEAR(r.final("box.x"), x_stop, 2e-3 * v);  // O(h): two steps' travel
  EXPECT_NEAR(r.final("box.vx"), 0.0, 1e-12);
  EXPECT_NEAR(r.final("box.y"), 0.0, 1e-9);
  EXPECT_NEAR(r.final("box.z"), 0.1, 1e-4);
}

// The three boxes of kThreeFlatBoxes (48 friction elements; before, a model
// could have 16) with the pyramid in the step's problem: each stops where
// its closed form says, to O(h).
TEST(ContactFrictionMoreauJean, ThreeBoxesSlidingFlatOnOneRoughFloorStopWhereTheirClosedFormsSay) {
  Model model = load_model(test::source_path(kThreeFlatBoxes));
  IntegratorSettings& in = model.settings().integrator;
  in.name = "moreau_jean";
  in.step = 1e-3;
  in.given = {"step"};
  in.given_where = {in.where};
  const test::RecordedRun r =
      test::run_and_record(model, {"box_a.x", "box_a.y", "box_b.x", "box_b.y", "box_c.x", "box_c.y",
                                   "box_a.vx", "box_b.vy", "box_c.vx"});
  const auto travel = [](double v) { return v * v / (2.0 * 0.5 * kG); };
  EXPECT_NEAR(r.final("box_a.x"), travel(0.5), 2e-3 * 0.5);  // two steps' travel
  EXPECT_NEAR(r.final("box_b.y"), -travel(0.4), 2e-3 * 0.4);
  EXPECT_NEAR(r.final("box_c.x"), travel(0.3), 2e-3 * 0.3);
  for (const char* v : {"box_a.vx", "box_b.vy", "box_c.vx"}) EXPECT_NEAR(r.final(v), 0.0, 1e-12);
  // sideways: box b, sliding along y, drifts 5.5e-7 m along x (the
  // degenerate step problems' fallback), far inside the O(h) travel error
  EXPECT_NEAR(r.final("box_a.y"), 0.0, 1e-9);
  EXPECT_NEAR(r.final("box_b.x"), 1.0, 1e-6);
  EXPECT_NEAR(r.final("box_c.y"), -1.0, 1e-9);
}

}  // namespace
}  // namespace ictus
