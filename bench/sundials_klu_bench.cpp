// CVODE with the dense LU against KLU (StepperOptions::linear_solver) on N
// independent pendulums (block-diagonal dF/dy, 13 x 13 blocks) and on one
// chain (a single dense block). Protocol: the System is built and assembled
// once; each iteration resets CVODE (ReInit) and integrates 0.5 s at
// rtol 1e-8, atol 1e-10 with the difference-quotient Jacobian. CPU time;
// counters per run: steps, F evaluations, Jacobians.
#include <benchmark/benchmark.h>

#include "ictus/stepper.h"
#include "ictus/system.h"
#include "support/reference_models.h"

namespace {

void integrate(benchmark::State& state, const ictus::Model& model,
               ictus::LinearSolverChoice choice) {
  ictus::System system(model);
  ictus::VecX y = system.initial_state();
  system.assemble(0.0, y);
  ictus::StepperOptions options;
  options.linear_solver = choice;
  auto made = ictus::make_stepper("cvode", system, options);
  ictus::Stepper& stepper = *made;
  constexpr double kUntil = 0.5;
  stepper.reset(0.0, y);  // creates CVODE and the linear solver outside the timing
  ictus::StepperStatistics before = stepper.statistics();
  long runs = 0;
  for (auto _ : state) {
    stepper.reset(0.0, y);
    while (stepper.t() < kUntil) stepper.step(kUntil);
    benchmark::DoNotOptimize(stepper.y().data());
    ++runs;
  }
  const ictus::StepperStatistics& s = stepper.statistics();
  const double per_run = runs > 0 ? 1.0 / static_cast<double>(runs) : 0.0;
  state.counters["steps"] = static_cast<double>(s.steps - before.steps) * per_run;
  state.counters["evaluations"] = static_cast<double>(s.evaluations - before.evaluations) * per_run;
  state.counters["jacobians"] =
      static_cast<double>(s.jacobian_evaluations - before.jacobian_evaluations) * per_run;
  state.counters["unknowns"] = 13.0 * static_cast<double>(model.bodies().size());
}

void BM_CvodePendulumsDense(benchmark::State& state) {
  integrate(state, ictus::test::make_pendulums(static_cast<int>(state.range(0))),
            ictus::LinearSolverChoice::kDense);
}
void BM_CvodePendulumsKlu(benchmark::State& state) {
  integrate(state, ictus::test::make_pendulums(static_cast<int>(state.range(0))),
            ictus::LinearSolverChoice::kKlu);
}
void BM_CvodeChainDense(benchmark::State& state) {
  integrate(state, ictus::test::make_chain(static_cast<int>(state.range(0))),
            ictus::LinearSolverChoice::kDense);
}
void BM_CvodeChainKlu(benchmark::State& state) {
  integrate(state, ictus::test::make_chain(static_cast<int>(state.range(0))),
            ictus::LinearSolverChoice::kKlu);
}
BENCHMARK(BM_CvodePendulumsDense)->Arg(10)->Arg(40)->Arg(100)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CvodePendulumsKlu)->Arg(10)->Arg(40)->Arg(100)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CvodeChainDense)->Arg(5)->Arg(10)->Arg(20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CvodeChainKlu)->Arg(5)->Arg(10)->Arg(20)->Unit(benchmark::kMillisecond);

}  // namespace
