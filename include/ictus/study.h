// Parameter studies (issue 11): a study file names a model, parameters with
// lists or ranges, and metrics of each case; `run_cases` runs the cases on a
// thread pool and `optimize_study` minimises a metric under constraints on
// others (NLopt). docs/studies.md describes the file; the command line
// (`ictus sweep`, `ictus optimize`, MPI) is in apps/.
//
//   Study study = load_study("mount.study.yaml");      // throws ModelError (file:line:column)
//   StudyRunner runner(study);                         // reads and checks the model once
//   std::vector<CaseResult> rows = run_cases(runner, study_cases(study), {});
//   std::string csv = csv_header(study) + csv_row(rows[0]) + ...;
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ictus/error.h"
#include "ictus/model.h"
#include "ictus/model_file.h"

namespace ictus::study {

/// A parameter of the model varied by the study: a list of values, or a
/// range [low, high] (`count` equally spaced values in a grid, or sampled).
struct StudyParameter {
  std::string name;
  std::vector<double> values;  ///< the list, or the grid values of a range
  bool is_range = false;
  double low = 0.0, high = 0.0;
  int count = 0;  ///< grid points of a range (0: the range is for sampling only)
  SourceLocation where;
};

enum class Sampling {
  kGrid,            ///< every combination of the parameters' values
  kLatinHypercube,  ///< `samples` points, one per stratum of each range
  kRandom,          ///< `samples` uniform points in the ranges
};

/// What is measured in each case (one CSV column).
struct Metric {
  enum class Kind {
    kExtremum,    ///< max, min or the signed largest |value| of a channel, in a window
    kAtEvent,     ///< a channel's value at the first firing of a named event
    kEventTime,   ///< the time of the first firing of a named event
    kFinal,       ///< a channel's value at the end of the run
    kEnergyLost,  ///< energy.dissipated at the end: dampers, friction, impacts, switching
  };
  /// At a jump of the channel (an event), which value an extremum reports.
  enum class Limit { kExtreme, kLeft, kRight };
  std::string name;
  Kind kind = Kind::kExtremum;
  std::string channel;
  SummaryPeak::Kind extremum = SummaryPeak::Kind::kMaximum;
  std::string from, to;  ///< window [s], formulas of the model's parameters; empty: the run
  SourceLocation from_where, to_where;
  Limit limit = Limit::kExtreme;
  std::string event;
  bool after_event = false;  ///< kAtEvent: the value just after the event's actions
  bool magnitude = false;    ///< report |value|
  std::string scale;         ///< a factor, a formula of the model's parameters (e.g. 1/m)
  SourceLocation scale_where;
  SourceLocation where;
};

/// A bound on a metric in an optimisation: min <= metric <= max.
struct MetricConstraint {
  std::string metric;
  std::optional<double> min, max;
  SourceLocation where;
};

/// `optimize:` of a study: minimise (or maximise) a metric over the ranges of
/// the parameters, subject to bounds on other metrics.
struct Optimization {
  bool given = false;
  std::string objective;  ///< a metric's name
  bool maximize = false;
  std::vector<MetricConstraint> constraints;
  std::string algorithm = "cobyla";  ///< cobyla (local), isres or direct (global)
  double xtol_rel = 1e-4;
  int max_evaluations = 200;
  int starts = 1;  ///< independent runs of the method, from `start` and a Latin hypercube
  std::vector<double> start;  ///< per parameter; empty: the middle of the ranges
  std::string history;        ///< CSV of every evaluation (resolved path)
  SourceLocation where;
};

struct Study {
  std::string source;      ///< the study file
  std::string model_path;  ///< resolved against the study file's directory
  SourceLocation model_where;
  ParameterOverrides fixed;  ///< `set:` (the same for every case)
  std::vector<StudyParameter> parameters;
  Sampling sampling = Sampling::kGrid;
  int samples = 0;
  std::uint64_t seed = 1;
  std::vector<Metric> metrics;
  std::string output;  ///< the CSV (resolved path)
  int threads = 0;     ///< 0: every core
  Optimization optimize;
};

/// Reads a study file; ModelError with file:line:column for bad input.
Study load_study(const std::string& path);
Study parse_study(const std::string& text, const std::string& source_name);

/// One point of the study: the parameters' values in the order of
/// Study::parameters.
struct Case {
  int index = 0;
  std::vector<double> values;
};

/// The cases of the study's sampling (the grid in row-major order, the last
/// parameter varying fastest; samples reproducible from the seed). Throws
/// ModelError for a grid over a range without `count`.
std::vector<Case> study_cases(const Study& study);

/// What one case gave. A metric that was not found (an event that never
/// fired) is NaN and an empty CSV cell.
struct CaseResult {
  int index = 0;
  std::vector<double> parameters;
  std::vector<double> metrics;
  bool ok = false;
  /// The energy audit of a case that ran (docs/cli.md): a case whose audit
  /// failed keeps its metrics, but its result is suspect (status
  /// "audit_failed", the audit's warning in `error`).
  bool audit_passed = true;
  std::string error;  ///< why the case failed (ok = false), or its audit
  double wall_seconds = 0.0;
};

/// Runs cases of one study. Built once (reads the model file, checks the
/// study's parameters, channels and events against it: ModelError at the
/// study's entry); `run` is const and thread-safe. Where the study varies
/// only parameters that the model's formulas of time and state read (a load
/// amplitude in `value: A*sin(w*t)`), the model is parsed once and every case
/// copies it with its values; where it varies one that reading the file
/// consumes (a mass, a stiffness: numbers of the elements), every case loads
/// the model text held in memory with its values.
class StudyRunner {
 public:
  explicit StudyRunner(const Study& study);
  CaseResult run(const Case& c) const;
  const Study& study() const { return study_; }
  /// The cases share one parsed Model (only formula parameters vary).
  bool shares_parsed_model() const { return parsed_ != nullptr; }

