// Helpers shared by the tests: paths, running models, named tolerances.
#pragma once

#include <string>
#include <vector>

#include "ictus/model.h"
#include "ictus/observers.h"
#include "ictus/simulation.h"

namespace ictus::test {

/// Path of a file in the source tree, e.g. source_path("examples/pendulum.yaml").
std::string source_path(const std::string& relative);
/// Path of a file in ../shared/reference.
std::string reference_path(const std::string& relative);

/// Every bundled example and every model of tests/models, as paths relative
/// to the source tree without ".yaml" ("examples/pendulum"), sorted.
std::vector<std::string> bundled_model_names();
/// A test-name suffix for one of them ('/' as '_'), for INSTANTIATE_TEST_SUITE_P.
struct ModelTestName {
  template <class ParamInfo>
  std::string operator()(const ParamInfo& info) const {
    return name(info.param);
  }
  static std::string name(const std::string& model);
};

/// A model file's run, recorded: the same code path as `ictus run`.
struct RecordedRun {
  std::vector<double> t;
  std::vector<std::string> channels;
  std::vector<std::vector<double>> values;
  RunStatistics stats;
  std::vector<EventRecord> events;

  const std::vector<double>& operator[](const std::string& channel) const;
  /// Value of `channel` at the last sample.
  double final(const std::string& channel) const;
  /// Largest |value| of `channel` over the samples.
  double max_abs(const std::string& channel) const;
};

/// Runs `model` recording `channels` at its output grid.
RecordedRun run_and_record(const Model& model, const std::vector<std::string>& channels);

/// Channel `name` of a run where it stands (between advance_to() or apply()
/// calls), the System evaluated there with its dynamics.
double channel_now(Simulation& simulation, const std::string& name);

/// Saves `original` (a run of `model`, recorded by `in_place` from its start)
/// where it stands, finishes it, continues a new Simulation of `model` from
/// the checkpoint, and expects the samples after the save, the number of
/// events and the final state to be bitwise those of the run continued in
/// place.
void expect_checkpoint_continues_bitwise(const Model& model, Simulation& original,
                                         const Recorder& in_place);

/// Times t in (t0, t1] where `series` crosses zero upward, by linear
/// interpolation between samples.
std::vector<double> upward_zero_crossings(const std::vector<double>& t,
                                          const std::vector<double>& series);

/// The accumulation point t_inf of an `accumulation` event record (its
/// "at t_inf = ... s"); NaN if absent.
double accumulation_point(const EventRecord& record);

/// |a - b| / max(|b|, floor): relative error with a floor for values near 0.
double relative_error(double a, double b, double floor = 1e-300);

/// Complete elliptic integral of the first kind K(m), m = k^2 (AGM).
double elliptic_k(double m);

}  // namespace ictus::test
