// Observers that turn a run into results: a CSV file, an event log, a
// summary of extrema, an in-memory recording, a progress bar.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ictus/located_extrema.h"
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

/// What every summary entry (`what`: "peak", "spectrum") must satisfy: its
/// channel is one of `system`'s and its window [from, to] meets the run;
/// ModelError at `where` otherwise.
void check_summary_entry(const System& system, std::string_view what, const std::string& label,
                         const std::string& channel, double from, double to,
                         const SourceLocation& where);

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
/// results.csv. A write that fails (a full disk, a file size limit) throws
/// std::runtime_error naming the file and the cause, which ends the run.
class CsvWriter : public Observer {
 public:
  /// Writes DIR/<stem>.csv (`results` by default; `poses` for the report's
  /// body poses), through <stem>.csv.partial, or <stem>.incomplete.csv.
  CsvWriter(std::filesystem::path directory, std::vector<std::string> channels,
            std::string stem = "results");
  ~CsvWriter() override;
  void on_start(System& system, double t0, double t_end) override;
  void on_sample(double t, System& system) override;
  void on_finish(double t, bool completed) override;
  std::filesystem::path final_path() const { return directory_ / (stem_ + ".csv"); }
  /// Writes only every k-th sample, plus the last one and both samples of
  /// each event (a time written twice); k = 1 (the default) writes all.
  void set_stride(std::size_t k) { stride_ = k < 1 ? 1 : k; }

 private:
  void flush();
  std::filesystem::path partial_path() const { return directory_ / (stem_ + ".csv.partial"); }
  std::filesystem::path directory_;
  std::string stem_;
  std::size_t stride_ = 1;
  std::size_t count_ = 0;  // samples seen
  double last_t_ = 0.0;
  std::string held_;  // the last sample, when it was not written
  std::vector<std::string> names_;
  std::vector<int> indices_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
};

/// Writes DIR/events.csv (time, kind, name, detail): each record as it
/// happens into events.csv.partial, which is renamed at the end of the run,
/// whether it completed or failed, after a last line "end" or "incomplete".
/// Holds no record in memory, however many events the run has.
class EventLogWriter : public Observer {
 public:
  explicit EventLogWriter(std::filesystem::path directory);
  ~EventLogWriter() override;
  void on_event(const EventRecord& record) override;
  void on_finish(double t, bool completed) override;

 private:
  void open();
  void write(const EventRecord& record);
  std::filesystem::path directory_;
  std::FILE* file_ = nullptr;
  std::string line_;
  bool failed_ = false;  // a write failed: the error has been reported once
};

/// Extrema of one channel over the run: located on the integrator's dense
/// output (LocatedExtremum) where the run gave its steps, else the samples'.
struct ChannelExtrema {
  std::string name;
  std::string unit;
  double min = 0.0;
  double t_min = 0.0;
  double max = 0.0;
  double t_max = 0.0;
  double final = 0.0;
  LocatedExtremum low, high;  ///< the minimum and maximum with how they were found
};

/// A summary peak (SummaryPeak) as measured: the signed value of the largest
/// |value| (or the min or max) in its window, located on the dense output;
/// a run that gave no step in the window falls back to the samples, refined
/// by the parabola through the neighbouring samples where these are equally
/// spaced (not at an event, where a sample just before it is a one-sided
/// limit and stands as it is).
struct PeakResult {
  SummaryPeak peak;
  std::string unit;
  bool found = false;  ///< false if no sample fell in the window
  double value = 0.0;
  double t = 0.0;
  double sampled = 0.0;  ///< the largest |value| sample itself
  double t_sampled = 0.0;
  LocatedExtremum located;  ///< value and t as located (located.found: they come from it)
};

/// The energy audit of a run judged against a tolerance (docs/cli.md). Two
/// checks, each relative to the largest kinetic + |potential| energy of the
/// run (absolute if that is 0): the largest |energy.balance|, and the largest
/// fall of the dissipation (energy.dissipated less energy.switching: what
/// dampers, friction and impacts took, which never decreases) below its
/// running maximum since the first sample. The balance closes whatever
/// friction does, so only the second sees friction or a damper doing
/// positive work (a slip pushed along by its friction), an impact law that
/// gives energy, or a time-stepping scheme creating energy, whose own
/// dissipation the balance books.
struct EnergyAudit {
  double error = 0.0;      ///< max |energy.balance| [J]
  double relative = 0.0;   ///< ... relative to the energy scale (absolute if that is 0)
  double tolerance = 0.0;  ///< relative
  bool balance_passed = true;
  /// Where |energy.balance| first exceeded tolerance x scale: the sample
  /// interval in which it did when it jumped there within one interval, else
  /// the bracket from the last sample where its running maximum was recorded
  /// below that level (recorded at each growth by 1.25 times) to the sample
  /// before the one that first exceeded it. Meaningful if !balance_passed.
  double from = 0.0, to = 0.0;
  double fall = 0.0;           ///< the dissipation's largest fall [J]
  double fall_relative = 0.0;  ///< ... relative to the energy scale
  bool fall_passed = true;
  /// Where that fall first exceeded tolerance x scale, found as `from`, `to`.
  double fall_from = 0.0, fall_to = 0.0;
  bool passed = true;  ///< both checks passed
};

