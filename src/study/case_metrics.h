// internal: the metrics of one case that are not windowed extrema (those are
// the Summary's located peaks): values at events, times of events, values at
// the end of the run.
#pragma once

#include <vector>

#include "ictus/simulation.h"
#include "ictus/study.h"

namespace ictus::study::internal {

class CaseMetrics : public Observer {
 public:
  /// Measures the metrics of `metrics` that are not extrema; `values` (one per
  /// metric, NaN until found) receives them.
  CaseMetrics(const std::vector<Metric>& metrics, std::vector<double>& values);
  void on_start(System& system, double t0, double t_end) override;
  void on_sample(double t, System& system) override;
  void on_event(const EventRecord& record) override;

 private:
  struct Probe {
    std::size_t metric = 0;
    int channel = -1;  // -1: an event's time
    bool fired = false;
    bool awaiting_sample = false;  // the value is that of the next sample
  };
  const std::vector<Metric>& metrics_;
  std::vector<double>& values_;
  std::vector<Probe> probes_;
  std::vector<double> last_;  // per probe: the channel at the latest sample
  double t_last_ = 0.0;
  bool sampled_ = false;
};

}  // namespace ictus::study::internal
