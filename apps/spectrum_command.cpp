#include "spectrum_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "exit_status.h"
#include "ictus/spectrum.h"
#include "run_manifest.h"

namespace ictus::cli {

namespace {

// bad input: printed as "error: ..." with exit status 2
struct SpectrumRefused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) out.push_back(cell);
  return out;
}

// the time column and the channel's column of a results.csv
void read_column(const std::filesystem::path& path, const std::string& channel,
                 std::vector<double>& t, std::vector<double>& v) {
  std::ifstream in(path);
  if (!in) throw SpectrumRefused(fmt::format("cannot read '{}'", path.string()));
  std::string line;
  if (!std::getline(in, line) || split(line).empty() || split(line)[0] != "t")
    throw SpectrumRefused(fmt::format(
        "'{}' is not a results.csv of ictus (its header must start with t)", path.string()));
  const std::vector<std::string> header = split(line);
  std::size_t column = 0;
  for (std::size_t k = 1; k < header.size(); ++k)
    if (header[k] == channel) column = k;
  if (column == 0) {
    std::string names;
    for (std::size_t k = 1; k < header.size() && k <= 12; ++k)
      names += (k > 1 ? ", " : "") + header[k];
    throw SpectrumRefused(fmt::format(
        "channel '{}' is not recorded in '{}' (its columns: {}{}); add it to simulate: outputs",
        channel, path.string(), names, header.size() > 13 ? ", ..." : ""));
  }
  int row = 1;
  while (std::getline(in, line)) {
    ++row;
    const std::vector<std::string> cells = split(line);
    if (cells.size() != header.size())
      throw SpectrumRefused(fmt::format("'{}':{}: {} cells, the header has {}", path.string(), row,
                                        cells.size(), header.size()));
    t.push_back(std::stod(cells[0]));
    v.push_back(std::stod(cells[column]));
  }
}

// A results file beside a run.json must be the one it lists: a file from
// another run copied in, or one edited since, is refused (docs/cli.md).
void check_against_manifest(const std::filesystem::path& path) {
  const std::filesystem::path directory = path.parent_path().empty() ? "." : path.parent_path();
  if (!std::filesystem::exists(directory / "run.json")) return;  // a CSV of the user's own
  ManifestListing listing;
  try {
    listing = read_manifest(directory);
  } catch (const std::runtime_error& e) {
    throw SpectrumRefused(e.what());
  }
  const std::string name = path.filename().string();
  const auto listed = std::find_if(listing.files.begin(), listing.files.end(),
                                   [&](const ManifestFile& f) { return f.name == name; });
  if (listed == listing.files.end())
    throw SpectrumRefused(fmt::format(
        "'{}' is not in the run.json beside it: it is not a file of that run", path.string()));
  const std::uintmax_t bytes = std::filesystem::file_size(path);
  if (bytes != listed->bytes)
    throw SpectrumRefused(fmt::format(
        "'{}' is {} bytes, the run.json beside it lists {}: it is not the file that run wrote",
        path.string(), bytes, listed->bytes));
}

}  // namespace

int command_spectrum(const SpectrumOptions& o) {
  try {
    std::filesystem::path path = o.results;
    if (std::filesystem::is_directory(path)) path /= "results.csv";
    check_against_manifest(path);
    std::vector<double> t, v;
    read_column(path, o.channel, t, v);
    if (t.size() < 4)
      throw SpectrumRefused(fmt::format("'{}' holds fewer than four samples", path.string()));
    const double from = std::max(o.from, t.front()), to = std::min(o.to, t.back());
    if (!(from < to))
      throw SpectrumRefused(
          fmt::format("the window {:g} .. {:g} s lies outside the results "
                      "({:g} .. {:g} s)",
                      o.from, o.to, t.front(), t.back()));
    if (o.lowest > 0.0 && to - from < 2.0 / o.lowest)
      throw SpectrumRefused(fmt::format(
          "the window {:g} .. {:g} s ({:g} s) is shorter than two periods of the lowest "
          "requested frequency, --lowest {:g} Hz (2 / {:g} Hz = {:g} s); give a longer window or "
          "a higher --lowest",
          from, to, to - from, o.lowest, o.lowest, 2.0 / o.lowest));
    Spectrum s;
    try {
      s = amplitude_spectrum(t, v, from, to);
    } catch (const std::invalid_argument& e) {
      throw SpectrumRefused(fmt::format("the window {:g} .. {:g} s: {}", from, to, e.what()));
    }
    const std::filesystem::path out =
        o.out.empty() ? path.parent_path() / fmt::format("spectrum_{}.csv", o.channel)
                      : std::filesystem::path(o.out);
    // written whole: a temporary file renamed into place
    const std::filesystem::path partial = out.string() + ".partial";
    {
      std::ofstream file(partial);
      file << "frequency,amplitude\n";
      for (std::size_t k = 0; k < s.frequency.size(); ++k)
        file << fmt::format("{},{}\n", s.frequency[k], s.amplitude[k]);
      file.close();
      if (!file) {
        std::error_code ec;
        std::filesystem::remove(partial, ec);
        throw std::runtime_error(fmt::format("cannot write '{}'", out.string()));
      }
    }
    std::filesystem::rename(partial, out);
    // a file written into a run's directory joins its manifest
    const std::filesystem::path run = path.parent_path().empty() ? "." : path.parent_path();
    const std::filesystem::path out_dir = out.parent_path().empty() ? "." : out.parent_path();
    if (std::filesystem::exists(run / "run.json") && std::filesystem::equivalent(run, out_dir))
      record_derived_file(run, out.filename().string(),
                          fmt::format("spectrum {} --from {:g} --to {:g}", o.channel, from, to));
    fmt::print("spectrum of {} over {:g} .. {:g} s ({} points, resolution {:.6g} Hz): {}\n",
               o.channel, from, to, s.samples, s.resolution, out.string());
    std::string line = "dominant frequencies:";
    for (const SpectralPeak& p : dominant_frequencies(s, o.peaks))
      line += fmt::format(" {:.6g} Hz ({:.4g})", p.frequency, p.amplitude);
    fmt::print("{}\n", line);
    return kExitOk;
  } catch (const SpectrumRefused& e) {
    std::fflush(stdout);
    fmt::print(stderr, "error: {}\n", e.what());
    return kExitRefused;
  }
}

}  // namespace ictus::cli
