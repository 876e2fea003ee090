// Parameter studies (issue 11, include/ictus/study.h): the study file, the
// cases of each sampling, the metrics of a case against single runs of the
// model, failed cases, and the optimisation of seed 003's mount against a
// fine sweep.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "ictus/model_file.h"
#include "ictus/observers.h"
#include "ictus/simulation.h"
#include "ictus/study.h"
#include "support/test_support.h"

namespace ictus::study {
namespace {

const std::string kSuspension = test::source_path("examples/suspension.yaml");

// A study of the seed-003 model from text, named as if it sat in examples/.
Study suspension_study(const std::string& body) {
  return parse_study(fmt::format("model: suspension.yaml\n{}", body),
                     test::source_path("examples/test.study.yaml"));
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ModelError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(StudyFile, RangesListsAndMetrics) {
  const Study s = suspension_study(R"(
parameters:
  K: {from: 400, to: 1600, count: 4}
  C: [8, 16]
metrics:
  u: {channel: guide.x, extremum: max}
  a: {channel: block.az, extremum: min, from: 0, to: Tp, limit: left}
  t: {time_of: pulse.until}
  e: energy_lost
output: out.csv
)");
  EXPECT_EQ(s.model_path, kSuspension);
  ASSERT_EQ(s.parameters.size(), 2u);
  EXPECT_EQ(s.parameters[0].values, (std::vector<double>{400, 800, 1200, 1600}));
  EXPECT_EQ(s.parameters[1].values, (std::vector<double>{8, 16}));
  ASSERT_EQ(s.metrics.size(), 4u);
  EXPECT_EQ(s.metrics[1].kind, Metric::Kind::kExtremum);
  EXPECT_EQ(s.metrics[1].extremum, SummaryPeak::Kind::kMinimum);
  EXPECT_EQ(s.metrics[1].to, "Tp");
  EXPECT_EQ(s.metrics[1].limit, Metric::Limit::kLeft);
  EXPECT_EQ(s.metrics[2].kind, Metric::Kind::kEventTime);
  EXPECT_EQ(s.metrics[3].kind, Metric::Kind::kEnergyLost);
  EXPECT_EQ(s.output, test::source_path("examples/out.csv"));
}

TEST(StudyFile, ErrorsAreLocated) {
  const std::string file = test::source_path("examples/test.study.yaml");
  EXPECT_NE(message_of([] {
              suspension_study(
                  "parameters:\n  K: {from: 900, to: 400, count: 3}\nmetrics:\n  u: "
                  "{channel: guide.x}\n");
            }).find(file + ":3:"),
            std::string::npos);
  EXPECT_NE(message_of([] {
              suspension_study(
                  "parameters:\n  K: {from: 900, to: 400, count: 3}\nmetrics:\n  u: "
                  "{channel: guide.x}\n");
            }).find("the range is empty"),
            std::string::npos);
  EXPECT_NE(message_of([] {
              suspension_study("parameters:\n  K: []\nmetrics:\n  u: {channel: guide.x}\n");
            }).find("the list of values is empty"),
            std::string::npos);
  EXPECT_NE(message_of([] {
              suspension_study(
                  "parameters:\n  K: [1]\nmetrics:\n  u: {channel: guide.x, extremun: max}\n");
            }).find("unknown key 'extremun' (did you mean 'extremum'?)"),
            std::string::npos);
}

TEST(StudyCases, GridVariesTheLastParameterFastest) {
  const Study s = suspension_study(
      "parameters:\n  K: [1, 2]\n  C: [10, 20, 30]\nmetrics:\n  u: {channel: guide.x}\n");
  const std::vector<Case> cases = study_cases(s);
  ASSERT_EQ(cases.size(), 6u);
  EXPECT_EQ(cases[0].values, (std::vector<double>{1, 10}));
  EXPECT_EQ(cases[1].values, (std::vector<double>{1, 20}));
  EXPECT_EQ(cases[3].values, (std::vector<double>{2, 10}));
  EXPECT_EQ(cases[5].index, 5);
}

TEST(StudyCases, LatinHypercubeHasOnePointInEveryStratum) {
  const Study s = suspension_study(
      "parameters:\n  K: {from: 100, to: 200}\n  C: {from: 0, to: 1}\nsampling: "
      "{latin_hypercube: 20, seed: 7}\nmetrics:\n  u: {channel: guide.x}\n");
  const std::vector<Case> cases = study_cases(s);
  ASSERT_EQ(cases.size(), 20u);
  for (std::size_t i = 0; i < 2; ++i) {
    std::set<int> strata;
    for (const Case& c : cases) {
      const double u = i == 0 ? (c.values[0] - 100.0) / 100.0 : c.values[1];
      ASSERT_GE(u, 0.0);
      ASSERT_LT(u, 1.0);
      strata.insert(static_cast<int>(u * 20.0));
    }
    EXPECT_EQ(strata.size(), 20u) << "parameter " << i;
  }
  // the same seed, the same cases; another seed, others
  EXPECT_EQ(study_cases(s)[3].values, cases[3].values);
  Study other = s;
  other.seed = 8;
  EXPECT_NE(study_cases(other)[3].values, cases[3].values);
}

TEST(StudyCases, RandomSamplesStayInTheRanges) {
  const Study s = suspension_study(
      "parameters:\n  K: {from: 100, to: 200}\nsampling: {random: 50, seed: 3}\nmetrics:\n  u: "
      "{channel: guide.x}\n");
  const std::vector<Case> cases = study_cases(s);
  ASSERT_EQ(cases.size(), 50u);
  for (const Case& c : cases) {
    EXPECT_GE(c.values[0], 100.0);
    EXPECT_LT(c.values[0], 200.0);
  }
}

TEST(StudyRunner, UnknownParameterChannelOrEventIsRefusedAtTheStudysEntry) {
  const std::string file = test::source_path("examples/test.study.yaml");
  const std::string parameter = message_of([] {
    StudyRunner r(suspension_study("parameters:\n  Kk: [1]\nmetrics:\n  u: {channel: guide.x}\n"));
  });
  EXPECT_NE(parameter.find(file + ":3:3"), std::string::npos) << parameter;
  EXPECT_NE(parameter.find("has no parameter 'Kk' (did you mean 'K'?)"), std::string::npos)
      << parameter;
  const std::string channel = message_of([] {
    StudyRunner r(
        suspension_study("parameters:\n  K: [1]\nmetrics:\n  u: {channel: guide.angle}\n"));
  });
  EXPECT_NE(channel.find(file + ":5:3"), std::string::npos) << channel;
  EXPECT_NE(channel.find("no channel 'guide.angle'"), std::string::npos) << channel;
  const std::string event = message_of([] {
    StudyRunner r(suspension_study("parameters:\n  K: [1]\nmetrics:\n  t: {time_of: latch}\n"));
  });
  EXPECT_NE(event.find("no event 'latch'; its events are: pulse.until"), std::string::npos)
      << event;
}

// A case whose parameter the model refuses (a negative mass) is a failed
// row with the model's message; the other cases run.
TEST(StudyRunner, ImpossibleParameterIsAFailedRow) {
  const Study s = suspension_study(
      "parameters:\n  m: [2, -1, 3]\nmetrics:\n  u: {channel: guide.x}\n  e: energy_lost\n");
  const StudyRunner runner(s);
  const std::vector<CaseResult> rows = run_cases(runner, study_cases(s), {2, {}, nullptr});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_TRUE(rows[0].ok);
  EXPECT_TRUE(rows[2].ok);
  EXPECT_FALSE(rows[1].ok);
  EXPECT_NE(rows[1].error.find("mass"), std::string::npos) << rows[1].error;
  EXPECT_TRUE(std::isnan(rows[1].metrics[0]));
  const std::string row = csv_row(rows[1]);
  EXPECT_NE(row.find(",failed,"), std::string::npos) << row;
  // a CSV row reads back as it was written
  const std::optional<CaseResult> back = parse_csv_row(row.substr(0, row.size() - 1), 1, 2);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->error, rows[1].error);
  EXPECT_FALSE(back->ok);
  const std::string good = csv_row(rows[2]);
  const std::optional<CaseResult> back2 = parse_csv_row(good.substr(0, good.size() - 1), 1, 2);
  ASSERT_TRUE(back2.has_value());
  EXPECT_EQ(back2->metrics, rows[2].metrics);
}

// A case that runs to its end but fails its energy audit (a Moreau-Jean
// pendulum gaining energy at the coarser step, docs/cli.md) keeps its
// metrics and is marked: status audit_failed, the warning as its error.
TEST(StudyRunner, ACaseWhoseEnergyAuditFailsKeepsItsMetricsAndIsMarked) {
  const Study s = parse_study(
      "model: audit_scheme_energy.yaml\nparameters:\n  h: [1e-3, 1e-4]\nmetrics:\n  "
      "a: {channel: pivot.angle}\n",
      test::source_path("tests/cli/models/test.study.yaml"));
  const StudyRunner runner(s);
  const std::vector<CaseResult> rows = run_cases(runner, study_cases(s), {2, {}, nullptr});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0].ok);
  EXPECT_FALSE(rows[0].audit_passed);
  EXPECT_TRUE(std::isfinite(rows[0].metrics[0]));
  EXPECT_EQ(rows[0].error.rfind(
                "energy audit failed: the energy dissipated by dampers, friction and impacts "
                "fell by ",
                0),
            0u)
      << rows[0].error;
  EXPECT_TRUE(rows[1].ok);
  EXPECT_TRUE(rows[1].audit_passed);
  EXPECT_EQ(rows[1].error, "");
  const std::string row = csv_row(rows[0]);
  EXPECT_NE(row.find(",audit_failed,\"energy audit failed: "), std::string::npos) << row;
  const std::optional<CaseResult> back = parse_csv_row(row.substr(0, row.size() - 1), 1, 1);
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back->ok);
  EXPECT_FALSE(back->audit_passed);
  EXPECT_EQ(back->error, rows[0].error);
  EXPECT_EQ(back->metrics, rows[0].metrics);
  EXPECT_NE(csv_row(rows[1]).find(",ok,,"), std::string::npos);
}

