// Compliant contact between shapes (law: compliant on type: shapes): the
// contact examples run with both laws, stiff Hunt-Crossley contact with the
// damping matched to the impulsive restitution at the impact speed, and
// stay within a stated distance of each other; one model mixing both laws;
// the energy audit with the contact's elastic energy and dissipation.
//
// The stated distance (docs/theory/contact.md, "Compliant contact between
// shapes"): a compliant contact of stiffness k on an effective mass m lasts
// about T_c = pi sqrt(m/k) (half a period of the undamped spring). The
// rigid impact is instantaneous; the compliant body leaves the contact
// about T_c later, from where it touched, with the same rebound speed (the
// damping is matched exactly at that impact speed for the linear law). So
// after the contact, positions differ by at most v_out T_c and velocities
// by at most |a| T_c (what the other forces, of acceleration a, do during
// T_c) plus what those forces change in the restitution; by the time of
// comparison, the velocity difference has moved the positions apart by that
// much times the time since the contact. The bounds below are these with a
// factor 2.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "ictus/forces/compliant_shape_contact.h"
#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kG = 9.81;

// The law keys of a contact: impulsive with restitution e, or compliant
// (linear Hunt-Crossley, stiffness k) with the damping that gives e at the
// impact speed v.
std::string law_keys(bool compliant, double e, double k, double v) {
  if (!compliant) return fmt::format("restitution: {}", e);
  return fmt::format(
      "law: compliant, model: hunt_crossley, stiffness: {}, restitution: {}, "
      "impact_speed: {}",
      k, e, v);
}

struct Comparison {
  std::string name;
  // the model with the contacts' law keys for impulsive (false) or compliant
  std::function<Model(bool compliant)> model;
  std::vector<std::string> positions, velocities;  // compared at `until`
  double velocity_bound;  // 2 |a| T_c (and what the other forces change in e)
  double position_bound;  // 2 v_out T_c + velocity_bound (until - contact)
};

double contact_time(double mass, double stiffness) {
  return M_PI * std::sqrt(mass / stiffness);
}

// A ball (r = 0.1 m, 1.5 kg) dropped from 1 m on a plane, e = 0.9, compared
// at the first apex of the rigid solution.
Comparison ball() {
  const double m = 1.5, k = 1e8, e = 0.9, h = 0.9;
  const double v = std::sqrt(2 * kG * h);
  const double until = std::sqrt(2 * h / kG) + e * v / kG;
  const double tc = contact_time(m, k);
  return {"ball",
          [=](bool compliant) {
            Model model = parse_model(fmt::format(R"(
gravity: [0, 0, -{}]
bodies:
  ball: {{mass: {}, inertia: [0.006, 0.006, 0.006], position: [0, 0, 1]}}
shapes:
  ball_shape: {{body: ball, type: sphere, radius: 0.1}}
  floor_plane: {{body: ground, type: plane, normal: [0, 0, 1]}}
contacts:
  floor: {{type: shapes, between: [ball, ground], {}}}
simulate: {{until: {}, output_step: 0.01, integrator: {}, rtol: 1e-9, atol: 1e-12}}
)",
                                                  kG, m, law_keys(compliant, e, k, v), until,
                                                  compliant ? "cvode" : "dopri5"),
                                      "ball.yaml");
            return model;
          },
          {"ball.z"},
          {"ball.vz"},
          2 * kG * tc,
          2 * e * v * tc + 2 * kG * tc * (e * v / kG)};
}

// A box (4 kg, 0.4 x 0.3 x 0.2 m) dropped flat from 0.2 m, e = 0.5: four
// corners at once, each of stiffness k on a quarter of the mass.
Comparison box_flat() {
  const double m = 4, k = 1e8, e = 0.5;
  const double v = std::sqrt(2 * kG * 0.2);
  const double until = std::sqrt(0.4 / kG) + e * v / kG;
  const double tc = contact_time(m / 4, k);
  return {"box_flat",
          [=](bool compliant) {
            return parse_model(fmt::format(R"(
gravity: [0, 0, -{}]
bodies:
  box: {{mass: {}, inertia: [0.05, 0.06, 0.07], position: [0, 0, 0.3]}}
shapes:
  body_box: {{body: box, type: box, size: [0.4, 0.3, 0.2]}}
  floor_plane: {{body: ground, type: plane, normal: [0, 0, 1]}}
contacts:
  floor: {{type: shapes, between: [ground, box], {}}}
simulate: {{until: {}, output_step: 0.01, integrator: {}, rtol: 1e-9, atol: 1e-12}}
)",
                                           kG, m, law_keys(compliant, e, k, v), until,
                                           compliant ? "cvode" : "dopri5"),
                               "box.yaml");
          },
          {"box.z", "box.x", "box.y"},
          {"box.vz", "box.wx", "box.wy", "box.wz"},
          2 * kG * tc,
          2 * e * v * tc + 2 * kG * tc * (e * v / kG)};
}

