// Stiff models (issue 6, "Speed"): a BDF method's step is bounded by
// accuracy, an explicit method's by the stability of the fastest mode. The
// checks are on step counts and results, never on time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

test::RecordedRun run(const std::string& file, const std::string& integrator, double until,
                      const std::vector<std::string>& channels) {
  Model model = load_model(test::source_path(file));
  model.settings().integrator.name = integrator;
  model.settings().until = until;
  return test::run_and_record(model, channels);
}

// tests/models/stiff_chain.yaml: three rods whose middle hinge is braced by a
// 1e9 N/m spring-damper. Both methods run at the file's rtol 1e-6 over 0.1 s.
// Measured (Release): cvode 200 steps, dopri5 12256 (61x); the final angles
// and rates agree to 1e-5. The factor 20 leaves a margin of 3.
TEST(Stiff, ChainCvodeTakesFarFewerStepsThanDopriAtTheSameAccuracy) {
  const std::vector<std::string> channels{"hinge0.angle", "hinge2.angle", "hinge0.omega",
                                          "hinge2.omega"};
  const test::RecordedRun bdf = run("tests/models/stiff_chain.yaml", "cvode", 0.1, channels);
  const test::RecordedRun rk = run("tests/models/stiff_chain.yaml", "dopri5", 0.1, channels);
  for (const std::string& c : channels) {
    SCOPED_TRACE(c);
    EXPECT_NEAR(bdf.final(c), rk.final(c), 1e-4);
  }
  EXPECT_GT(bdf.stats.integrator.steps, 0);
  EXPECT_GE(rk.stats.integrator.steps, 20 * bdf.stats.integrator.steps)
      << "dopri5 " << rk.stats.integrator.steps << ", cvode " << bdf.stats.integrator.steps;
}

// examples/piston_stiff.yaml: seed 001's piston on a 1e10 N/m stop (a
// switched spring-damper). Up to 3.2 s it lifts off, is pushed to L/2, comes
// back and bounces until the bounces die out near the rigid model's
// accumulation point 3.10208 s. Both methods see the same switches at the
// same times; the first contact is the rigid model's t3 shifted by the
// static penetration F0/k only.
TEST(Stiff, PistonCvodeAndDopriLocateTheSameContacts) {
  const test::RecordedRun bdf = run("examples/piston_stiff.yaml", "cvode", 3.2, {"guide.x"});
  const test::RecordedRun rk = run("examples/piston_stiff.yaml", "dopri5", 3.2, {"guide.x"});
  auto switches = [](const test::RecordedRun& r) {
    std::vector<const EventRecord*> out;
    for (const EventRecord& e : r.events)
      if (e.kind == "switch") out.push_back(&e);
    return out;
  };
  const auto a = switches(bdf);
  const auto b = switches(rk);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GE(a.size(), 10u);
  // off at lift-off (t1 = F0/b = 2 s), push off at x = L/2, then on/off pairs
  EXPECT_EQ(a[0]->name, "stop");
  EXPECT_NEAR(a[0]->t, 2.0, 1e-5);  // the damper holds the opening stop ~5 us
  EXPECT_EQ(a[1]->name, "push");
  EXPECT_NEAR(a[1]->t, 2.56359741257601, 1e-7);
  EXPECT_EQ(a[2]->name, "stop");
  EXPECT_NEAR(a[2]->t, 2.72636615938591, 1e-7);
  for (std::size_t k = 0; k < a.size(); ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(a[k]->name, b[k]->name);
    EXPECT_EQ(a[k]->detail, b[k]->detail);
    EXPECT_NEAR(a[k]->t, b[k]->t, 1e-6);
  }
  // the last contact begins near the accumulation point and then holds
  EXPECT_NEAR(a.back()->t, 3.10208050578463, 1e-3);
  EXPECT_EQ(a.back()->detail, "switched on");
  EXPECT_LT(bdf.stats.integrator.steps, rk.stats.integrator.steps);
}

}  // namespace
}  // namespace ictus
