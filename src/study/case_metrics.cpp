#include "case_metrics.h"

#include <cmath>

namespace ictus::study::internal {

CaseMetrics::CaseMetrics(const std::vector<Metric>& metrics, std::vector<double>& values)
    : metrics_(metrics), values_(values) {}

void CaseMetrics::on_start(System& system, double /*t0*/, double /*t_end*/) {
  probes_.clear();
  for (std::size_t k = 0; k < metrics_.size(); ++k) {
    const Metric& m = metrics_[k];
    if (m.kind == Metric::Kind::kExtremum) continue;
    Probe p;
    p.metric = k;
    if (m.kind != Metric::Kind::kEventTime) p.channel = system.find_channel(m.channel);
    probes_.push_back(p);
  }
  last_.assign(probes_.size(), std::nan(""));
  sampled_ = false;
}

void CaseMetrics::on_sample(double t, System& system) {
  for (std::size_t k = 0; k < probes_.size(); ++k) {
    Probe& p = probes_[k];
    if (p.channel < 0) continue;
    last_[k] = system.channel_value(p.channel);
    const Metric& m = metrics_[p.metric];
    if (p.awaiting_sample) {
      values_[p.metric] = last_[k];
      p.awaiting_sample = false;
    }
    if (m.kind == Metric::Kind::kFinal || m.kind == Metric::Kind::kEnergyLost)
      values_[p.metric] = last_[k];
  }
  t_last_ = t;
  sampled_ = true;
}

// The Simulation samples the state just before an event, logs the event,
// applies its actions and samples the state just after (simulation.cpp).
void CaseMetrics::on_event(const EventRecord& record) {
  if (record.kind != "event") return;
  for (std::size_t k = 0; k < probes_.size(); ++k) {
    Probe& p = probes_[k];
    const Metric& m = metrics_[p.metric];
    if (p.fired || m.event != record.name) continue;
    p.fired = true;
    if (m.kind == Metric::Kind::kEventTime) {
      values_[p.metric] = record.t;
    } else if (m.kind == Metric::Kind::kAtEvent) {
      // at the start of a run no sample precedes the event: the value after it
      if (!m.after_event && sampled_ && t_last_ == record.t)
        values_[p.metric] = last_[k];
      else
        p.awaiting_sample = true;
    }
  }
}

}  // namespace ictus::study::internal
