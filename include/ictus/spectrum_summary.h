// The spectrum lines of the run summary (model file `summary: spectra:`,
// issue 17): the dominant frequencies of chosen channels over their windows,
// from the samples of the run (docs/model-file.md#summary).
#pragma once

#include <string>
#include <vector>

#include "ictus/simulation.h"
#include "ictus/spectrum.h"

namespace ictus {

/// Checks every spectrum request against the System and the run's span:
/// the channel exists, the window meets the run, and the part of it inside
/// the run holds two periods of `lowest` (when given). Throws ModelError at
/// the entry otherwise.
void check_summary_spectra(const System& system, const std::vector<SummarySpectrum>& spectra);

/// A spectrum request as measured.
struct SpectrumResult {
  SummarySpectrum request;
  std::string unit;                 ///< of the channel
  double from = 0.0, to = 0.0;      ///< the window actually covered by samples
  bool found = false;               ///< false: fewer than four samples in the window
  Spectrum spectrum;                ///< the amplitude spectrum (empty if !found)
  std::vector<SpectralPeak> peaks;  ///< the dominant frequencies, largest first
};

/// Records the samples of the requested channels inside their windows and
/// computes their spectra at the end of the run. Its memory grows with the
/// number of samples in the windows (one time and one value per sample).
class SpectrumSummary : public Observer {
 public:
  explicit SpectrumSummary(std::vector<SummarySpectrum> spectra);
  void on_start(System& system, double t0, double t_end) override;
  void on_sample(double t, System& system) override;
  void on_finish(double t, bool completed) override;

  const std::vector<SpectrumResult>& results() const { return results_; }
  /// A text table, one line per request; empty if there is none.
  std::string table() const;

 private:
  struct Series {
    int index = -1;
    std::vector<double> t, v;
  };
  std::vector<SummarySpectrum> requests_;
  std::vector<Series> series_;
  std::vector<SpectrumResult> results_;
};

}  // namespace ictus
