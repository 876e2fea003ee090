// System impact (issue: impacts and variable structure; seed 000 eqs. 3-5).
// Reference values: shared/reference/REPORT.md, case 1 (parts A-D), exact
// rationals from case1_output.txt. Impacts are linear algebra: 1e-12.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kExact = 1e-12;  // REPORT.md: "pure linear algebra, so use 1e-12 relative"

// The run, and the index of the sample just after the (first) impact.
struct ImpactRun {
  test::RecordedRun run;
  std::size_t after = 0;
  std::size_t before = 0;
  double time = 0.0;
};

ImpactRun run_impact(const Model& model, const std::vector<std::string>& channels) {
  ImpactRun out;
  out.run = test::run_and_record(model, channels);
  for (const EventRecord& r : out.run.events)
    if (r.kind == "impact") {
      out.time = r.t;
      break;
    }
  bool found = false;
  for (std::size_t k = 0; k < out.run.t.size(); ++k)
    if (out.run.t[k] == out.time) {
      if (!found) out.before = k;
      out.after = k;
      found = true;
    }
  EXPECT_TRUE(found) << "no impact";
  EXPECT_GT(out.after, out.before);
  return out;
}

Vec3 vec(const test::RecordedRun& run, const std::string& prefix, std::size_t k) {
  return {run[prefix + "x"][k], run[prefix + "y"][k], run[prefix + "z"][k]};
}

void expect_vec(const Vec3& actual, const Vec3& expected, double tol, const std::string& what) {
  EXPECT_LT((actual - expected).norm(), tol * std::max(expected.norm(), 1e-300))
      << what << ": " << actual.transpose() << " vs " << expected.transpose();
}

// --- seed 000's worked example ------------------------------------------------

TEST(SystemImpact, ThreeBodiesPlasticMatchesSeed000) {
  const ImpactRun r = run_impact(
      load_model(test::source_path("examples/three_bodies.yaml")),
      {"body1.vx", "body2.vx", "body3.vx", "link.point.x.impulse", "contact.face.impulse",
       "energy.kinetic", "energy.impacts", "energy.balance", "system.px"});
  const auto& run = r.run;
  for (const char* b : {"body1.vx", "body2.vx", "body3.vx"})
    EXPECT_NEAR(run[b][r.after], 1.0 / 3.0, kExact) << b;                // (v/3, v/3, v/3)
  EXPECT_NEAR(run["link.point.x.impulse"][r.after], 1.0 / 3.0, kExact);  // m v / 3
  EXPECT_NEAR(run["contact.face.impulse"][r.after], 2.0 / 3.0, kExact);  // 2 m v / 3
  EXPECT_EQ(run["contact.face.impulse"][r.before], 0.0);                 // only at the impact
  EXPECT_NEAR(run["energy.kinetic"][r.after], 1.0 / 6.0, kExact);        // KE2/KE1 = 1/3
  EXPECT_NEAR(run["energy.impacts"].back(), 1.0 / 3.0, kExact);          // the loss, booked
  EXPECT_LT(run.max_abs("energy.balance"), kExact);
  EXPECT_NEAR(run["system.px"][r.after], 1.0, kExact);
  EXPECT_NEAR(run["body3.vx"].back(), 1.0 / 3.0, kExact);  // the contact stays closed
}

TEST(SystemImpact, ThreeBodiesElasticMatchesSeed000) {
  const Model model = load_model(test::source_path("examples/three_bodies.yaml"), {{"k", "1"}});
  const ImpactRun r =
      run_impact(model, {"body1.vx", "body2.vx", "body3.vx", "body3.x", "body2.x",
                         "link.point.x.impulse", "contact.face.impulse", "energy.kinetic"});
  const auto& run = r.run;
  EXPECT_NEAR(run["body1.vx"][r.after], 2.0 / 3.0, kExact);
  EXPECT_NEAR(run["body2.vx"][r.after], 2.0 / 3.0, kExact);
  EXPECT_NEAR(run["body3.vx"][r.after], -1.0 / 3.0, kExact);
  EXPECT_NEAR(run["link.point.x.impulse"][r.after], 2.0 / 3.0, kExact);
  EXPECT_NEAR(run["contact.face.impulse"][r.after], 4.0 / 3.0, kExact);
  EXPECT_NEAR(run["energy.kinetic"][r.after], 0.5, kExact);  // elastic: conserved
  // the contact was released: the bodies part and keep their velocities
  EXPECT_NEAR(run["body3.vx"].back(), -1.0 / 3.0, kExact);
  EXPECT_GT(run["body2.x"].back() - run["body3.x"].back(), 0.2 + 0.1);
  bool released = false;
  for (const EventRecord& e : r.run.events)
    released = released || (e.kind == "switch" && e.name == "contact" &&
                            e.detail.find("released") != std::string::npos);
  EXPECT_TRUE(released);
}

