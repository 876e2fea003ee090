// The CSV files of a run's set, read back for the report: results.csv and
// poses.csv (a header of channel names, then rows of numbers) and events.csv
// (time, kind, name, detail; quoted text cells).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ictus::cli {

/// A table of numbers by column: columns[0] is the time t.
struct NumberTable {
  std::vector<std::string> names;            ///< the header, "t" first
  std::vector<std::vector<double>> columns;  ///< one vector per name, all of one length
  std::size_t rows() const { return columns.empty() ? 0 : columns[0].size(); }
  /// The column of `name`, or -1.
  int find(const std::string& name) const;
};

/// Reads a results.csv-like file. Throws std::runtime_error with the file and
/// line for a malformed one.
NumberTable read_number_table(const std::filesystem::path& path);

struct EventLine {
  double t = 0.0;
  std::string kind, name, detail;
};

/// Reads events.csv (its header and its last line "end"/"incomplete"
/// included as they are).
std::vector<EventLine> read_event_lines(const std::filesystem::path& path);

}  // namespace ictus::cli
