// Located extrema (issue 17, part 1): the summary's max/min of every channel
// and their times found on the integrator's dense output, to the integration
// tolerance, whatever output_step is; at an event, a one-sided limit with the
// other beside it; windowed peaks (summary: peaks:) the same way.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "ictus/observers.h"
#include "support/test_support.h"

namespace ictus {
namespace {

const ChannelExtrema& extrema_of(const Summary& summary, const std::string& name) {
  for (const ChannelExtrema& e : summary.extrema())
    if (e.name == name) return e;
  throw std::out_of_range(name);
}

// Seed 001 (examples/piston_push.yaml, output_step 0.01): the piston's
// largest excursion and its time (shared/reference/REPORT.md, case 2:
// x_max = 0.265089223462387 m at t = 2.59451819497388 s). The samples alone
// give 0.2647664 m (issue 17).
TEST(LocatedExtrema, PistonLargestExcursionAndItsTime) {
  const Model model = load_model(test::source_path("examples/piston_push.yaml"));
  ASSERT_EQ(model.settings().output_step, 0.01);
  Simulation simulation(model);
  Summary summary({"guide.x", "guide.v"});
  simulation.add_observer(summary);
  (void)simulation.run();
  const ChannelExtrema& x = extrema_of(summary, "guide.x");
  EXPECT_TRUE(x.high.located);
  EXPECT_EQ(x.high.side, 0);
  EXPECT_NEAR(x.max, 0.265089223462387, 1e-8);
  EXPECT_NEAR(x.t_max, 2.59451819497388, 1e-8);
  EXPECT_NE(summary.table().find("located"), std::string::npos) << summary.table();
}

// Seed 003, Table 1 (viscous, examples/suspension.yaml) from a run with
// output_step 0.05: the exact continuous extrema of the linear oscillator
// (closed form, REPORT.md case 3 "exact, continuous extrema", here to 14
// digits from the same closed form).
TEST(LocatedExtrema, SuspensionTable1FromCoarseOutput) {
  Model model = load_model(test::source_path("examples/suspension.yaml"));
  model.settings().output_step = 0.05;
  Simulation simulation(model);
  Summary summary({"guide.x", "guide.v", "block.az"});
  simulation.add_observer(summary);
  (void)simulation.run();
  const ChannelExtrema& u = extrema_of(summary, "guide.x");
  const ChannelExtrema& v = extrema_of(summary, "guide.v");
  const ChannelExtrema& a = extrema_of(summary, "block.az");
  for (const LocatedExtremum* e : {&u.low, &v.high, &a.low}) EXPECT_TRUE(e->located);
  EXPECT_NEAR(u.min, -0.33527075043106364, 1e-8);
  EXPECT_NEAR(u.t_min, 0.2152814665880425, 1e-8);
  EXPECT_NEAR(v.max, 3.927241339951135, 1e-8);
  EXPECT_NEAR(v.t_max, 0.32205165423334026, 1e-8);
  EXPECT_NEAR(a.min, -59.39048686520677, 1e-8);
  EXPECT_NEAR(a.t_min, 0.39193551525170545, 1e-8);
}

// Issue 16 item 8: the paper's a_max is the minimum of a inside the pulse,
// t < pi/10 (the window of the example's peak "a_max in the pulse"); from a
// run with output_step 0.05. Before the first stick both cases are linear
// oscillators, solved in closed form: structural (u < 0, u' < 0) u'' =
// -K (1 + psi) u / m + F / m from rest at 0; friction u'' = (-K u + fT + F) / m
// from rest at the slip t_s = asin(fT / (10 m g)) / 10. The reference's
// "early min a" (case3_output.txt: -36.9781 at 0.058761, -38.2242 at
// 0.087284) agrees in value; its times are off by 1e-6 and 4e-6 s.
TEST(LocatedExtrema, InPulsePeakOfStructuralAndFrictionCasesFromTheirWindows) {
  struct Case {
    const char* parameter;
    const char* value;
    double a_min, t;
  };
  for (const Case& c : {Case{"psi", "0.48", -36.978079210875464, 0.058762129365770924},
                        Case{"fT", "44.2", -38.22424561235798, 0.08727978076974743}}) {
    SCOPED_TRACE(c.parameter);
    Model model = load_model(test::source_path("examples/suspension.yaml"),
                             {{"C", "0"}, {c.parameter, c.value}});
    model.settings().output_step = 0.05;
    Simulation simulation(model);
    Summary summary({"guide.x"}, model.settings().peaks);
    simulation.add_observer(summary);
    (void)simulation.run();
    const std::vector<PeakResult> peaks = summary.peaks();
    ASSERT_EQ(peaks.size(), 4u);
    const PeakResult& in_pulse = peaks[3];
    EXPECT_EQ(in_pulse.peak.label, "a_max in the pulse");
    EXPECT_TRUE(in_pulse.located.located);
    EXPECT_NEAR(in_pulse.value, c.a_min, 1e-8);
    EXPECT_NEAR(in_pulse.t, c.t, 1e-8);
  }
}

// At an event the extremum is a one-sided limit, and the table shows both:
// with psi = 0.48 the largest |a| is the jump when the block slips again
// (case3_output.txt: -92.37821 at 0.457926 s, the limit after the reversal).
TEST(LocatedExtrema, JumpAtAnEventKeepsBothLimits) {
  Model model =
      load_model(test::source_path("examples/suspension.yaml"), {{"C", "0"}, {"psi", "0.48"}});
  model.settings().output_step = 0.05;
  Simulation simulation(model);
  Summary summary({"block.az"});
  simulation.add_observer(summary);
  (void)simulation.run();
  const ChannelExtrema& a = extrema_of(summary, "block.az");
  EXPECT_TRUE(a.low.located);
  EXPECT_NE(a.low.side, 0);
  EXPECT_TRUE(std::isfinite(a.low.other_side));
  EXPECT_NEAR(a.min, -92.37821, 1e-4);
  EXPECT_NEAR(a.t_min, 0.457926, 1e-6);
  EXPECT_NE(summary.table().find("jump"), std::string::npos) << summary.table();
}

}  // namespace
}  // namespace ictus