// REPORT.md case 1 part B: per-constraint restitution must be imposed as
// target relative velocities; scaling impulses by (1 + k_i) creates energy.
TEST(SystemImpact, RestitutionPerConstraintIsNewtonsLawPerRow) {
  const Model model = parse_model(R"(
bodies:
  b1: {mass: 1, inertia: [1e-3, 1e-3, 1e-3], position: [0, 0, 0], velocity: [2, 0, 0]}
  b2: {mass: 2, inertia: [1e-3, 1e-3, 1e-3], position: [1, 0, 0], velocity: [0, 0, 0]}
  b3: {mass: 3, inertia: [1e-3, 1e-3, 1e-3], position: [2, 0, 0], velocity: [-1, 0, 0]}
joints:
  c12:   # row v1 - v2, k = 1
    type: custom
    between: [b2, b1]
    at: [0.5, 0, 0]
    constraints: [{type: point_on_plane, normal: [1, 0, 0], label: face}]
    restitution: 1
    after: t >= 0
  c23:   # row v2 - v3, k = 0
    type: custom
    between: [b3, b2]
    at: [1.5, 0, 0]
    constraints: [{type: point_on_plane, normal: [1, 0, 0], label: face}]
    restitution: 0
    after: t >= 0
simulate: {until: 0.01, output_step: 0.01}
)",
                                  "part_b.yaml");
  const ImpactRun r = run_impact(
      model, {"b1.vx", "b2.vx", "b3.vx", "c12.face.impulse", "c23.face.impulse", "energy.kinetic"});
  const auto& run = r.run;
  // Newton per row: D u2 = (-2, 0); u2 = (-11/6, 1/6, 1/6), impulses (-23/6, -7/2)
  EXPECT_NEAR(run["b1.vx"][r.after], -11.0 / 6.0, kExact);
  EXPECT_NEAR(run["b2.vx"][r.after], 1.0 / 6.0, kExact);
  EXPECT_NEAR(run["b3.vx"][r.after], 1.0 / 6.0, kExact);
  EXPECT_NEAR(run["c12.face.impulse"][r.after], -23.0 / 6.0, kExact);
  EXPECT_NEAR(run["c23.face.impulse"][r.after], -7.0 / 2.0, kExact);
  EXPECT_NEAR(run["energy.kinetic"][r.before], 7.0 / 2.0, kExact);
  EXPECT_NEAR(run["energy.kinetic"][r.after], 7.0 / 4.0, kExact);  // never 173/48
}

// --- REPORT.md case 1 parts C and D: docking -------------------------------------

const std::vector<std::string> kDockingChannels = {"chaser.vx",
                                                   "chaser.vy",
                                                   "chaser.vz",
                                                   "chaser.wx",
                                                   "chaser.wy",
                                                   "chaser.wz",
                                                   "target.vx",
                                                   "target.vy",
                                                   "target.vz",
                                                   "target.wx",
                                                   "target.wy",
                                                   "target.wz",
                                                   "latch.impulse_Fx",
                                                   "latch.impulse_Fy",
                                                   "latch.impulse_Fz",
                                                   "latch.impulse_Mx",
                                                   "latch.impulse_My",
                                                   "latch.impulse_Mz",
                                                   "latch_to_ground.impulse_Fx",
                                                   "latch_to_ground.impulse_Fy",
                                                   "latch_to_ground.impulse_Fz",
                                                   "system.px",
                                                   "system.py",
                                                   "system.pz",
                                                   "system.Lx",
                                                   "system.Ly",
                                                   "system.Lz",
                                                   "energy.kinetic"};

