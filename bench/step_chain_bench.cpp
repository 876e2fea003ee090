// Cost of one evaluation of the equations of motion (kinematics, forces,
// constraint rows, Schur complement assembly, sparse LDL^T, solve) for
// chains of N links joined by revolute joints: it should grow linearly in N.
// Protocol: the state is assembled once; each iteration evaluates y' at the
// same state at another time (the numerical factorisation is redone every
// time, as in a run).
#include <benchmark/benchmark.h>

#include <string>

#include "ictus/model_file.h"
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

// Mechanisms with loops: y' at the assembled state on a spanning tree with
// the loops closed by the Schur complement of the cut rows (tree 1), or by
// the sparse path (tree 0). Models: 0 the free slider-crank of the peer
// benchmark (examples/slider_crank.yaml, driven), 1 the redundant four-bar,
// 2 the V8 engine, 3 a chain of 8 parallelograms (24 redundant rows).
void BM_LoopDerivative(benchmark::State& state) {
  const auto example = [](const char* file) {
    return ictus::load_model(std::string(ICTUS_SOURCE_DIR) + "/examples/" + file);
  };
  ictus::Model model;
  switch (state.range(0)) {
    case 0:
      model = example("slider_crank.yaml");
      break;
    case 1:
      model = example("four_bar_redundant.yaml");
      break;
    case 2:
      model = example("engine_v8.yaml");
      break;
    default:
      model = ictus::test::make_parallelogram_chain(8);
      break;
  }
  ictus::System system(model);
  system.set_tree_dynamics(state.range(1) != 0);
  ictus::VecX y = system.initial_state();
  system.assemble(0.0, y);
  ictus::VecX dy(y.size());
  const double t0 = model.settings().start;
  double t = t0;
  for (auto _ : state) {
    t = t == t0 ? t0 + 1e-12 : t0;
    system.derivative(t, y, dy);
    benchmark::DoNotOptimize(dy.data());
  }
  state.counters["tree_used"] = system.tree_dynamics_used() ? 1.0 : 0.0;
  state.counters["cut_rows"] = system.tree_dynamics_cut_rows();
}
BENCHMARK(BM_LoopDerivative)->ArgsProduct({{0, 1, 2, 3}, {1, 0}})->ArgNames({"model", "tree"});

}  // namespace
