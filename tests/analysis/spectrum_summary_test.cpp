// The spectrum lines of the run summary (issue 17, part 3: `summary:
// spectra:`): the dominant frequency of a free vibration is its damped
// natural frequency; a window too short for the lowest frequency wanted, a
// window outside the run and an unknown channel are refused at the entry.
#include "ictus/spectrum_summary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "ictus/error.h"
#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

TEST(SpectrumSummary, FreeVibrationPeaksAtTheDampedNaturalFrequency) {
  // examples/mount_block.yaml: omega_d = sqrt(K/m) sqrt(1 - zeta^2) = 19.596 rad/s
  Model model = load_model(test::source_path("examples/mount_block.yaml"));
  ASSERT_EQ(model.settings().spectra.size(), 1u);
  model.settings().until = 8.0;  // 0.125 Hz bins
  model.settings().spectra[0].peaks = 1;
  Simulation simulation(model);
  check_summary_spectra(simulation.system(), model.settings().spectra);
  SpectrumSummary spectra(model.settings().spectra);
  simulation.add_observer(spectra);
  simulation.run();
  ASSERT_EQ(spectra.results().size(), 1u);
  const SpectrumResult& r = spectra.results()[0];
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.unit, "m");
  EXPECT_DOUBLE_EQ(r.from, 0.0);
  EXPECT_DOUBLE_EQ(r.to, 8.0);
  ASSERT_EQ(r.peaks.size(), 1u);
  const double f_d = std::sqrt(800.0 / 2.0) * std::sqrt(1.0 - 0.2 * 0.2) / (2.0 * std::numbers::pi);
  EXPECT_NEAR(r.peaks[0].frequency, f_d, r.spectrum.resolution);
  const std::string table = spectra.table();
  EXPECT_NE(table.find("free vibration"), std::string::npos) << table;
  EXPECT_NE(table.find("0.125 Hz"), std::string::npos) << table;
}

std::string refusal(Model model, SummarySpectrum s) {
  model.settings().spectra = {s};
  const System system(model);
  try {
    check_summary_spectra(system, model.settings().spectra);
  } catch (const ModelError& e) {
    return std::string(e.what());
  }
  return std::string("accepted");
}

TEST(SpectrumSummary, BadRequestsAreRefused) {
  const Model model = load_model(test::source_path("examples/mount_block.yaml"));  // 0 .. 2 s
  SummarySpectrum s;
  s.channel = "guide.x";
  s.label = s.channel;
  s.lowest = 0.5;  // two periods: 4 s, the run is 2 s long
  const std::string too_short = refusal(model, s);
  EXPECT_NE(too_short.find("shorter than two periods of the lowest frequency wanted, 0.5 Hz"),
            std::string::npos)
      << too_short;
  s.lowest = 1.0;  // 2 s: just enough
  EXPECT_EQ(refusal(model, s), "accepted");
  s.from = 0.5;  // 1.5 s
  const std::string raise = refusal(model, s);
  EXPECT_NE(raise.find("raise 'lowest' to at least 1.33333 Hz"), std::string::npos) << raise;
  s.from = 3.0;
  s.to = 4.0;
  const std::string outside = refusal(model, s);
  EXPECT_NE(outside.find("lies outside the run"), std::string::npos) << outside;
  s.from = 0.0;
  s.to = 2.0;
  s.channel = "guide.xx";
  const std::string unknown = refusal(model, s);
  EXPECT_NE(unknown.find("unknown channel 'guide.xx'"), std::string::npos) << unknown;
}

}  // namespace
}  // namespace ictus