TEST(SystemImpact, DockingPairPlasticMatchesTheMergedBody) {
  const ImpactRun r =
      run_impact(load_model(test::source_path("examples/docking_pair.yaml")), kDockingChannels);
  const auto& run = r.run;
  const std::size_t k = r.after;
  EXPECT_EQ(r.time, 0.0);
  const Vec3 w(14869299.0 / 1228687300.0, 7461047.0 / 1474424760.0, 17348441.0 / 1474424760.0);
  expect_vec(vec(run, "chaser.v", k),
             {0.3, -98662031.0 / 1843030950.0, 628853603.0 / 18430309500.0}, kExact, "vA+");
  expect_vec(vec(run, "chaser.w", k), w, kExact, "wA+");
  expect_vec(vec(run, "target.v", k), {0.3, 13020967.0 / 2457374600.0, 108358777.0 / 12286873000.0},
             kExact, "vB+");
  expect_vec(vec(run, "target.w", k), w, kExact, "wB+");
  // the impulse on the chaser, exact from its exact velocity jump:
  // force F = m_A dv_A; moment about P: H_P = J_A dw_A - (P - r_A) x F
  const Vec3 dv =
      Vec3(0.3, -98662031.0 / 1843030950.0, 628853603.0 / 18430309500.0) - Vec3(0.5, -0.05, 0.04);
  const Vec3 dw = w - Vec3(0.02, -0.025, 1.0 / 30.0);
  const Mat3 j_a = (Mat3() << 900, 50, -30, 50, 1100, 20, -30, 20, 1300).finished();
  const Vec3 force = 1200.0 * dv;
  const Vec3 moment = j_a * dw - (Vec3(0, 0.1, -0.2) - Vec3(-3, 0, 0)).cross(force);
  expect_vec(vec(run, "latch.impulse_F", k), force, kExact, "force impulse");
  expect_vec(vec(run, "latch.impulse_M", k), moment, kExact, "moment impulse");
  // ... which are the values printed in REPORT.md (10 digits)
  expect_vec(force, {-240.0, -4.2389848092, -7.0552549538}, 1e-11, "printed force impulse");
  expect_vec(moment, {-3.4050505492, -36.925676354, -38.482109218}, 1e-10,
             "printed moment impulse");
  EXPECT_NEAR(run["energy.kinetic"][r.before], 153.6443055556, 1e-10);
  EXPECT_NEAR(run["energy.kinetic"][k], 92.70327251287, 1e-10);
  for (const char* c :
       {"system.px", "system.py", "system.pz", "system.Lx", "system.Ly", "system.Lz"})
    EXPECT_NEAR(run[c][k], run[c][r.before], kExact * std::abs(run[c][r.before]) + 1e-13) << c;
}

TEST(SystemImpact, DockingPairElasticReversesTheRelativeVelocity) {
  const ImpactRun r = run_impact(
      load_model(test::source_path("examples/docking_pair.yaml"), {{"k", "1"}}), kDockingChannels);
  const auto& run = r.run;
  const std::size_t k = r.after;
  // with one k the jump is (1 + k) times the plastic one (REPORT.md case 1,
  // part A); exact values from the plastic rationals
  const Vec3 va(0.5, -0.05, 0.04), wa(0.02, -0.025, 1.0 / 30.0);
  const Vec3 va_plastic(0.3, -98662031.0 / 1843030950.0, 628853603.0 / 18430309500.0);
  const Vec3 vb_plastic(0.3, 13020967.0 / 2457374600.0, 108358777.0 / 12286873000.0);
  const Vec3 w_plastic(14869299.0 / 1228687300.0, 7461047.0 / 1474424760.0,
                       17348441.0 / 1474424760.0);
  expect_vec(vec(run, "chaser.v", k), va + 2.0 * (va_plastic - va), kExact, "vA+");
  expect_vec(vec(run, "chaser.w", k), wa + 2.0 * (w_plastic - wa), kExact, "wA+");
  expect_vec(vec(run, "target.v", k), 2.0 * vb_plastic, kExact, "vB+");
  expect_vec(vec(run, "target.w", k), 2.0 * w_plastic, kExact, "wB+");
  expect_vec(vec(run, "latch.impulse_F", k), 1200.0 * 2.0 * (va_plastic - va), kExact,
             "force impulse");
  // the values printed in REPORT.md (13 digits)
  expect_vec(vec(run, "chaser.v", k), {0.1, -0.05706497468206, 0.02824124174366}, 1e-12,
             "printed vA+");
  expect_vec(vec(run, "target.w", k), {0.02420355284864, 0.01012062087183, 0.02353248734103}, 1e-12,
             "printed wB+");
  EXPECT_NEAR(run["energy.kinetic"][k], run["energy.kinetic"][r.before], 1e-12 * 153.6);
}

TEST(SystemImpact, DockingIntoTheGroundStopsOrReversesTheChaser) {
  for (const char* k : {"0", "1"}) {
    const ImpactRun r = run_impact(load_model(test::source_path("examples/docking_pair.yaml"),
                                              {{"k", k}, {"dock_to_ground", "1"}}),
                                   kDockingChannels);
    const auto& run = r.run;
    const double sign = std::string(k) == "0" ? 0.0 : -1.0;
    // relative to the approach velocity (the plastic result is zero)
    const Vec3 v(0.5, -0.05, 0.04), w(0.02, -0.025, 1.0 / 30.0);
    EXPECT_LT((vec(run, "chaser.v", r.after) - sign * v).norm(), kExact * v.norm()) << k;
    EXPECT_LT((vec(run, "chaser.w", r.after) - sign * w).norm(), kExact * w.norm()) << k;
    if (sign == 0.0) {  // plastic: the impulse is -m v
      expect_vec(vec(run, "latch_to_ground.impulse_F", r.after), {-600.0, 60.0, -48.0}, kExact,
                 "impulse");
    }
  }
}

