#include "ictus/spectrum_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "../text_util.h"
#include "ictus/error.h"
#include "ictus/observers.h"

namespace ictus {

void check_summary_spectra(const System& system, const std::vector<SummarySpectrum>& spectra) {
  const SimulationSettings& run = system.model().settings();
  for (const SummarySpectrum& s : spectra) {
    check_summary_entry(system, "spectrum", s.label, s.channel, s.from, s.to, s.where);
    // the frequency resolution is 1/length: two periods of the lowest
    // frequency wanted put it two bins above zero, apart from the mean
    const double from = std::max(s.from, run.start), to = std::min(s.to, run.until);
    if (s.lowest > 0.0 && (to - from) * s.lowest < 2.0 * (1.0 - 1e-9))
      throw ModelError(s.lowest_where, "summary",
                       fmt::format("spectrum '{}': the window {:g} .. {:g} s ({:g} s) is shorter "
                                   "than two periods of the lowest frequency wanted, {:g} Hz "
                                   "({:g} s); lengthen the window (or the run) to at least {:g} s "
                                   "or raise 'lowest' to at least {:g} Hz",
                                   s.label, from, to, to - from, s.lowest, 2.0 / s.lowest,
                                   2.0 / s.lowest, 2.0 / (to - from)));
  }
}

SpectrumSummary::SpectrumSummary(std::vector<SummarySpectrum> spectra)
    : requests_(std::move(spectra)) {}

void SpectrumSummary::on_start(System& system, double, double) {
  series_.assign(requests_.size(), {});
  results_.clear();
  for (std::size_t k = 0; k < requests_.size(); ++k) {
    series_[k].index = system.find_channel(requests_[k].channel);
    SpectrumResult r;
    r.request = requests_[k];
    if (series_[k].index >= 0) r.unit = system.channel_info(series_[k].index).unit;
    results_.push_back(std::move(r));
  }
}

void SpectrumSummary::on_sample(double t, System& system) {
  for (std::size_t k = 0; k < requests_.size(); ++k) {
    Series& s = series_[k];
    if (s.index < 0 || t < requests_[k].from || t > requests_[k].to) continue;
    s.t.push_back(t);
    s.v.push_back(system.channel_value(s.index));
  }
}

void SpectrumSummary::on_finish(double, bool) {
  for (std::size_t k = 0; k < requests_.size(); ++k) {
    const Series& s = series_[k];
    SpectrumResult& r = results_[k];
    if (s.t.size() < 4) continue;
    r.from = s.t.front();
    r.to = s.t.back();
    r.spectrum = amplitude_spectrum(s.t, s.v, r.from, r.to);
    r.peaks = dominant_frequencies(r.spectrum, requests_[k].peaks);
    r.found = true;
  }
}

std::string SpectrumSummary::table() const {
  if (results_.empty()) return {};
  std::size_t width = 8;
  for (const SpectrumResult& r : results_) width = std::max(width, r.request.label.size());
  std::string out = fmt::format("{:<{}}  {:<19}  {:>10}  dominant frequencies [Hz] (amplitude)\n",
                                "spectrum", width, "window [s]", "resolution");
  for (const SpectrumResult& r : results_) {
    if (!r.found) {
      out += fmt::format("{:<{}}  fewer than four samples in the window {:g} .. {:g} s\n",
                         r.request.label, width, r.request.from, r.request.to);
      continue;
    }
    std::string peaks;
    for (const SpectralPeak& p : r.peaks)
      peaks += fmt::format("{}{:.6g} ({:.4g} {})", peaks.empty() ? "" : ", ", p.frequency,
                           p.amplitude, r.unit);
    if (peaks.empty()) peaks = "none (the channel is constant in the window)";
    out += fmt::format("{:<{}}  {:<19}  {:>7.4g} Hz  {}\n", r.request.label, width,
                       fmt::format("{:g} .. {:g}", r.from, r.to), r.spectrum.resolution, peaks);
  }
  return out;
}

}  // namespace ictus