// Two equal spheres (2 kg, r = 0.1 m) and a wall, e = 1: sphere 1 rests
// against the wall, sphere 2 hits it at 1 m/s. The wall is 100 times stiffer
// than the spheres' contact, so that sphere 1 barely moves while the pair
// springs: the rigid simultaneous impact is the limit of that ratio
// (a compliant chain of equal stiffnesses disperses: sphere 1 would leave
// the wall). Compared at t = 0.5 s, long after the contact.
Comparison spheres_and_wall() {
  const double m = 2, k = 1e8, k_wall = 1e10;
  const double tc = contact_time(m / 2, k);  // the pair: reduced mass m/2
  return {"spheres_and_wall",
          [=](bool compliant) {
            return parse_model(
                fmt::format(R"(
bodies:
  one: {{mass: {}, inertia: [0.008, 0.008, 0.008], position: [0.1, 0, 0]}}
  two: {{mass: {}, inertia: [0.008, 0.008, 0.008], position: [0.5, 0, 0], velocity: [-1, 0, 0]}}
shapes:
  s1: {{body: one, type: sphere, radius: 0.1}}
  s2: {{body: two, type: sphere, radius: 0.1}}
  wall_plane: {{body: ground, type: plane, normal: [1, 0, 0]}}
contacts:
  wall: {{type: shapes, between: [ground, one], {}}}
  pair: {{type: shapes, between: [one, two], {}}}
simulate: {{until: 0.5, output_step: 0.01, integrator: {}, rtol: 1e-9, atol: 1e-12}}
)",
                            m, m, law_keys(compliant, 1.0, k_wall, 1.0),
                            law_keys(compliant, 1.0, k, 1.0), compliant ? "cvode" : "dopri5"),
                "spheres.yaml");
          },
          {"one.x", "two.x"},
          {"one.vx", "two.vx"},
          // no other force: what differs is the wall's give, the energy
          // sphere 1 takes while the wall yields sqrt(k/k_wall) of the stroke
          2 * std::sqrt(k / k_wall),
          2 * 1.0 * tc + 2 * std::sqrt(k / k_wall) * (0.5 - 0.2)};
}

// Seed 001's piston (examples/piston.yaml) against the same with its stop
// compliant (examples/piston_compliant.yaml, k = 1e10 N/m) with beta matched
// to e = 5/9 at the first impact speed 3.8744 m/s, compared at 2.85 s,
// between the first and second impacts (the Hunt-Crossley restitution grows
// as the impact speed falls, so later impacts part ways by design).
Comparison piston() {
  const double m = 2, k = 1e10;
  const double v_in = 3.87443784090243, e = 5.0 / 9.0;
  const double tc = contact_time(m, k);
  const double beta =
      CompliantLaw::hunt_crossley_damping(CompliantLaw::Law::kHuntCrossley, e, v_in);
  return {"piston",
          [=](bool compliant) {
            Model model = compliant
                              ? load_model(test::source_path("examples/piston_compliant.yaml"),
                                           {{"beta", fmt::format("{:.17g}", beta)}})
                              : load_model(test::source_path("examples/piston.yaml"));
            model.settings().until = 2.85;
            return model;
          },
          {"guide.x"},
          {"guide.v"},
          // the spring and preload, (F0 + c x) / m <= 37.5 m/s^2, during T_c
          2 * 37.5 * tc,
          2 * e * v_in * tc + 2 * 37.5 * tc * (2.85 - 2.7263661594)};
}

class CompliantAgainstImpulsive : public testing::TestWithParam<Comparison (*)()> {};

TEST_P(CompliantAgainstImpulsive, StaysWithinTheStatedDistance) {
  const Comparison c = GetParam()();
  SCOPED_TRACE(c.name);
  std::vector<std::string> channels = c.positions;
  channels.insert(channels.end(), c.velocities.begin(), c.velocities.end());
  channels.emplace_back("energy.balance");
  const test::RecordedRun rigid = test::run_and_record(c.model(false), channels);
  const test::RecordedRun soft = test::run_and_record(c.model(true), channels);
  ASSERT_DOUBLE_EQ(rigid.t.back(), soft.t.back());
  for (const std::string& ch : c.positions) {
    const double d = std::abs(soft.final(ch) - rigid.final(ch));
    EXPECT_LE(d, c.position_bound) << ch;
  }
  for (const std::string& ch : c.velocities) {
    const double d = std::abs(soft.final(ch) - rigid.final(ch));
    EXPECT_LE(d, c.velocity_bound) << ch;
  }
  // the energy audit closes with the contact's potential and dissipation
  EXPECT_LE(soft.max_abs("energy.balance"), 1e-4) << "compliant";
  EXPECT_LE(rigid.max_abs("energy.balance"), 1e-6) << "impulsive";
}

INSTANTIATE_TEST_SUITE_P(ContactExamples, CompliantAgainstImpulsive,
                         testing::Values(&ball, &box_flat, &spheres_and_wall, &piston),
                         [](const auto& param_info) { return param_info.param().name; });

