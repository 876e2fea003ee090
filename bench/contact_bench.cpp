// Seed 001's piston on its stop, 0..5 s: the compliant Hunt-Crossley stop
// (examples/piston_compliant.yaml, ck = 1e10 N/m, beta = 0.31, rtol 1e-8)
// by CVODE, IDA and DOPRI5, and the impulsive stop (examples/piston.yaml,
// event-driven) for comparison. Counters: steps, evaluations, and the
// largest error of the first three contact times against
// shared/reference/REPORT.md case 2 (t_err, seconds).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "ictus/model_file.h"
#include "ictus/simulation.h"

namespace {

// the first three impacts, compliant (beta = 0.31) and rigid
constexpr double kCompliantImpacts[] = {2.7263661594, 2.8866549157, 3.0008375566};
constexpr double kRigidImpacts[] = {2.72636615939, 2.88897181201, 2.98287311398};

double impact_time_error(const std::vector<ictus::EventRecord>& log, const char* kind,
                         const char* name, const double (&reference)[3]) {
  double worst = 0.0;
  std::size_t n = 0;
  for (const ictus::EventRecord& r : log) {
    if (r.kind != kind || (name != nullptr && r.name != name) || r.t < 2.6) continue;
    if (n == 3) break;
    worst = std::max(worst, std::abs(r.t - reference[n++]));
  }
  return n == 3 ? worst : NAN;
}

void BM_PistonCompliant(benchmark::State& state, const char* method, double rtol) {
  ictus::Model model =
      ictus::load_model(std::string(ICTUS_SOURCE_DIR) + "/examples/piston_compliant.yaml");
  model.settings().integrator.name = method;
  model.settings().integrator.rtol = rtol;
  ictus::RunStatistics stats;
  double error = 0.0;
  for (auto _ : state) {
    ictus::Simulation simulation(model);
    stats = simulation.run();
    error = impact_time_error(simulation.events(), "event", "touch", kCompliantImpacts);
    benchmark::DoNotOptimize(stats);
  }
  state.counters["steps"] = static_cast<double>(stats.integrator.steps);
  state.counters["evals"] = static_cast<double>(stats.integrator.evaluations);
  state.counters["t_err"] = error;
}
// the file's rtol 1e-8 (atol 1e-12), and tighter for DOPRI5 at equal accuracy
BENCHMARK_CAPTURE(BM_PistonCompliant, cvode_1e8, "cvode", 1e-8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PistonCompliant, ida_1e8, "ida", 1e-8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PistonCompliant, dopri5_1e8, "dopri5", 1e-8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PistonCompliant, dopri5_1e9, "dopri5", 1e-9)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PistonCompliant, dopri5_1e10, "dopri5", 1e-10)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PistonCompliant, cvode_1e9, "cvode", 1e-9)->Unit(benchmark::kMillisecond);

void BM_PistonImpulsive(benchmark::State& state) {
  const ictus::Model model =
      ictus::load_model(std::string(ICTUS_SOURCE_DIR) + "/examples/piston.yaml");
  ictus::RunStatistics stats;
  double error = 0.0;
  for (auto _ : state) {
    ictus::Simulation simulation(model);
    stats = simulation.run();
    error = impact_time_error(simulation.events(), "impact", nullptr, kRigidImpacts);
    benchmark::DoNotOptimize(stats);
  }
  state.counters["steps"] = static_cast<double>(stats.integrator.steps);
  state.counters["evals"] = static_cast<double>(stats.integrator.evaluations);
  state.counters["t_err"] = error;
}
BENCHMARK(BM_PistonImpulsive)->Unit(benchmark::kMillisecond);

}  // namespace
