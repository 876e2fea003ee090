#include "report_command.h"

#include <fmt/format.h>

#include <filesystem>

#include "../exit_status.h"
#include "../run_manifest.h"
#include "ictus/model_file.h"
#include "ictus/system.h"
#include "report_assets.h"
#include "report_page.h"

namespace ictus::cli {

namespace fs = std::filesystem;

int command_report(const ReportOptions& o) {
  if (!report_available()) {
    fmt::print(stderr, "error: {}\n", report_unavailable_message());
    return kExitRefused;
  }
  const fs::path dir = o.directory;
  const fs::path manifest_path = dir / "run.json";
  if (!fs::is_directory(dir) || !fs::exists(manifest_path)) {
    fmt::print(stderr,
               "error: '{}' is not the output directory of an ictus run (it has no run.json)\n",
               dir.string());
    return kExitRefused;
  }
  ManifestListing manifest;
  try {
    manifest = read_manifest(dir);
  } catch (const std::runtime_error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return kExitRefused;
  }
  // the model file and the --set values of the run
  const std::string& model_file = manifest.model_file;
  const ParameterOverrides sets(manifest.parameters_set.begin(), manifest.parameters_set.end());
  if (model_file.empty() || !fs::exists(model_file)) {
    fmt::print(stderr,
               "error: the model file of the run, '{}' (run.json), is needed for the bodies' "
               "geometry and the channels' units, and it is not there\n",
               model_file);
    return kExitRefused;
  }
  try {
    if (!manifest.model_sha256.empty() && manifest.model_sha256 != sha256_of_file(model_file))
      fmt::print(stderr,
                 "warning: the model file '{}' has changed since the run; the report draws the "
                 "bodies as it describes them now\n",
                 model_file);
  } catch (const std::exception&) {  // the check is a courtesy; the report goes on
  }
  const Model model = load_model(model_file, sets);
  const System system(model);
  ReportSources sources;
  sources.model = &model;
  sources.system = &system;
  sources.manifest_json = manifest.text;
  try {
    write_report(dir, sources);
    // the page joins the set's manifest, which still lists every file
    record_derived_file(dir, "report.html", "report");
  } catch (const std::runtime_error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return kExitOther;
  }
  fmt::print("report: {}\n", (dir / "report.html").string());
  return kExitOk;
}

}  // namespace ictus::cli
