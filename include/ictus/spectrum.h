// The amplitude spectrum of a channel over a time window (issue 17): what
// `ictus spectrum RESULTS CHANNEL` writes, docs/cli.md.
#pragma once

#include <vector>

namespace ictus {

struct Spectrum {
  std::vector<double> frequency;  ///< [Hz], 0 to the Nyquist frequency, spacing `resolution`
  std::vector<double> amplitude;  ///< single-sided: a sine of amplitude A reads about A at its bin
  double resolution = 0.0;        ///< 1 / window length [Hz]
  int samples = 0;                ///< points of the uniform grid transformed
};

/// The spectrum of v(t) over [from, to]: v resampled linearly on a uniform
/// grid as fine as the finest sample spacing in the window (at most 2^22
/// points), its mean removed, a Hann window applied (amplitudes corrected for
/// its gain of 1/2), transformed by Eigen's FFT. `t` is non-decreasing (equal
/// times at events: the later value stands from there on). Throws
/// std::invalid_argument for fewer than four samples in the window.
Spectrum amplitude_spectrum(const std::vector<double>& t, const std::vector<double>& v, double from,
                            double to);

struct SpectralPeak {
  double frequency = 0.0;  ///< [Hz], refined between bins by a parabola through log amplitudes
  double amplitude = 0.0;
};

/// The `count` largest local maxima of the spectrum (the zero-frequency bin
/// excluded, and those below 1e-3 of the largest), largest first.
std::vector<SpectralPeak> dominant_frequencies(const Spectrum& spectrum, int count);

}  // namespace ictus