// Coulomb friction in a joint under Moreau-Jean, which a run refuses at its
// start (docs/model-file.md), is refused at the study's entry, located at
// the joint's friction: not reported case by case as failed rows.
TEST(StudyRunner, JointFrictionUnderTimeSteppingIsRefusedAtTheStudysEntry) {
  const Study s = parse_study(
      "model: pin_friction_time_stepping.yaml\nparameters:\n  mu: [0.1, 0.3]\nmetrics:\n  "
      "a: {channel: pivot.angle}\n",
      test::source_path("tests/cli/models/test.study.yaml"));
  const std::string message = message_of([&] { StudyRunner runner(s); });
  EXPECT_NE(message.find("pin_friction_time_stepping.yaml:20:15"), std::string::npos) << message;
  EXPECT_NE(message.find("joint 'pivot'"), std::string::npos) << message;
  EXPECT_NE(message.find("which integrator 'moreau_jean' does not impose"), std::string::npos)
      << message;
}

// Only formula parameters vary (g appears only in the pulse's formula of
// time): the cases share one parsed model, and measure what runs of the
// model loaded with those values measure, bit for bit. Varying a number of
// an element (K, the stiffness) loads the model for every case.
TEST(StudyRunner, FormulaParametersShareTheParsedModel) {
  const Study s = suspension_study(R"(
parameters:
  g: [9.81, 4.905, 1.5]
metrics:
  u: {channel: guide.x, extremum: abs}
  a: {channel: block.az, extremum: min, from: 0, to: Tp}
  e: energy_lost
)");
  const StudyRunner runner(s);
  EXPECT_TRUE(runner.shares_parsed_model());
  for (const Case& c : study_cases(s)) {
    const CaseResult r = runner.run(c);
    ASSERT_TRUE(r.ok) << r.error;
    const Model model = load_model(kSuspension, {{"g", fmt::format("{}", c.values[0])}});
    Simulation simulation(model);
    Summary summary(
        {}, {{"guide.x", SummaryPeak::Kind::kLargestMagnitude, -INFINITY, INFINITY, "u", {}},
             {"block.az", SummaryPeak::Kind::kMinimum, 0.0, M_PI / 10.0, "a", {}}});
    simulation.add_observer(summary);
    (void)simulation.run();
    EXPECT_EQ(r.metrics[0], summary.peaks()[0].value) << "g = " << c.values[0];
    EXPECT_EQ(r.metrics[1], summary.peaks()[1].value) << "g = " << c.values[0];
    EXPECT_EQ(r.metrics[2], simulation.system().channel_value(
                                simulation.system().find_channel("energy.dissipated")));
  }
  EXPECT_FALSE(
      StudyRunner(suspension_study("parameters:\n  K: [1]\nmetrics:\n  u: {channel: guide.x}\n"))
          .shares_parsed_model());
  // a parameter another parameter is computed from is read with the file
  EXPECT_FALSE(
      StudyRunner(suspension_study("parameters:\n  m: [1]\nmetrics:\n  u: {channel: guide.x}\n"))
          .shares_parsed_model());
}

