// Cost of one evaluation of the equations of motion (kinematics, forces,
// constraint rows, Schur complement assembly, sparse LDL^T, solve) for
// chains of N links joined by revolute joints: it should grow linearly in N.
// Protocol: the state is assembled once; each iteration evaluates y' at the
// same state at another time (the numerical factorisation is redone every
// time, as in a run).
#include <benchmark/benchmark.h>

#include "ictus/system.h"
#include "support/reference_models.h"

namespace {

// range(1): 1 = the linear-time tree solve (the default), 0 = the general
// sparse path through S = D M^-1 D^T
void BM_ChainDerivative(benchmark::State& state) {
  const int links = static_cast<int>(state.range(0));
  ictus::System system(ictus::test::make_chain(links));
  system.set_tree_dynamics(state.range(1) != 0);
  ictus::VecX y = system.initial_state();
  system.assemble(0.0, y);
  ictus::VecX dy(y.size());
  // the System reuses an evaluation at an unchanged (t, y): alternate t
  // (nothing in the chain depends on it) so that every call evaluates
  double t = 0.0;
  for (auto _ : state) {
    t = t == 0.0 ? 1e-12 : 0.0;
    system.derivative(t, y, dy);
    benchmark::DoNotOptimize(dy.data());
  }
  state.SetComplexityN(links);
  state.counters["rows"] = 5.0 * links;
  state.counters["tree_used"] = system.tree_dynamics_used() ? 1.0 : 0.0;
  state.counters["per_link_ns"] =
      benchmark::Counter(static_cast<double>(links), benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
}
BENCHMARK(BM_ChainDerivative)
    ->ArgsProduct({benchmark::CreateRange(4, 1024, 4), {1, 0}})
    ->ArgNames({"N", "tree"});

}  // namespace