 private:
  Model case_model(const Case& c) const;
  Study study_;
  std::string model_text_;
  std::shared_ptr<const Model> parsed_;
};

struct SweepOptions {
  int threads = 0;  ///< 0: std::thread::hardware_concurrency()
  /// Called (under a lock, in completion order) after each case.
  std::function<void(const CaseResult&)> on_case;
  /// When set, no further case is started (the running ones finish).
  const std::atomic<bool>* stop = nullptr;
};

/// Runs the cases on a pool of threads; the results are in the cases' order
/// (without the cases that `stop` kept from starting). A failing case is a
/// row with ok = false; the others go on.
std::vector<CaseResult> run_cases(const StudyRunner& runner, const std::vector<Case>& cases,
                                  const SweepOptions& options = {});

/// The CSV header: case, the parameters, the metrics, status, error, wall_s.
std::string csv_header(const Study& study);
/// One row (ends with a newline); numbers in shortest round-trip form.
std::string csv_row(const CaseResult& result);
/// Reads a row written by csv_row for a study with `parameters` and
/// `metrics` columns; nullopt if it is not one (a torn last line).
std::optional<CaseResult> parse_csv_row(const std::string& line, std::size_t parameters,
                                        std::size_t metrics);

/// One evaluation of an optimisation.
struct Evaluation {
  int number = 0;
  CaseResult result;
  double objective = std::numeric_limits<double>::quiet_NaN();
  bool feasible = false;
};

struct OptimizationResult {
  std::vector<double> best;  ///< parameters of the best feasible evaluation
  double objective = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> metrics;  ///< of the best evaluation
  bool found = false;           ///< a feasible evaluation exists
  int evaluations = 0;
  std::string stop_reason;  ///< NLopt's
};

/// Minimises the study's objective over the parameter ranges (NLopt), with
/// the constraints as inequality constraints; every evaluation is a run.
/// NLopt's methods ask for one point at a time: the `starts` independent
/// runs (a multi-start) go on `threads` threads at once (0: every core).
/// `on_evaluation` sees each evaluation as it ends (under a lock).
OptimizationResult optimize_study(const StudyRunner& runner, int threads,
                                  const std::function<void(const Evaluation&)>& on_evaluation);

}  // namespace ictus::study
