// run.json: what an output directory holds and how it came to be (docs/cli.md,
// "The manifest"). Written last into the set, so it lists the files beside it;
// read back to refuse a directory whose files are not the set it lists.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "ictus/observers.h"

namespace ictus::cli {

/// A file of a set and its size in bytes, as run.json lists it.
struct ManifestFile {
  std::string name;
  std::uintmax_t bytes = 0;
  bool operator==(const ManifestFile&) const = default;
};

struct RunManifest {
  std::string ictus_version;
  std::string model_file;              ///< absolute path
  std::string model_sha256;            ///< of the file's bytes
  std::vector<std::string> arguments;  ///< the command line after the program name
  /// The settings the run used (start, until, output_step, integrator, ...).
  nlohmann::ordered_json settings = nlohmann::ordered_json::object();
  std::vector<std::pair<std::string, std::string>> parameters_set;  ///< --set name=value
  std::string started, ended;                                       ///< UTC, ISO 8601
  /// "completed", "audit_failed", "failed", "interrupted"
  std::string status;
  int exit_status = 0;
  std::string message;           ///< the error, or the audit's warning
  double simulated_until = 0.0;  ///< the time the run reached
  long steps = 0;
  long events = 0;
  EnergyAudit energy_audit;

  /// Writes DIR/run.json whole (a temporary file renamed), listing every
  /// other file of DIR with its size. Throws std::runtime_error on failure.
  void write(const std::filesystem::path& directory) const;
};

/// What DIR/run.json says of its set: the status, the model and the files
/// it lists.
struct ManifestListing {
  std::string status;
  std::vector<ManifestFile> files;  ///< the set's and the derived ones, sorted by name
  std::string model_file;           ///< as written (absolute)
  std::string model_sha256;
  std::vector<std::pair<std::string, std::string>> parameters_set;  ///< --set name=value
  std::string text;                                                 ///< run.json as read
};

/// Reads DIR/run.json. Throws std::runtime_error naming the file (and the
/// line and column of a syntax error) when it cannot be read or is not a
/// manifest.
ManifestListing read_manifest(const std::filesystem::path& directory);

/// Records in DIR/run.json a file that a later command derived from the set
/// and wrote into DIR (`ictus spectrum`: spectrum_<channel>.csv; `ictus
/// report`: report.html), under "derived" with its size and the command (or,
/// for a file of the set itself, its new size under "files"), so that the
/// manifest still lists every file beside it and a next run may replace the
/// directory. Rewrites run.json whole (a temporary file renamed).
void record_derived_file(const std::filesystem::path& directory, const std::string& name,
                         const std::string& command);

/// The regular files of DIR other than run.json, with their sizes, sorted.
std::vector<ManifestFile> files_beside_manifest(const std::filesystem::path& directory);

/// Where DIR's files differ from the listing ("results.csv is 120 bytes,
/// run.json lists 96", "events.csv is missing", "notes.txt is not listed"),
/// one item each; empty when DIR holds exactly the listed set.
std::vector<std::string> manifest_mismatches(const ManifestListing& listing,
                                             const std::vector<ManifestFile>& present);

/// `text` as a JSON string literal (quotes and escapes).
std::string json_string(const std::string& text);

/// SHA-256 of a file's bytes, as hex; throws std::runtime_error if unreadable.
std::string sha256_of_file(const std::filesystem::path& path);
/// The current time, UTC, ISO 8601 ("2026-11-24T12:05:00Z").
std::string utc_now();

}  // namespace ictus::cli
