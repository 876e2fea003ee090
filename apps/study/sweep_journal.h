// The journal of a sweep: OUT.journal holds the CSV header and a row per
// completed case, each written and flushed as the case ends, so that a sweep
// interrupted (a signal, a crash, a lost node) and started again skips the
// cases already done. The CSV itself is written whole at the end.
#pragma once

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "ictus/study.h"

namespace ictus::cli {

class SweepJournal {
 public:
  /// Opens OUT.journal, reading the rows of an earlier start. Throws
  /// std::runtime_error if it belongs to another study (other columns, or
  /// other parameter values for a case) or cannot be written.
  SweepJournal(const std::filesystem::path& output, const study::Study& study,
               const std::vector<study::Case>& cases);
  ~SweepJournal();
  SweepJournal(const SweepJournal&) = delete;
  SweepJournal& operator=(const SweepJournal&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// Rows of an earlier start, by case index.
  const std::map<int, study::CaseResult>& done() const { return done_; }
  /// Writes and flushes one row.
  void append(const study::CaseResult& result);
  /// Closes and removes the journal (the CSV has been written).
  void remove();

 private:
  std::filesystem::path path_;
  std::map<int, study::CaseResult> done_;
  std::FILE* file_ = nullptr;
};

/// Writes `text` to `path` whole: PATH.partial, then renamed over PATH.
void write_whole_file(const std::filesystem::path& path, const std::string& text);

}  // namespace ictus::cli