// Values at an event and at the end, the event's time, the energy lost:
// against a recorded single run (the samples just before and after the end
// of the pulse, the last sample).
TEST(StudyRunner, EventAndEndMetricsMatchASingleRun) {
  const Study s = suspension_study(R"(
parameters:
  K: [800]
metrics:
  t_end_pulse: {time_of: pulse.until}
  u_at_end_pulse: {channel: guide.x, at_event: pulse.until}
  F_before: {channel: pulse.Fz, at_event: pulse.until}
  F_after: {channel: pulse.Fz, at_event: pulse.until, side: after}
  u_end: {channel: guide.x, at: end}
  lost: energy_lost
  a_scaled: {channel: block.az, extremum: min, from: 0, to: Tp, scale: m, abs: true}
)");
  const CaseResult r = StudyRunner(s).run(study_cases(s)[0]);
  ASSERT_TRUE(r.ok) << r.error;
  const test::RecordedRun run = test::run_and_record(
      load_model(kSuspension), {"guide.x", "pulse.Fz", "energy.dissipated", "block.az"});
  EXPECT_NEAR(r.metrics[0], M_PI / 10.0, 1e-12);
  // the sample at the event (the first of the two at that time)
  std::size_t k = 0;
  while (run.t[k] < r.metrics[0] - 1e-15) ++k;
  EXPECT_EQ(run.t[k], r.metrics[0]);
  EXPECT_EQ(r.metrics[1], run["guide.x"][k]);
  EXPECT_EQ(r.metrics[2], run["pulse.Fz"][k]);
  EXPECT_EQ(r.metrics[3], run["pulse.Fz"][k + 1]);
  EXPECT_EQ(r.metrics[3], 0.0);  // the pulse is off after its event
  EXPECT_NE(r.metrics[2], 0.0);
  EXPECT_EQ(r.metrics[4], run.final("guide.x"));
  EXPECT_EQ(r.metrics[5], run.final("energy.dissipated"));
  EXPECT_GT(r.metrics[5], 0.0);
  // the in-pulse minimum, times m = 2, as a magnitude (closed form -33.48 m/s^2)
  EXPECT_NEAR(r.metrics[6], 2.0 * 33.480094, 1e-4);
}

