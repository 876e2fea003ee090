#include "output_budget.h"

#include <fmt/format.h>

#include <cmath>
#include <system_error>

#include "output_directory.h"

namespace ictus::cli {

namespace fs = std::filesystem;

OutputEstimate estimate_output(const SimulationSettings& s, std::size_t channels) {
  OutputEstimate e;
  e.rows = std::floor((s.until - s.start) / s.output_step * (1.0 + 1e-9)) + 1.0;
  e.columns = channels + 1;  // t
  e.bytes = e.rows * static_cast<double>(e.columns) * kBytesPerValue;
  return e;
}

double parse_size(const std::string& text) {
  std::size_t used = 0;
  double value = -1.0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
  double scale = 0.0;
  if (unit.empty()) scale = 1.0;
  if (unit == "k" || unit == "K") scale = 1e3;
  if (unit == "M") scale = 1e6;
  if (unit == "G") scale = 1e9;
  if (unit == "T") scale = 1e12;
  if (used == 0 || scale == 0.0 || !(value > 0.0) || !std::isfinite(value))
    throw ModelError({"--max-output", 0, 0}, "",
                     fmt::format("expected a size such as 500M, 20G or 1.5T (bytes, SI units), "
                                 "got '{}'",
                                 text));
  return value * scale;
}

std::string size_text(double bytes) {
  if (bytes >= 1e12) return fmt::format("{:.3g} TB", bytes / 1e12);
  if (bytes >= 1e9) return fmt::format("{:.3g} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.3g} MB", bytes / 1e6);
  if (bytes >= 1e3) return fmt::format("{:.3g} kB", bytes / 1e3);
  return fmt::format("{:.0f} bytes", bytes);
}

void check_output_budget(const OutputEstimate& e, const fs::path& directory, double limit) {
  fs::path probe = fs::absolute(directory);
  while (!fs::exists(probe) && probe.has_parent_path() && probe != probe.parent_path())
    probe = probe.parent_path();
  std::error_code ec;
  const fs::space_info space = fs::space(probe, ec);
  const double free = ec ? INFINITY : static_cast<double>(space.available);
  const std::string what = fmt::format("the results would take about {} ({:.4g} rows x {} columns)",
                                       size_text(e.bytes), e.rows, e.columns);
  if (e.bytes > free)
    throw OutputRefused(fmt::format(
        "{}, more than the {} free on the disk of '{}'; write fewer outputs (simulate: outputs), "
        "a larger output_step or a shorter run, or give another --out",
        what, size_text(free), probe.string()));
  if (e.bytes > limit)
    throw OutputRefused(fmt::format(
        "{}, more than the limit of {} ({} free on the disk of '{}'); give --max-output SIZE "
        "(e.g. --max-output {:.0f}G) to allow it, or write fewer outputs, a larger output_step "
        "or a shorter run",
        what, size_text(limit), size_text(free), probe.string(), std::ceil(e.bytes / 1e9)));
}

}  // namespace ictus::cli
