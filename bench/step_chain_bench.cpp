// Cost of one evaluation of the equations of motion (kinematics, forces,
// constraint rows, Schur complement assembly, sparse LDL^T, solve) for
// chains of N links joined by revolute joints: it should grow linearly in N.
// Protocol: the state is assembled once; each iteration evaluates y' at the
// same state (the numerical factorisation is redone every time, as in a run).
#include <benchmark/benchmark.h>

#include "ictus/system.h"
#include "support/reference_models.h"

namespace {

void BM_ChainDerivative(benchmark::State& state) {
  const int links = static_cast<int>(state.range(0));
  ictus::System system(ictus::test::make_chain(links));
  ictus::VecX y = system.initial_state();
  system.assemble(0.0, y);
  ictus::VecX dy(y.size());
  for (auto _ : state) {
    system.derivative(0.0, y, dy);
    benchmark::DoNotOptimize(dy.data());
  }
  state.SetComplexityN(links);
  state.counters["rows"] = 5.0 * links;
  state.counters["per_link_ns"] =
      benchmark::Counter(static_cast<double>(links), benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
}
BENCHMARK(BM_ChainDerivative)->RangeMultiplier(4)->Range(4, 1024)->Complexity(benchmark::oN);

}  // namespace
