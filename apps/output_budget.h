// The size a run's results.csv will take, known before the run starts from
// its rows and columns, and the check that refuses a run whose output would
// not fit on the disk or exceeds the limit (--max-output; docs/cli.md).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "ictus/model.h"

namespace ictus::cli {

/// The limit when --max-output is not given [bytes].
inline constexpr double kDefaultMaxOutput = 1e9;
/// Bytes one value takes in results.csv with its separator: shortest
/// round-trip decimals; measured over the bundled examples and test models,
/// 5 to 18 per value, 13 to 16 for most.
inline constexpr double kBytesPerValue = 16.0;

struct OutputEstimate {
  double rows = 0.0;  ///< samples of the output grid (each event adds two more)
  std::size_t columns = 0;
  double bytes = 0.0;
};

OutputEstimate estimate_output(const SimulationSettings& settings, std::size_t channels);

/// "500M", "2G", "1.5T", "800k", "123" (bytes; SI: 1G = 10^9 bytes) to bytes;
/// throws ModelError at --max-output otherwise.
double parse_size(const std::string& text);
/// "1.31 GB", "512 kB"
std::string size_text(double bytes);

/// Throws OutputRefused when the estimate exceeds `limit` or the space free
/// for `directory` (the nearest existing ancestor is asked), naming the size,
/// the free space and --max-output.
void check_output_budget(const OutputEstimate& estimate, const std::filesystem::path& directory,
                         double limit);

}  // namespace ictus::cli
