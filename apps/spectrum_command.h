// `ictus spectrum RESULTS CHANNEL`: the amplitude spectrum of a channel of a
// results.csv over a window (docs/cli.md).
#pragma once

#include <limits>
#include <string>

namespace ictus::cli {

struct SpectrumOptions {
  std::string results;  ///< results.csv, or the run directory holding it
  std::string channel;
  double from = -std::numeric_limits<double>::infinity();
  double to = std::numeric_limits<double>::infinity();
  double lowest = 0.0;  ///< [Hz]: the window must hold two periods of it (0: no check)
  int peaks = 5;
  std::string out;  ///< the CSV written (default: spectrum_<channel>.csv beside RESULTS)
};

/// Writes the spectrum and prints its dominant frequencies; returns the exit
/// status (2 for bad input, with its message on stderr).
int command_spectrum(const SpectrumOptions& options);

}  // namespace ictus::cli
