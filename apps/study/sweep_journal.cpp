#include "sweep_journal.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace ictus::cli {

namespace fs = std::filesystem;

SweepJournal::SweepJournal(const fs::path& output, const study::Study& study,
                           const std::vector<study::Case>& cases)
    : path_(output.string() + ".journal") {
  const std::string header = study::csv_header(study);
  bool fresh = true;
  if (fs::exists(path_)) {
    std::ifstream in(path_);
    std::string line;
    std::getline(in, line);
    if (line + "\n" != header)
      throw std::runtime_error(fmt::format(
          "{} is the journal of another study (its columns are '{}', this study's '{}'); remove "
          "it to start afresh, or give another output",
          path_.string(), line, header.substr(0, header.size() - 1)));
    fresh = false;
    while (std::getline(in, line)) {
      // a torn last line (the process ended while writing it) is run again
      const std::optional<study::CaseResult> row =
          study::parse_csv_row(line, study.parameters.size(), study.metrics.size());
      if (!row) continue;
      if (row->index < 0 || static_cast<std::size_t>(row->index) >= cases.size() ||
          row->parameters != cases[static_cast<std::size_t>(row->index)].values)
        throw std::runtime_error(fmt::format(
            "{}: case {} was run with other parameter values than the study gives now; remove "
            "the journal to start afresh",
            path_.string(), row->index));
      done_[row->index] = *row;
    }
  }
  if (!output.parent_path().empty()) fs::create_directories(output.parent_path());
  file_ = std::fopen(path_.c_str(), fresh ? "w" : "a");
  if (file_ == nullptr)
    throw std::runtime_error(
        fmt::format("cannot write {}: {}", path_.string(), std::strerror(errno)));
  if (fresh) {
    std::fputs(header.c_str(), file_);
    std::fflush(file_);
  } else {
    // a torn last line is ended, so that the next row starts a line of its own
    std::fputs("\n", file_);
    std::fflush(file_);
  }
}

SweepJournal::~SweepJournal() {
  if (file_ != nullptr) std::fclose(file_);
}

void SweepJournal::append(const study::CaseResult& result) {
  const std::string row = study::csv_row(result);
  if (std::fputs(row.c_str(), file_) < 0 || std::fflush(file_) != 0)
    throw std::runtime_error(
        fmt::format("cannot write {}: {}", path_.string(), std::strerror(errno)));
}

void SweepJournal::remove() {
  if (file_ != nullptr) std::fclose(file_);
  file_ = nullptr;
  fs::remove(path_);
}

void write_whole_file(const fs::path& path, const std::string& text) {
  if (!path.parent_path().empty()) fs::create_directories(path.parent_path());
  const fs::path partial = path.string() + ".partial";
  {
    std::ofstream f(partial, std::ios::binary);
    f << text;
    f.flush();
    if (!f) throw std::runtime_error(fmt::format("cannot write {}", partial.string()));
  }
  fs::rename(partial, path);
}

}  // namespace ictus::cli