// Issue 16 item 8: at a jump the metric reports the one-sided limit asked
// for. With structural damping psi = 0.48 the largest |a| is the jump at the
// velocity reversal, -92.37821 -> -32.45721 (docs/model-file.md).
TEST(StudyRunner, OneSidedLimitsAtAJump) {
  const Study s = suspension_study(R"(
set: {psi: 0.48}
parameters:
  K: [800]
metrics:
  a: {channel: block.az, extremum: abs}
  a_left: {channel: block.az, extremum: abs, limit: left}
  a_right: {channel: block.az, extremum: abs, limit: right}
)");
  const CaseResult r = StudyRunner(s).run(study_cases(s)[0]);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_NEAR(r.metrics[0], -92.37821, 1e-4);
  EXPECT_EQ(r.metrics[0], r.metrics[1]);
  EXPECT_NEAR(r.metrics[2], -32.45721, 1e-4);
}

// The acceptance sweep: seed 003's mount over a 10 x 10 grid of K and C gives
// for every case the extrema of a single run of the model with those values
// (as `ictus run --set K=.. --set C=..` measures them: the Summary's located
// peaks), bit for bit; the paper's mount (K = 800, C = 16) is the reference's.
TEST(SuspensionSweepSlow, SameMaximaAsSingleRuns) {
  const Study s = load_study(test::source_path("examples/studies/suspension_sweep.yaml"));
  const std::vector<Case> cases = study_cases(s);
  ASSERT_EQ(cases.size(), 100u);
  const StudyRunner runner(s);
  const std::vector<CaseResult> rows = run_cases(runner, cases);
  ASSERT_EQ(rows.size(), 100u);
  const std::vector<SummaryPeak> peaks{
      {"guide.x", SummaryPeak::Kind::kLargestMagnitude, -INFINITY, INFINITY, "u", {}},
      {"guide.v", SummaryPeak::Kind::kLargestMagnitude, -INFINITY, INFINITY, "v", {}},
      {"block.az", SummaryPeak::Kind::kLargestMagnitude, -INFINITY, INFINITY, "a", {}},
      {"block.az", SummaryPeak::Kind::kMinimum, 0.0, M_PI / 10.0, "a_pulse", {}}};
  for (const CaseResult& row : rows) {
    ASSERT_TRUE(row.ok) << row.error;
    const Model model = load_model(kSuspension, {{"K", fmt::format("{}", row.parameters[0])},
                                                 {"C", fmt::format("{}", row.parameters[1])}});
    Simulation simulation(model);
    Summary summary(select_channels(simulation.system(), model.settings().outputs), peaks);
    simulation.add_observer(summary);
    (void)simulation.run();
    const std::vector<PeakResult> single = summary.peaks();
    for (std::size_t k = 0; k < 4; ++k)
      EXPECT_EQ(row.metrics[k], single[k].value)
          << "case " << row.index << " (K = " << row.parameters[0] << ", C = " << row.parameters[1]
          << "), metric " << s.metrics[k].name;
  }
  // K = 800, C = 16: case 33; REPORT.md case 3, Table 1, the continuous extrema
  const CaseResult& paper = rows[33];
  ASSERT_EQ(paper.parameters, (std::vector<double>{800, 16}));
  EXPECT_NEAR(paper.metrics[0], -0.335271, 1e-6);
  EXPECT_NEAR(paper.metrics[1], 3.927241, 1e-6);
  EXPECT_NEAR(paper.metrics[2], -59.39049, 1e-5);
}

