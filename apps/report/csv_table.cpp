#include "csv_table.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ictus::cli {

namespace fs = std::filesystem;

namespace {

// The cells of one CSV record: quoted cells may hold commas, doubled quotes
// and line breaks (then the record goes on over the next lines of `in`).
bool read_record(std::istream& in, std::vector<std::string>& cells) {
  cells.clear();
  std::string line;
  if (!std::getline(in, line)) return false;
  std::string cell;
  bool quoted = false;
  for (;;) {
    for (std::size_t k = 0; k < line.size(); ++k) {
      const char c = line[k];
      if (quoted) {
        if (c == '"' && k + 1 < line.size() && line[k + 1] == '"') {
          cell += '"';
          ++k;
        } else if (c == '"') {
          quoted = false;
        } else {
          cell += c;
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        cells.push_back(cell);
        cell.clear();
      } else {
        cell += c;
      }
    }
    if (!quoted || !std::getline(in, line)) break;
    cell += '\n';
  }
  cells.push_back(cell);
  return true;
}

double parse_number(const std::string& text, const fs::path& path, long row) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE)
    throw std::runtime_error(fmt::format("{}:{}: '{}' is not a number", path.string(), row, text));
  return v;
}

}  // namespace

int NumberTable::find(const std::string& name) const {
  for (std::size_t k = 0; k < names.size(); ++k)
    if (names[k] == name) return static_cast<int>(k);
  return -1;
}

NumberTable read_number_table(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("cannot read '{}'", path.string()));
  NumberTable table;
  std::vector<std::string> cells;
  if (!read_record(in, table.names) || table.names.empty() || table.names[0] != "t")
    throw std::runtime_error(fmt::format(
        "'{}' is not a results file of ictus (its header must start with t)", path.string()));
  table.columns.resize(table.names.size());
  long row = 1;
  while (read_record(in, cells)) {
    ++row;
    if (cells.size() == 1 && cells[0].empty()) continue;
    if (cells.size() != table.names.size())
      throw std::runtime_error(fmt::format("{}:{}: {} cells, the header has {}", path.string(), row,
                                           cells.size(), table.names.size()));
    for (std::size_t k = 0; k < cells.size(); ++k)
      table.columns[k].push_back(parse_number(cells[k], path, row));
  }
  return table;
}

std::vector<EventLine> read_event_lines(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("cannot read '{}'", path.string()));
  std::vector<EventLine> lines;
  std::vector<std::string> cells;
  long row = 0;
  while (read_record(in, cells)) {
    ++row;
    if (row == 1 && !cells.empty() && cells[0] == "time") continue;  // the header
    if (cells.size() == 1 && cells[0].empty()) continue;
    if (cells.size() != 4)
      throw std::runtime_error(fmt::format("{}:{}: {} cells, expected time,kind,name,detail",
                                           path.string(), row, cells.size()));
    lines.push_back({parse_number(cells[0], path, row), cells[1], cells[2], cells[3]});
  }
  return lines;
}

}  // namespace ictus::cli
