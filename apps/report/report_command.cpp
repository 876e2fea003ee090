#include "report_command.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>

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
  std::string manifest_text;
  {
    std::ifstream in(manifest_path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    manifest_text = buffer.str();
  }
  // run.json is JSON, which YAML reads: the model file and the --set values
  std::string model_file;
  ParameterOverrides sets;
  try {
    const YAML::Node manifest = YAML::Load(manifest_text);
    model_file = manifest["model"]["file"].as<std::string>();
    if (const YAML::Node p = manifest["parameters_set"]; p && p.IsMap())
      for (const auto& kv : p)
        sets.emplace_back(kv.first.as<std::string>(), kv.second.as<std::string>());
  } catch (const YAML::Exception& e) {
    fmt::print(stderr, "error: '{}' is not a run manifest of ictus: {}\n", manifest_path.string(),
               e.what());
    return kExitRefused;
  }
  if (!fs::exists(model_file)) {
    fmt::print(stderr,
               "error: the model file of the run, '{}' (run.json), is needed for the bodies' "
               "geometry and the channels' units, and it is not there\n",
               model_file);
    return kExitRefused;
  }
  try {
    const YAML::Node manifest = YAML::Load(manifest_text);
    if (manifest["model"]["sha256"] &&
        manifest["model"]["sha256"].as<std::string>() != sha256_of_file(model_file))
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
  sources.manifest_json = manifest_text;
  try {
    write_report(dir, sources);
  } catch (const std::runtime_error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return kExitOther;
  }
  fmt::print("report: {}\n", (dir / "report.html").string());
  return kExitOk;
}

}  // namespace ictus::cli
