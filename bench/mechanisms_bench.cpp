// Whole runs of bundled examples: simulated seconds per wall-clock second is
// what a design-optimisation loop pays. Set-up (loading, assembly) is
// excluded: each iteration builds a Simulation from an already loaded Model.
#include <benchmark/benchmark.h>

#include "ictus/model_file.h"
#include "ictus/simulation.h"

namespace {

void run_example(benchmark::State& state, const char* file, double until,
                 const ictus::ParameterOverrides& overrides = {}) {
  ictus::Model model =
      ictus::load_model(std::string(ICTUS_SOURCE_DIR) + "/examples/" + file, overrides);
  model.settings().until = until;
  long steps = 0;
  for (auto _ : state) {
    ictus::Simulation simulation(model);
    const ictus::RunStatistics stats = simulation.run();
    steps = stats.integrator.steps;
  }
  state.counters["steps"] = static_cast<double>(steps);
  state.counters["simulated_s_per_s"] =
      benchmark::Counter(until, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_SliderCrank(benchmark::State& state) {
  run_example(state, "slider_crank.yaml", 1.0);
}
void BM_FourBarRedundant(benchmark::State& state) {
  run_example(state, "four_bar_redundant.yaml", 1.0);
}
void BM_DoublePendulum(benchmark::State& state) {
  run_example(state, "double_pendulum.yaml", 1.0);
}
// seed 004: the friction force solved with the reactions (one more
// back-substitution per evaluation) and its reversals, against mu = 0
void BM_DiskSliderFriction(benchmark::State& state) {
  run_example(state, "disk_slider.yaml", 10.0);
}
void BM_DiskSliderFrictionless(benchmark::State& state) {
  run_example(state, "disk_slider.yaml", 10.0, {{"mu", "0"}});
}
BENCHMARK(BM_SliderCrank)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DiskSliderFriction)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DiskSliderFrictionless)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FourBarRedundant)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DoublePendulum)->Unit(benchmark::kMillisecond);

}  // namespace