// Two balls on one floor, one contact impulsive and one compliant: each
// rebounds as its law says, and the energy audit books both the impact loss
// and the compliant contact's dissipation.
TEST(ContactCompliantShapes, ImpulsiveAndCompliantInOneModel) {
  const double m = 1.5, k = 1e8, e = 0.9, h = 0.9;
  const double v = std::sqrt(2 * kG * h);
  const double t_apex = std::sqrt(2 * h / kG) + e * v / kG;
  Model model =
      parse_model(fmt::format(R"(
gravity: [0, 0, -{}]
bodies:
  rigid: {{mass: {}, inertia: [0.006, 0.006, 0.006], position: [0, 0, 1]}}
  soft: {{mass: {}, inertia: [0.006, 0.006, 0.006], position: [1, 0, 1]}}
shapes:
  rigid_ball: {{body: rigid, type: sphere, radius: 0.1}}
  soft_ball: {{body: soft, type: sphere, radius: 0.1}}
  floor_plane: {{body: ground, type: plane, normal: [0, 0, 1]}}
contacts:
  hard_floor: {{type: shapes, between: [rigid, ground], {}}}
  soft_floor: {{type: shapes, between: [soft, ground], {}}}
simulate: {{until: {}, output_step: 0.01, integrator: cvode, rtol: 1e-9, atol: 1e-12}}
)",
                              kG, m, m, law_keys(false, e, k, v), law_keys(true, e, k, v), t_apex),
                  "mixed.yaml");
  const test::RecordedRun run =
      test::run_and_record(model, {"rigid.z", "rigid.vz", "soft.z", "soft.vz", "energy.impacts",
                                   "energy.dissipated", "energy.balance"});
  // the rigid ball's apex: exactly r + (e v)^2 / (2 g), at rest in z
  EXPECT_NEAR(run.final("rigid.z"), 0.1 + e * e * h, 1e-7);
  EXPECT_NEAR(run.final("rigid.vz"), 0.0, 1e-7);
  // the soft ball within the stated distance of it
  const double tc = contact_time(m, k);
  EXPECT_NEAR(run.final("soft.z"), run.final("rigid.z"), 2 * e * v * tc);
  EXPECT_NEAR(run.final("soft.vz"), run.final("rigid.vz"), 2 * kG * tc);
  // what each contact took: the rigid loss (1 - e^2) m g h in impacts, the
  // soft ball's the same to the stated distance, in dissipation
  const double loss = (1 - e * e) * m * kG * h;
  EXPECT_NEAR(run.final("energy.impacts"), loss, 1e-7);
  EXPECT_NEAR(run.final("energy.dissipated") - run.final("energy.impacts"), loss,
              2 * m * v * kG * tc);
  EXPECT_LE(run.max_abs("energy.balance"), 1e-4);
}

// Hertz contact (N = k d^1.5 (1 + beta d')) with beta from a wanted
// restitution by Flores et al.'s approximation: the contact reports the
// restitution the law actually gives at the impact speed, and the ball
// rebounds with it (not with the wanted one).
TEST(ContactCompliantShapes, HertzReboundsWithTheRestitutionItReports) {
  const double m = 1.5, e = 0.5, h = 0.9;
  const double v = std::sqrt(2 * kG * h);
  const Model model = parse_model(fmt::format(R"(
gravity: [0, 0, -{}]
bodies:
  ball: {{mass: {}, inertia: [0.006, 0.006, 0.006], position: [0, 0, 1]}}
shapes:
  ball_shape: {{body: ball, type: sphere, radius: 0.1}}
  floor_plane: {{body: ground, type: plane, normal: [0, 0, 1]}}
contacts:
  floor: {{type: shapes, between: [ball, ground], law: compliant, model: hertz, stiffness: 1e10,
          restitution: {}, impact_speed: {}}}
events:
  leave: {{when: ball.z > 0.1 and ball.vz > 0, do: [], once: true}}
simulate: {{until: 0.5, output_step: 0.01, integrator: cvode, rtol: 1e-10, atol: 1e-13}}
)",
                                              kG, m, e, v),
                                  "hertz.yaml");
  const auto& floor = dynamic_cast<const CompliantShapeContact&>(*model.forces().back());
  const double obtained = floor.law().restitution_at_impact_speed();
  EXPECT_GT(std::abs(obtained - e), 0.01);  // Flores's formula is approximate
  const test::RecordedRun run = test::run_and_record(model, {"ball.vz", "floor.restitution"});
  EXPECT_DOUBLE_EQ(run.final("floor.restitution"), obtained);
  double rebound = NAN;
  for (const EventRecord& r : run.events)
    if (r.kind == "event" && r.name == "leave")
      for (std::size_t i = 0; i < run.t.size(); ++i)
        if (run.t[i] == r.t) rebound = run["ball.vz"][i];
  // gravity acts during the contact too: a relative 1e-3 at this stiffness
  EXPECT_NEAR(rebound / v, obtained, 1e-3);
}

}  // namespace
}  // namespace ictus