// `optimize` on seed 003's mount (examples/studies/suspension_optimize.yaml):
// the unit's in-pulse peak acceleration under a travel limit, over K and C,
// converges to the optimum of a fine sweep of the same study: no feasible
// grid point is better, and the optimum lies within one grid spacing of the
// grid's best.
TEST(SuspensionOptimizeSlow, ConvergesToTheOptimumOfAFineSweep) {
  const Study s = load_study(test::source_path("examples/studies/suspension_optimize.yaml"));
  const StudyRunner runner(s);
  int evaluations = 0;
  const OptimizationResult best =
      optimize_study(runner, 1, [&](const Evaluation&) { ++evaluations; });
  ASSERT_TRUE(best.found) << best.stop_reason;
  EXPECT_EQ(best.evaluations, evaluations);
  EXPECT_LE(best.metrics[1], 0.35);  // the travel limit holds

  Study sweep = s;
  sweep.parameters[0].values.clear();
  sweep.parameters[1].values.clear();
  for (int i = 0; i <= 24; ++i) sweep.parameters[0].values.push_back(300.0 + 25.0 * i);
  for (int j = 0; j <= 15; ++j) sweep.parameters[1].values.push_back(10.0 + 2.0 * j);
  const std::vector<CaseResult> rows = run_cases(StudyRunner(sweep), study_cases(sweep));
  const CaseResult* grid_best = nullptr;
  for (const CaseResult& r : rows) {
    ASSERT_TRUE(r.ok) << r.error;
    if (r.metrics[1] <= 0.35 && (grid_best == nullptr || r.metrics[0] < grid_best->metrics[0]))
      grid_best = &r;
  }
  ASSERT_NE(grid_best, nullptr);
  EXPECT_LE(best.objective, grid_best->metrics[0]);
  EXPECT_LE(std::abs(best.best[0] - grid_best->parameters[0]), 25.0)
      << "K " << best.best[0] << " against " << grid_best->parameters[0];
  EXPECT_LE(std::abs(best.best[1] - grid_best->parameters[1]), 2.0)
      << "C " << best.best[1] << " against " << grid_best->parameters[1];
  // within the grid's resolution of its objective too
  EXPECT_NEAR(best.objective, grid_best->metrics[0], 0.01 * grid_best->metrics[0]);

  // a multi-start (three COBYLA runs on two threads) finds it too
  Study multi = s;
  multi.optimize.starts = 3;
  const OptimizationResult best3 = optimize_study(StudyRunner(multi), 2, {});
  ASSERT_TRUE(best3.found) << best3.stop_reason;
  EXPECT_LE(best3.metrics[1], 0.35);
  EXPECT_LE(best3.objective, grid_best->metrics[0]);
  EXPECT_LE(std::abs(best3.best[0] - grid_best->parameters[0]), 25.0);
  EXPECT_LE(std::abs(best3.best[1] - grid_best->parameters[1]), 2.0);
}

}  // namespace
}  // namespace ictus::study
