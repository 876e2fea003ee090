// Stick/slip between two points off any joint (tests/models/friction_strut.yaml):
// a free body swinging on a strut with dry friction. Stuck, a distance row
// holds the length the strut had at the instant of sticking; it does no work,
// so the energy audit closes through every stick, slip and reversal.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

double logged_u(const EventRecord& e) {
  const auto at = e.detail.find("u = ");
  return std::stod(e.detail.substr(at + 4));
}

TEST(FrictionStrut, StuckHoldsTheLengthAndTheEnergyBalanceCloses) {
  const Model model = load_model(test::source_path("tests/models/friction_strut.yaml"));
  const test::RecordedRun r =
      test::run_and_record(model, {"strut.length", "strut.rate", "strut.mode",
                                   "strut.friction_force", "energy.balance", "energy.dissipated"});
  int sticks = 0, slips = 0, reversals = 0;
  double held_u = 0.0;
  for (const EventRecord& e : r.events) {
    if (e.kind == "stick") {
      ++sticks;
      held_u = logged_u(e);
    } else if (e.kind == "slip") {
      ++slips;
      // it slips again at the length it stuck at (to the Baumgarte drift)
      EXPECT_NEAR(logged_u(e), held_u, 1e-9) << "slip at " << e.t;
    } else if (e.kind == "reversal") {
      ++reversals;
    }
  }
  EXPECT_GE(sticks, 4);
  EXPECT_GE(slips, 4);
  EXPECT_GE(reversals, 1);
  // over every stuck stretch of samples the length stays where it stuck, the
  // rate at zero and the friction force within F_max = fT
  const std::vector<double>& length = r["strut.length"];
  const std::vector<double>& mode = r["strut.mode"];
  double drift = 0.0, rate = 0.0, force = 0.0;
  int stuck_samples = 0;
  for (std::size_t k = 0; k < r.t.size();) {
    if (mode[k] != 0.0) {
      ++k;
      continue;
    }
    const double L = length[k];
    for (; k < r.t.size() && mode[k] == 0.0; ++k) {
      ++stuck_samples;
      drift = std::max(drift, std::abs(length[k] - L));
      rate = std::max(rate, std::abs(r["strut.rate"][k]));
      force = std::max(force, std::abs(r["strut.friction_force"][k]));
    }
  }
  EXPECT_GT(stuck_samples, 500);
  EXPECT_LT(drift, 1e-9);
  EXPECT_LT(rate, 1e-9);
  EXPECT_LE(force, 3.0 + 1e-9);
  EXPECT_GT(r.final("energy.dissipated"), 0.0);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-8);
  fmt::print(
      "friction strut: {} sticks, {} slips, {} reversals; stuck drift {:.2e} m, "
      "rate {:.2e} m/s, energy balance {:.2e} J\n",
      sticks, slips, reversals, drift, rate, r.max_abs("energy.balance"));
}

}  // namespace
}  // namespace ictus
