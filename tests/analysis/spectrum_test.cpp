// The amplitude spectrum (issue 17, part 3): a pure sine peaks at its
// frequency with its amplitude; two sines are both found, the larger first.
#include "ictus/spectrum.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace ictus {
namespace {

constexpr double kPi = std::numbers::pi;

void sample(double step, double length, const auto& f, std::vector<double>& t,
            std::vector<double>& v) {
  for (int k = 0; k * step <= length + 1e-12; ++k) {
    t.push_back(k * step);
    v.push_back(f(k * step));
  }
}

TEST(Spectrum, PureSinePeaksAtItsFrequency) {
  // 7.3 Hz, amplitude 2, an offset, sampled at 1 kHz for 3 s (0.33 Hz bins)
  std::vector<double> t, v;
  sample(
      1e-3, 3.0, [](double x) { return 0.5 + 2.0 * std::sin(2 * kPi * 7.3 * x + 0.4); }, t, v);
  const Spectrum s = amplitude_spectrum(t, v, 0.0, 3.0);
  EXPECT_NEAR(s.resolution, 1.0 / 3.0, 1e-12);
  const std::vector<SpectralPeak> peaks = dominant_frequencies(s, 3);
  ASSERT_FALSE(peaks.empty());
  EXPECT_NEAR(peaks[0].frequency, 7.3, 0.5 * s.resolution);
  EXPECT_NEAR(peaks[0].amplitude, 2.0, 0.3);  // the Hann window's scalloping: at most 15 %
  EXPECT_LT(s.amplitude[0], 1e-3);            // the mean is removed
}

TEST(Spectrum, TwoSinesLargerFirst) {
  std::vector<double> t, v;
  sample(
      1e-3, 4.0,
      [](double x) { return 0.3 * std::sin(2 * kPi * 40.0 * x) + std::cos(2 * kPi * 12.5 * x); }, t,
      v);
  const std::vector<SpectralPeak> peaks =
      dominant_frequencies(amplitude_spectrum(t, v, 0.0, 4.0), 2);
  ASSERT_EQ(peaks.size(), 2u);
  EXPECT_NEAR(peaks[0].frequency, 12.5, 0.125);
  EXPECT_NEAR(peaks[1].frequency, 40.0, 0.125);
  EXPECT_NEAR(peaks[0].amplitude, 1.0, 0.15);
  EXPECT_NEAR(peaks[1].amplitude, 0.3, 0.05);
}

// A window, and the sample times of a run: event pairs at one instant.
TEST(Spectrum, WindowAndRepeatedTimes) {
  std::vector<double> t, v;
  sample(
      1e-3, 2.0, [](double x) { return x < 1.0 ? 0.0 : std::sin(2 * kPi * 25.0 * x); }, t, v);
  t.insert(t.begin() + 500, 0.5);  // a sample pair at an event at 0.5 s
  v.insert(v.begin() + 500, 0.0);
  const std::vector<SpectralPeak> peaks =
      dominant_frequencies(amplitude_spectrum(t, v, 1.0, 2.0), 1);
  ASSERT_EQ(peaks.size(), 1u);
  EXPECT_NEAR(peaks[0].frequency, 25.0, 0.5);
  EXPECT_THROW((void)amplitude_spectrum(t, v, 5.0, 6.0), std::invalid_argument);
}

}  // namespace
}  // namespace ictus
