// report.html (docs/report.md): one self-contained page beside results.csv
// with the time histories, the events, the energy audit, the extrema and a
// 3-D animation of the bodies. Built from the files of a run's set and the
// model (geometry, units); the front end is report_assets.h.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "ictus/model.h"
#include "ictus/observers.h"
#include "ictus/spectrum_summary.h"
#include "ictus/system.h"

namespace ictus::cli {

/// The pose channels of every body (b.x, b.y, b.z, b.qw, b.qx, b.qy, b.qz),
/// which `ictus run --report` writes to poses.csv.
std::vector<std::string> pose_channels(const Model& model);

struct ReportSources {
  const Model* model = nullptr;
  const System* system = nullptr;  ///< for the channels' units
  /// The run's summary (located extrema); null: the extrema of the samples.
  const std::vector<ChannelExtrema>* located = nullptr;
  /// The run's spectra (`summary: spectra:`), plotted; null or empty: none.
  const std::vector<SpectrumResult>* spectra = nullptr;
  std::string manifest_json;  ///< run.json as written
};

/// Sizes of what the page holds at most (decimation.h).
struct ReportLimits {
  std::size_t plot_points = 4000;         ///< points per plot, besides the event rows
  std::size_t animation_values = 100000;  ///< animation frames x bodies
};

/// Writes DIR/report.html from DIR's results.csv (or results.incomplete.csv),
/// poses.csv (or poses.incomplete.csv; else the pose channels of the results),
/// events.csv: whole, through report.html.partial renamed into place. Throws
/// std::runtime_error when a file is missing or malformed.
void write_report(const std::filesystem::path& directory, const ReportSources& sources,
                  const ReportLimits& limits = {});

}  // namespace ictus::cli
