// Elements switched by conditions (issue: core acceptance; seed 001):
// a stop released when its reaction reaches zero (a condition on a
// reaction, located on the dense output), and a force switched off for good
// (reading 1) or switched on and off (reading 2) at x = L/2.
// Reference values: shared/reference/REPORT.md, case 2 (rigid model).
#include <gtest/gtest.h>

#include <cmath>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kTimeTol = 1e-9;   // REPORT.md: event times 1e-9 s
constexpr double kValueTol = 1e-9;  // velocities 1e-9 relative

double event_time(const std::vector<EventRecord>& log, const std::string& kind,
                  const std::string& name) {
  for (const EventRecord& r : log)
    if (r.kind == kind && r.name == name) return r.t;
  ADD_FAILURE() << "no " << kind << " record for " << name;
  return -1.0;
}

TEST(Switching, PistonLiftsOffAndThePushSwitchesOffAtTheMiddle) {
  const Model model = load_model(test::source_path("examples/piston_push.yaml"));
  Simulation simulation(model);
  Recorder recorder({"guide.x", "guide.v", "stop.Fx"});
  simulation.add_observer(recorder);
  const RunStatistics stats = simulation.run();
  const auto& log = simulation.events();

  EXPECT_NEAR(event_time(log, "switch", "stop"), 2.0, kTimeTol);  // t1 = F0/b
  const double t2 = event_time(log, "switch", "push");
  EXPECT_NEAR(t2, 2.56359741257601, kTimeTol);
  EXPECT_TRUE(stats.stopped_by_event);
  EXPECT_NEAR(simulation.time(), 2.72636615938591, kTimeTol);  // t3, back at the wall

  // states at the events: the samples just before and after each event
  const auto& t = recorder.times();
  const auto& x = recorder.series("guide.x");
  const auto& v = recorder.series("guide.v");
  double v2 = 0.0, x_max = 0.0;
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (std::abs(t[k] - t2) < 1e-12) v2 = v[k];
    x_max = std::max(x_max, x[k]);
  }
  EXPECT_LT(test::relative_error(v2, 0.974047526056437), kValueTol);
  EXPECT_LT(test::relative_error(v.back(), -3.87443784090243), kValueTol);
  // x_max from the samples (10 ms apart) is below the true maximum
  EXPECT_LT(x_max, 0.265089223462387 + 1e-12);
  EXPECT_GT(x_max, 0.265089223462387 - 1e-3);

  // the stop holds with N = F0 - b t before lift-off, and no longer after it
  const auto& n = recorder.series("stop.Fx");
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (t[k] < 2.0 - 1e-9) {
      EXPECT_NEAR(n[k], 50.0 - 25.0 * t[k], 1e-9) << t[k];
    } else if (t[k] > 2.0 + 1e-9) {
      EXPECT_EQ(n[k], 0.0) << t[k];
    }
  }
}

TEST(Switching, TwoWaySwitchingKeepsThePistonOffTheWall) {
  const Model model = load_model(test::source_path("tests/models/piston_push_reading2.yaml"));
  Simulation simulation(model);
  Recorder recorder({"guide.x", "guide.v"});
  simulation.add_observer(recorder);
  simulation.run();
  // crossings of x = L/2 with their speeds (REPORT.md, case 2, reading 2)
  const struct {
    double t, v;
    const char* kind;
  } kCrossings[] = {
      {2.56359741257601, 0.974047526, "switch off"}, {2.625438977, -0.974047526, "switch on"},
      {3.010082661, 1.303123565, "switch off"},      {3.092304620, -1.303123565, "switch on"},
      {3.352685526, 1.448528105, "switch off"},      {3.443782960, -1.448528105, "switch on"}};
  std::vector<double> times;
  for (const EventRecord& r : simulation.events())
    if (r.kind == "switch" && r.name == "push") times.push_back(r.t);
  ASSERT_GE(times.size(), 6u);
  const auto& t = recorder.times();
  const auto& v = recorder.series("guide.v");
  for (std::size_t k = 0; k < 6; ++k) {
    EXPECT_NEAR(times[k], kCrossings[k].t, 1e-8) << k;  // 10 digits printed in the report
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t[i] == times[k]) {
        EXPECT_NEAR(v[i], kCrossings[k].v, 1e-8) << k;
      }
  }
  // it never comes back to the wall: min x after the first crossing ~ 0.130683
  double x_min = 1.0;
  const auto& x = recorder.series("guide.x");
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i] > 2.6 && t[i] < 3.0) x_min = std::min(x_min, x[i]);
  EXPECT_NEAR(x_min, 0.130683, 2e-6);  // sampled every 1 ms near a turning point
}

}  // namespace
}  // namespace ictus
