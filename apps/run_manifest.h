// run.json: what an output directory holds and how it came to be (docs/cli.md,
// "The manifest"). Written last into the set, so it lists the files beside it.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ictus::cli {

struct RunManifest {
  std::string ictus_version;
  std::string model_file;              ///< absolute path
  std::string model_sha256;            ///< of the file's bytes
  std::vector<std::string> arguments;  ///< the command line after the program name
  /// The settings the run used (start, until, output_step, integrator, ...),
  /// as name and JSON value text.
  std::vector<std::pair<std::string, std::string>> settings;
  std::vector<std::pair<std::string, std::string>> parameters_set;  ///< --set name=value
  std::string started, ended;                                       ///< UTC, ISO 8601
  /// "completed", "audit_failed", "failed", "interrupted"
  std::string status;
  int exit_status = 0;
  std::string message;           ///< the error, or the audit's warning
  double simulated_until = 0.0;  ///< the time the run reached
  long steps = 0;
  long events = 0;
  struct Audit {
    double error = 0.0, relative = 0.0, tolerance = 0.0;
    bool passed = true;
    double from = 0.0, to = 0.0;
  } energy_audit;

  /// Writes DIR/run.json whole (a temporary file renamed), listing every
  /// other file of DIR with its size. Throws std::runtime_error on failure.
  void write(const std::filesystem::path& directory) const;
};

/// SHA-256 of a file's bytes, as hex; throws std::runtime_error if unreadable.
std::string sha256_of_file(const std::filesystem::path& path);
/// The current time, UTC, ISO 8601 ("2026-11-24T12:05:00Z").
std::string utc_now();
/// `text` as a JSON string literal.
std::string json_string(const std::string& text);

}  // namespace ictus::cli
