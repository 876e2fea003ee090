// The output directory of a run as one set of files (docs/cli.md, "The
// output directory"). A run writes into a sibling staging directory
// DIR.partial-PID and, at the end, either
//   commits it: the set replaces DIR as a whole (an atomic exchange of the
//     two directories where the file system offers it, else rename the old
//     set aside, the new one in, and remove the old), or
//   abandons it: it becomes DIR.incomplete (replacing an earlier incomplete
//     set), and DIR keeps the previous run's files untouched.
// A lock on DIR.lock keeps a second run from writing the same DIR meanwhile.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace ictus::cli {

/// A run refused before it starts (exit status 2): the directory is locked
/// by another run or holds files that are not an ictus run's.
class OutputRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class OutputDirectory {
 public:
  /// The file names a run's set may hold (run.json, results.csv, events.csv,
  /// results.incomplete.csv, with --report poses.csv, poses.incomplete.csv and
  /// report.html, and the writers' *.partial names).
  static bool is_run_file(const std::string& name);

  /// Takes the lock, removes what dead runs left beside DIR, and creates the
  /// staging directory. Throws OutputRefused or std::runtime_error (I/O).
  explicit OutputDirectory(const std::filesystem::path& target);
  /// Removes the staging directory if neither commit() nor abandon() ran,
  /// and releases the lock.
  ~OutputDirectory();
  OutputDirectory(const OutputDirectory&) = delete;
  OutputDirectory& operator=(const OutputDirectory&) = delete;

  const std::filesystem::path& target() const { return target_; }
  const std::filesystem::path& staging() const { return staging_; }
  /// DIR.incomplete: where an abandoned set goes.
  std::filesystem::path incomplete() const;

  /// The staging set replaces DIR; a stale DIR.incomplete is removed.
  void commit();
  /// The staging set becomes DIR.incomplete; DIR is not touched.
  void abandon();
  /// The staging set is removed (a run that wrote nothing worth keeping).
  void discard();

 private:
  std::filesystem::path sibling(const std::string& suffix) const;
  /// Under the lock: DIR must be a run's (or absent, or empty); what dead
  /// runs left beside it goes; the staging directory is made.
  void check_and_stage();
  /// Refuses (OutputRefused) a non-empty DIR unless its run.json lists
  /// exactly the files beside it, with their sizes.
  void refuse_unless_one_set() const;
  void release_lock();
  std::filesystem::path target_;
  std::filesystem::path staging_;
  std::filesystem::path lock_path_;
  int lock_fd_ = -1;
  bool done_ = false;
};

}  // namespace ictus::cli
