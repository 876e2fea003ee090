// Observers that turn a run into results: a CSV file, an event log, a
// summary of extrema, an in-memory recording, a progress bar.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "ictus/simulation.h"

namespace ictus {

/// Resolves output requests (exact names or patterns with '*') against the
/// channels of `system`; with no requests, returns the default selection
/// (docs/channels.md). Throws ModelError for a request that matches nothing.
std::vector<std::string> select_channels(const System& system,
                                         const std::vector<OutputRequest>& requests);

/// Records samples of chosen channels in memory.
class Recorder : public Observer {
 public:
  explicit Recorder(std::vector<std::string> channels);
  void on_start(System& system, double t0, double t_end) override;
  void on_sample(double t, System& system) override;

  const std::vector<std::string>& channels() const { return names_; }
  const std::vector<double>& times() const { return times_; }
  /// Samples of channel `name` (throws std::out_of_range if not recorded).
  const std::vector<double>& series(const std::string& name) const;
  std::size_t size() const { return times_.size(); }

 private:
  std::vector<std::string> names_;
  std::vector<int> indices_;
  std::vector<double> times_;
  std::vector<std::vector<double>> values_;
};

/// Writes DIR/results.csv: a header "t,<channel>,..." and one row per sample.
/// The file is written under a temporary name and renamed when the run
/// completes; a failed run leaves results.incomplete.csv instead, and never a
/// results.csv.
class CsvWriter : public Observer {
 public:
  CsvWriter(std::filesystem::path directory, std::vector<std::string> channels);
  ~CsvWriter() override;
  void on_start(System& system, double t0, double t_end) override;
  void on_sample(double t, System& system) override;
  void on_finish(double t, bool completed) override;
  std::filesystem::path final_path() const { return directory_ / "results.csv"; }

 private:
  void flush();
  std::filesystem::path directory_;
  std::vector<std::string> names_;
  std::vector<int> indices_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
};

/// Writes DIR/events.csv (time, kind, name, detail) at the end of the run,
/// whether it completed or failed.
class EventLogWriter : public Observer {
 public:
  explicit EventLogWriter(std::filesystem::path directory);
  void on_event(const EventRecord& record) override;
  void on_finish(double t, bool completed) override;

 private:
  std::filesystem::path directory_;
  std::vector<EventRecord> records_;
};

/// Extremum of one channel over the samples.
struct ChannelExtrema {
  std::string name;
  std::string unit;
  double min = 0.0;
  double t_min = 0.0;
  double max = 0.0;
  double t_max = 0.0;
  double final = 0.0;
};

/// Collects extrema (with the times they occur) of chosen channels and the
/// energy balance error, and formats them as a table.
class Summary : public Observer {
 public:
  explicit Summary(std::vector<std::string> channels);
  void on_start(System& system, double t0, double t_end) override;
  void on_sample(double t, System& system) override;
  void on_event(const EventRecord& record) override;

  const std::vector<ChannelExtrema>& extrema() const { return extrema_; }
  /// max |energy.balance| over the samples [J].
  double energy_balance_error() const { return balance_error_; }
  /// The same relative to the largest kinetic + |potential| energy seen.
  double relative_energy_balance_error() const;
  int event_count() const { return events_; }
  /// A text table, one line per channel.
  std::string table() const;

 private:
  std::vector<std::string> names_;
  std::vector<int> indices_;
  std::vector<ChannelExtrema> extrema_;
  int balance_ = -1, kinetic_ = -1, potential_ = -1;
  double balance_error_ = 0.0;
  double energy_scale_ = 0.0;
  bool first_ = true;
  int events_ = 0;
};

/// A progress bar on a terminal stream, shown once a run has taken more
/// than `delay` seconds, refreshed at most ten times a second.
class ProgressBar : public Observer {
 public:
  explicit ProgressBar(std::FILE* stream = stderr, double delay = 1.5);
  void on_start(System& system, double t0, double t_end) override;
  void on_sample(double t, System& system) override;
  void on_finish(double t, bool completed) override;

 private:
  std::FILE* stream_;
  double delay_;
  double t0_ = 0.0, t_end_ = 1.0;
  double started_ = 0.0, last_draw_ = 0.0;
  bool drawn_ = false;
};

}  // namespace ictus
