// The rank of the constraints is a property of their geometry, whatever the
// inertia of the bodies (issue 13 defect 1): a pendulum whose bob has an
// inertia from 1e-12 to 1e3 kg m^2, and an overconstrained six-bar loop
// of slender bars whose axial inertia spans the same range. Before the fix
// the rank was read from the pivots of D M^-1 D^T: the pendulum with a bob
// of 1e-10 had 2 degrees of freedom, the six-bar 0, and their runs took
// hundreds of times more steps.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "ictus/model_file.h"
#include "ictus/system.h"
#include "support/reference_models.h"
#include "support/test_support.h"

namespace ictus {
namespace {

// A bob of mass 1 kg on a massless-looking arm: the body itself, its centre
// 1 m from a revolute pivot; inertia I about every axis. 5 rows, rank 5.
std::string pendulum(double inertia) {
  return fmt::format(R"yaml(
parameters: {{I: {}}}
bodies:
  bob: {{mass: 1, inertia: [I, I, I], position: [1, 0, 0]}}
joints:
  pivot: {{type: revolute, between: [ground, bob], at: [0, 0, 0], axis: [0, 0, 1]}}
gravity: [0, -9.81, 0]
simulate: {{until: 20, output_step: 0.1}}
)yaml",
                     inertia);
}

// A Sarrus six-bar, an overconstrained 6R loop like Bricard's: a platform
// on two legs of two bars each, the three hinge axes of one leg parallel
// to y, of the other to x. 5 moving bodies, 6 revolutes: 30 rows, rank 29,
// 1 degree of freedom (the platform moves vertically), where Gruebler's count
// gives 0. The bars are slender: I is the inertia about their own axis.
std::string six_bar(double inertia) {
  return fmt::format(R"yaml(
parameters: {{I: {}, a: 0.5, c: 0.5, h: 1, m: 1, J: 1/12}}
bodies:
  a1: {{mass: m, inertia: [J + I, J + I, I], position: [a, 0, h/2]}}
  a2: {{mass: m, inertia: [I, J + I, J + I], position: [a + c/2, 0, h]}}
  b1: {{mass: m, inertia: [J + I, J + I, I], position: [0, a, h/2]}}
  b2: {{mass: m, inertia: [J + I, I, J + I], position: [0, a + c/2, h]}}
  top: {{mass: 2, inertia: [0.2, 0.2, 0.4], position: [(a + c)/2, (a + c)/2, h]}}
joints:
  ga: {{type: revolute, between: [ground, a1], at: [a, 0, 0], axis: [0, 1, 0]}}
  ka: {{type: revolute, between: [a1, a2], at: [a, 0, h], axis: [0, 1, 0]}}
  ta: {{type: revolute, between: [a2, top], at: [a + c, 0, h], axis: [0, 1, 0]}}
  gb: {{type: revolute, between: [ground, b1], at: [0, a, 0], axis: [1, 0, 0]}}
  kb: {{type: revolute, between: [b1, b2], at: [0, a, h], axis: [1, 0, 0]}}
  tb: {{type: revolute, between: [b2, top], at: [0, a + c, h], axis: [1, 0, 0]}}
gravity: [0, 0, -9.81]
simulate: {{until: 0.3, output_step: 0.01}}
)yaml",
                     inertia);
}

struct RankCase {
  const char* name;
  std::string (*model)(double);
  int rows;
  int rank;
};

const RankCase kCases[] = {{"pendulum", pendulum, 5, 5}, {"six_bar", six_bar, 30, 29}};

class GeometricRank : public ::testing::TestWithParam<std::tuple<int, double>> {};

TEST_P(GeometricRank, RankDegreesOfFreedomAndCostDoNotDependOnInertia) {
  const RankCase& c = kCases[std::get<0>(GetParam())];
  const double inertia = std::get<1>(GetParam());
  const Model model = parse_model(c.model(inertia), "rank.yaml");
  System system(model);
  VecX y = system.initial_state();
  system.assemble(0.0, y);
  const StructureReport rep = system.structure_report(0.0, y);
  EXPECT_EQ(rep.rows, c.rows);
  EXPECT_EQ(rep.independent_rows, c.rank);
  EXPECT_EQ(rep.dof, 1);
  // the condition of the scaled D: geometry only
  EXPECT_LT(rep.condition_estimate, 10.0);

  // the cost of a run: the number of right-hand-side evaluations stays
  // within 25 % of the run with a moderate inertia (1e-3), or below it (a
  // heavy bob swings slower)
  Simulation run(model);
  const RunStatistics stats = run.run();
  Simulation reference_run(parse_model(c.model(1e-3), "rank.yaml"));
  const RunStatistics reference = reference_run.run();
  EXPECT_LE(stats.integrator.evaluations, 1.25 * reference.integrator.evaluations)
      << c.name << " I = " << inertia;
  EXPECT_LT(std::abs(run.system().channel_value(run.system().find_channel("energy.balance"))),
            1e-6);
}

INSTANTIATE_TEST_SUITE_P(InertiaFrom1e_12To1e3, GeometricRank,
                         ::testing::Combine(::testing::Values(0, 1),
                                            ::testing::Values(1e-12, 1e-10, 1e-9, 1e-6, 1e-3, 1.0,
                                                              1e3)),
                         [](const auto& param_info) {
                           const double inertia = std::get<1>(param_info.param);
                           std::string name =
                               fmt::format("{}_I_1e{}", kCases[std::get<0>(param_info.param)].name,
                                           static_cast<int>(std::lround(std::log10(inertia))));
                           for (char& ch : name)
                             if (ch == '-') ch = 'm';
                           return name;
                         });