// --- a station: momentum through the impact, Carnot's energy loss ----------------

TEST(SystemImpact, DockingToAStationConservesMomentumAndLosesTheRelativeEnergy) {
  const Model model = load_model(test::source_path("examples/docking.yaml"));
  std::vector<std::string> channels = {"system.px",      "system.py",     "system.pz",
                                       "system.Lx",      "system.Ly",     "system.Lz",
                                       "energy.kinetic", "energy.impacts"};
  const char* bodies[] = {"core", "wing_left", "wing_right", "ship"};
  for (const char* b : bodies)
    for (const char* c : {"vx", "vy", "vz", "wx_B", "wy_B", "wz_B"})
      channels.push_back(std::string(b) + "." + c);
  const ImpactRun r = run_impact(model, channels);
  const auto& run = r.run;
  for (const char* c :
       {"system.px", "system.py", "system.pz", "system.Lx", "system.Ly", "system.Lz"})
    EXPECT_NEAR(run[c][r.after], run[c][r.before], 1e-10 * std::abs(run[c][r.before])) << c;
  // a plastic impact removes exactly the kinetic energy of the velocity jump,
  // KE1 - KE2 = (u1 - u2)^T M (u1 - u2) / 2 (Carnot)
  double jump_energy = 0.0;
  for (std::size_t b = 0; b < 4; ++b) {
    const Body& body = model.bodies()[static_cast<std::size_t>(model.body_index(bodies[b]))];
    const std::string n = bodies[b];
    const Vec3 dv = vec(run, n + ".v", r.after) - vec(run, n + ".v", r.before);
    const Vec3 dw(run[n + ".wx_B"][r.after] - run[n + ".wx_B"][r.before],
                  run[n + ".wy_B"][r.after] - run[n + ".wy_B"][r.before],
                  run[n + ".wz_B"][r.after] - run[n + ".wz_B"][r.before]);
    jump_energy += 0.5 * body.mass * dv.squaredNorm() + 0.5 * dw.dot(body.inertia * dw);
  }
  const double loss = run["energy.kinetic"][r.before] - run["energy.kinetic"][r.after];
  EXPECT_GT(loss, 1.0);
  EXPECT_NEAR(loss, jump_energy, 1e-10 * loss);
  EXPECT_NEAR(run["energy.impacts"].back(), loss, 1e-10 * loss);
}

// --- an external impulse: a rod struck at its centre of percussion -----------------

TEST(SystemImpact, RodStruckAtItsCentreOfPercussionLoadsNoHinge) {
  // uniform rod, length L = 1.2, pivoted at its top end, struck by P at depth
  // a: J_O w = P a with J_O = m L^2 / 3, and m w L / 2 = P + H gives the hinge
  // impulse H = P (3 a / (2 L) - 1): zero at the centre of percussion a = 2L/3,
  // P/2 at the tip
  for (const double at : {0.8, 1.2}) {
    const Model model = parse_model(fmt::format(R"(
parameters: {{m: 3.0, L: 1.2}}
bodies:
  rod: {{mass: m, inertia: [m*L^2/12, m*L^2/12, 1e-4], position: [0, 0, -L/2]}}
joints:
  hinge: {{type: revolute, between: [ground, rod], at: [0, 0, 0], axis: [0, 1, 0]}}
events:
  strike:
    when: t >= 0.1
    do: {{impulse: {{on: rod, linear: [5, 0, 0], at: [0, 0, -{}]}}}}
simulate: {{until: 0.2, output_step: 0.1}}
)",
                                                at),
                                    "rod.yaml");
    const ImpactRun r = run_impact(model, {"hinge.impulse_Fx", "hinge.impulse_Fz", "hinge.omega"});
    const double expected = 5.0 * (3.0 * at / (2.0 * 1.2) - 1.0);  // on the rod
    EXPECT_NEAR(r.run["hinge.impulse_Fx"][r.after], expected, 1e-12) << at;
    EXPECT_NEAR(r.run["hinge.impulse_Fz"][r.after], 0.0, 1e-12) << at;
    // angular impulse about the pivot: J_O w = P a
    EXPECT_NEAR(std::abs(r.run["hinge.omega"][r.after]), 5.0 * at / (3.0 * 1.44 / 3.0), 1e-12);
  }
}

}  // namespace
}  // namespace ictus
