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

/// Checks that every summary peak (model file `summary: peaks:`) names a
/// channel of `system`; throws ModelError at the entry otherwise.
void check_summary_peaks(const System& system, const std::vector<SummaryPeak>& peaks);

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

/// A summary peak (SummaryPeak) as measured: the signed value of the largest
/// |value| over the samples in its window, refined by the parabola through
/// the neighbouring samples where these are equally spaced (not at an event,
/// where a sample just before it is a one-sided limit and stands as it is).
struct PeakResult {
  SummaryPeak peak;
  std::string unit;
  bool found = false;  ///< false if no sample fell in the window
  double value = 0.0;
  double t = 0.0;
  double sampled = 0.0;  ///< the largest |value| sample itself
  double t_sampled = 0.0;
};

/// Collects extrema (with the times they occur) of chosen channels, windowed
/// peaks (`summary: peaks:`) and the energy balance error, and formats them
/// as tables.
class Summary : public Observer {
 public:
  explicit Summary(std::vector<std::string> channels, std::vector<SummaryPeak> peaks = {});
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
  /// The peaks with their values (refined on the last call of on_sample).
  std::vector<PeakResult> peaks() const;
  /// A text table of the peaks (label, value, time, window); empty if none.
  std::string peak_table() const;

 private:
  struct PeakState {
    int index = -1;
    PeakResult result;
    double t_prev = 0.0, v_prev = 0.0;  // the sample before the best
    double t_next = 0.0, v_next = 0.0;  // ... and after it
    bool has_prev = false, has_next = false, awaiting_next = false;
    double t_last = 0.0, v_last = 0.0;  // the latest sample in the window
    bool has_last = false;
  };
  std::vector<PeakState> peaks_;
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