// The other extreme: a base plate far stiffer in rotation than in translation
// (1 kg, I up to 1e17 kg m^2), held still by six point_on_plane rows, three of
// them along z at three points. Those three differ only in the plate's
// rotation, which 1/I weighs below the round-off of 1/m from I ~ 1e16 on:
// D M^-1 D^T is singular in floating point although D has full rank. Up to
// I = 1e15 the arm hinged to the plate swings as on a plate of ordinary
// inertia. Beyond, the run stops with a message that names the cause; before
// the fix the start of the run solved with the half-built factor of S (a
// fuzzing finding: SEGV), or stopped calling the configuration degenerate.
std::string stiff_plate(double inertia) {
  return fmt::format(R"yaml(
parameters: {{I: {}}}
bodies:
  plate: {{mass: 1, inertia: [I, I, I]}}
  arm: {{mass: 1, inertia: [0.1, 0.1, 0.1], position: [0, 0.5, 0], angular_velocity: [0.5, 0, 0]}}
joints:
  hold:
    type: custom
    between: [ground, plate]
    at: [0, 0, 0]
    constraints:
      - {{type: point_on_plane, normal: [0, 0, 1], point: [1, 0, 0], label: a}}
      - {{type: point_on_plane, normal: [0, 0, 1], point: [-1, 0, 0], label: b}}
      - {{type: point_on_plane, normal: [0, 0, 1], point: [0, 1, 0], label: c}}
      - {{type: point_on_plane, normal: [1, 0, 0], point: [0, 1, 0], label: d}}
      - {{type: point_on_plane, normal: [1, 0, 0], point: [0, -1, 0], label: e}}
      - {{type: point_on_plane, normal: [0, 1, 0], point: [1, 0, 0], label: f}}
  hinge: {{type: revolute, between: [plate, arm], at: [0, 0, 0], axis: [1, 0, 0]}}
gravity: [0, 0, -9.81]
simulate: {{until: 2, output_step: 0.01, rtol: 1e-10, atol: 1e-12}}
)yaml",
                     inertia);
}

TEST(GeometricRankStiffBody, ABodyFarStifferInRotationThanInTranslationRunsOrSaysWhyNot) {
  const std::vector<std::string> channels{"hinge.angle", "plate.wx", "plate.vz"};
  const test::RecordedRun ordinary =
      test::run_and_record(parse_model(stiff_plate(1.0), "plate.yaml"), channels);
  EXPECT_GT(ordinary.max_abs("hinge.angle"), 3.0);  // the arm swings through the bottom

  const Model stiff = parse_model(stiff_plate(1e15), "stiff_plate.yaml");
  System system(stiff);
  VecX y = system.initial_state();
  system.assemble(0.0, y);
  const StructureReport rep = system.structure_report(0.0, y);
  EXPECT_EQ(rep.rows, 11);
  EXPECT_EQ(rep.independent_rows, 11);
  EXPECT_EQ(rep.dof, 1);
  const test::RecordedRun run = test::run_and_record(stiff, channels);
  ASSERT_EQ(run.t.size(), ordinary.t.size());
  for (std::size_t k = 0; k < run.t.size(); ++k)
    ASSERT_NEAR(run.values[0][k], ordinary.values[0][k], 1e-8) << "t = " << run.t[k];
  EXPECT_LT(run.max_abs("plate.wx"), 1e-9);
  EXPECT_LT(run.max_abs("plate.vz"), 1e-9);

  for (const double inertia : {1e16, 1e17}) {
    SCOPED_TRACE(fmt::format("I = {:g}", inertia));
    try {
      Simulation simulation(parse_model(stiff_plate(inertia), "stiff_plate.yaml"));
      simulation.run();
      SUCCEED() << "runs";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("double precision"), std::string::npos) << e.what();
    }
  }
}
// A long chain is ill-conditioned at full rank: the smallest sine between a
// row of its scaled D and the span of the others falls with its length
// (1.1e-2 for 16 bars, 1.5e-4 for 256). Its conditioning is no singular
// configuration. Before, a run took it for one: the fixed window of 1e-3
// called the first hinge's lock dependent whenever the pivots of S asked
// the geometry (103 warnings of a singular passage in one dopri5 run of the
// planar chain of 256 bars, none real), and with a distance below the
// steppers' "near" (0.05, steppers/singular_crossing.h) dopri5 searched
// every step of a chain of 16 bars or more for a passage (half the CPU of
// a run of 64). Both are now measured against the structure's own
// conditioning: the window shrinks with it, and the distance is relative
// to it (0.1 at the start, as for a mechanism whose sine is 0.1).
TEST(GeometricRankLongChain, ItsOwnConditioningIsNoSingularConfiguration) {
  System system(test::make_chain(256));
  VecX y = system.initial_state();
  system.assemble(0.0, y);
  const StructureReport report = system.structure_report(0.0, y);
  EXPECT_EQ(report.independent_rows, report.rows);
  EXPECT_NEAR(system.singularity_distance_at(0.0, y), 0.1, 1e-12);
  VecX rate(y.size());
  system.derivative(0.0, y, rate);
  EXPECT_GT(system.singularity_distance(), 0.05);
  system.note_singular_passage(0.0, y);  // what a stepper calls near a passage
  EXPECT_EQ(system.rank_changes(), 0);
  EXPECT_EQ(system.warnings().size(), 0u);
}

}  // namespace
}  // namespace ictus