/// The warning of a failed audit: each check that failed, how far and where
/// it first did ("energy audit failed: the balance error ...").
std::string energy_audit_message(const EnergyAudit& audit);

namespace internal {

/// The running maximum of a quantity sampled over a run, with enough of its
/// history to say where it first exceeded a level known only at the end:
/// each sample at which the maximum grew by kRatio since the last one
/// recorded (at most log(DBL_MAX / DBL_TRUE_MIN) / log(kRatio) < kMaxRecords
/// of them, whatever the run's length), and its latest rise.
class RisingMaximum {
 public:
  struct Bracket {
    double from = 0.0, to = 0.0;
  };
  /// Forgets the run; reserves, so that add() never allocates.
  void reset();
  /// The sample `v` at `t` (a NaN is ignored).
  void add(double t, double v);
  double max() const { return max_; }
  /// Where the maximum first exceeded `level`: the sample interval in which
  /// it did when it jumped there within one, else the bracket from the last
  /// recorded sample below that level to the sample before the first one
  /// above it. {0, 0} if it never did.
  Bracket first_above(double level) const;

 private:
  static constexpr double kRatio = 1.25;
  static constexpr std::size_t kMaxRecords = 6600;
  struct Rise {
    double t_before, t;    // the sample before and this sample
    double max_before, v;  // the running maximum before, the new value
  };
  std::vector<Rise> rises_;
  Rise last_rise_{};  // the latest rise of the maximum
  double max_ = 0.0;
  double t_last_ = 0.0;
  bool first_ = true;
};

}  // namespace internal

/// Collects extrema (with the times they occur) of chosen channels, windowed
/// peaks (`summary: peaks:`), the energy balance error and the warnings of
/// the log, and formats them as tables. Its memory does not grow with the
/// number of samples or events.
class Summary : public Observer {
 public:
  explicit Summary(std::vector<std::string> channels, std::vector<SummaryPeak> peaks = {});
  void on_start(System& system, double t0, double t_end) override;
  void on_sample(double t, System& system) override;
  void on_event(const EventRecord& record) override;
  void on_piece(double t0, double t1, bool after_event, bool at_event,
                DenseMotion& motion) override;

  const std::vector<ChannelExtrema>& extrema() const { return extrema_; }
  /// max |energy.balance| over the samples [J].
  double energy_balance_error() const { return balance_error_.max(); }
  /// The largest fall of the dissipation (less switching) below its
  /// running maximum [J] (EnergyAudit).
  double dissipation_fall() const { return fall_.max(); }
  /// The same relative to the largest kinetic + |potential| energy seen.
  double relative_energy_balance_error() const;
  /// The audit judged against `tolerance` (relative).
  EnergyAudit energy_audit(double tolerance) const;
  int event_count() const { return events_; }
  /// The distinct warnings of the log, the first kMaxWarnings of them.
  static constexpr std::size_t kMaxWarnings = 20;
  const std::vector<std::string>& warnings() const { return warnings_; }
  /// Every warning record, repeated ones included.
  long warning_count() const { return warning_count_; }
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
    std::vector<int> channel;        // {index}, for probe()
    Stage stage = Stage::kDynamics;  // as far as the channel needs evaluating
    PieceEnds ends;                  // of the window's part of the latest piece
    LocatedExtremum low, high;       // located on the dense output
  };
  PieceEnds ends_;               // of the latest piece, for every channel of the table
  std::vector<char> locatable_;  // per channel of the table: a function of the motion
  std::vector<Stage> stages_;    // per channel of the table: the stage it needs
  Stage probe_stage_ = Stage::kDynamics;
  std::vector<PeakState> peaks_;
  std::vector<std::string> names_;
  std::vector<int> indices_;
  std::vector<ChannelExtrema> extrema_;
  int balance_ = -1, kinetic_ = -1, potential_ = -1;
  int dissipated_ = -1, switching_ = -1;
  internal::RisingMaximum balance_error_;  // of |energy.balance|
  internal::RisingMaximum fall_;           // of the dissipation below its running maximum
  double dissipation_peak_ = 0.0;          // that running maximum
  double energy_scale_ = 0.0;
  int events_ = 0;
  std::vector<std::string> warnings_;
  long warning_count_ = 0;
};

/// A progress bar on a terminal stream, shown once a run has taken more
/// than `delay` seconds, refreshed at most ten times a second (after steps
/// and samples: a run creeping with tiny steps still moves it), with the
/// simulated time and the wall time left at the mean rate so far.
class ProgressBar : public Observer {
 public:
  explicit ProgressBar(std::FILE* stream = stderr, double delay = 1.5);
  void on_start(System& system, double t0, double t_end) override;
  void on_sample(double t, System& system) override;
  void on_step(double t0, double t1) override;
  void on_finish(double t, bool completed) override;
  /// Clears the bar's line (before another message on the same stream).
  void clear();

 private:
  void draw(double t);
  std::FILE* stream_;
  double delay_;
  double t0_ = 0.0, t_end_ = 1.0;
  double started_ = 0.0, last_draw_ = 0.0;
  bool drawn_ = false;
};

}  // namespace ictus
