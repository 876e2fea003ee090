#include "ictus/spectrum.h"

#include <unsupported/Eigen/FFT>

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <stdexcept>

namespace ictus {

namespace {

// v at time x by linear interpolation of the samples (x within them); at
// equal times the later sample stands from there on
double interpolate(const std::vector<double>& t, const std::vector<double>& v, double x) {
  const auto upper = std::upper_bound(t.begin(), t.end(), x);
  if (upper == t.begin()) return v.front();
  if (upper == t.end()) return v.back();
  const auto k = static_cast<std::size_t>(upper - t.begin());
  const double t0 = t[k - 1], t1 = t[k];
  if (!(t1 > t0)) return v[k - 1];
  return v[k - 1] + (v[k] - v[k - 1]) * (x - t0) / (t1 - t0);
}

}  // namespace

Spectrum amplitude_spectrum(const std::vector<double>& t, const std::vector<double>& v, double from,
                            double to) {
  if (t.size() != v.size()) throw std::invalid_argument("times and values differ in length");
  double finest = std::numeric_limits<double>::infinity();
  int inside = 0;
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (t[k] < from || t[k] > to) continue;
    ++inside;
    if (k > 0 && t[k - 1] >= from && t[k] - t[k - 1] > 1e-12 * std::max(1.0, std::abs(t[k])))
      finest = std::min(finest, t[k] - t[k - 1]);
  }
  if (inside < 4 || !std::isfinite(finest))
    throw std::invalid_argument("fewer than four samples in the window");
  constexpr double kMaxPoints = 1 << 22;
  const double length = to - from;
  const int n = static_cast<int>(std::min(kMaxPoints, std::floor(length / finest + 0.5)));
  const double h = length / n;  // n points from `from`, one period of the periodic extension
  std::vector<double> grid(static_cast<std::size_t>(n));
  double mean = 0.0;
  for (int k = 0; k < n; ++k) {
    grid[static_cast<std::size_t>(k)] = interpolate(t, v, from + k * h);
    mean += grid[static_cast<std::size_t>(k)];
  }
  mean /= n;
  // Hann window, gain 1/2: a sine of amplitude A gives |X_k| = A n / 4
  for (int k = 0; k < n; ++k) {
    const double w = 0.5 - 0.5 * std::cos(2.0 * std::numbers::pi * k / n);
    grid[static_cast<std::size_t>(k)] = (grid[static_cast<std::size_t>(k)] - mean) * w;
  }
  Eigen::FFT<double> fft;
  std::vector<std::complex<double>> transform;
  fft.fwd(transform, grid);
  Spectrum s;
  s.samples = n;
  s.resolution = 1.0 / length;
  const int bins = n / 2 + 1;
  for (int k = 0; k < bins; ++k) {
    s.frequency.push_back(k * s.resolution);
    const double scale = (k == 0 || 2 * k == n) ? 2.0 / n : 4.0 / n;
    s.amplitude.push_back(scale * std::abs(transform[static_cast<std::size_t>(k)]));
  }
  return s;
}

std::vector<SpectralPeak> dominant_frequencies(const Spectrum& spectrum, int count) {
  std::vector<SpectralPeak> peaks;
  const std::vector<double>& a = spectrum.amplitude;
  for (std::size_t k = 1; k + 1 < a.size(); ++k) {
    if (!(a[k] > a[k - 1] && a[k] >= a[k + 1])) continue;
    SpectralPeak p{spectrum.frequency[k], a[k]};
    // between bins: the vertex of the parabola through the log amplitudes
    if (a[k - 1] > 0.0 && a[k + 1] > 0.0) {
      const double l0 = std::log(a[k - 1]), l1 = std::log(a[k]), l2 = std::log(a[k + 1]);
      const double d = l0 - 2.0 * l1 + l2;
      if (d < 0.0) p.frequency += 0.5 * (l0 - l2) / d * spectrum.resolution;
    }
    peaks.push_back(p);
  }
  std::sort(peaks.begin(), peaks.end(),
            [](const SpectralPeak& x, const SpectralPeak& y) { return x.amplitude > y.amplitude; });
  // ripples of round-off and of the window's side lobes are not frequencies
  // of the signal: below 1e-3 of the largest peak, none is reported
  if (!peaks.empty()) {
    const double floor = 1e-3 * peaks.front().amplitude;
    peaks.erase(std::find_if(peaks.begin(), peaks.end(),
                             [floor](const SpectralPeak& p) { return p.amplitude < floor; }),
                peaks.end());
  }
  if (peaks.size() > static_cast<std::size_t>(std::max(count, 0)))
    peaks.resize(static_cast<std::size_t>(std::max(count, 0)));
  return peaks;
}

}  // namespace ictus
