// Cost of one evaluation of the equations of motion (kinematics, forces,
// constraint rows, Schur complement assembly, sparse LDL^T, solve) for
// chains of N links joined by revolute joints: it should grow linearly in N.
// Protocol: the state is assembled once; each iteration evaluates y' at it
// and at the same state with every body turned by about 1e-9 rad in turn, so
// that the constraint Jacobian changes and the numerical factorisation is
// redone every time, as in a run (at unchanged Jacobians the solvers keep
// it: BM_ChainDerivativeNewVelocities measures that case).
#include <benchmark/benchmark.h>

#include <string>

#include "ictus/model_file.h"
#include "ictus/system.h"
#include "support/reference_models.h"

namespace {

// y with every body's orientation quaternion nudged (a rotation of about
// 1e-9 rad): other Jacobians, the same state to the eye
ictus::VecX turned(const ictus::System& system, const ictus::VecX& y) {
  ictus::VecX out = y;
  const ictus::StateLayout& l = system.layout();
  for (int b = 0; b < l.bodies; ++b) l.body_quaternion(out, b).array() += 1e-9;
  return out;
}

// new velocities, the same positions: the same Jacobians
ictus::VecX faster(const ictus::System& system, const ictus::VecX& y) {
  ictus::VecX out = y;
  system.layout().velocities(out).array() += 1e-3;
  return out;
}

// y' of a chain of range(0) links, alternately at its assembled state y and
// at other(system, y); range(1): 1 = the linear-time tree solve (the
// default), 0 = the general sparse path through S = D M^-1 D^T
template <class Other>
void alternating_chain_derivative(benchmark::State& state, Other&& other_state) {
  const int links = static_cast<int>(state.range(0));
  ictus::System system(ictus::test::make_chain(links));
  system.set_tree_dynamics(state.range(1) != 0);
  ictus::VecX y = system.initial_state();
  system.assemble(0.0, y);
  ictus::VecX dy(y.size());
  const ictus::VecX other = other_state(system, y);
  bool at_other = false;
  const long factorisations = system.dynamics_factorisations();
  for (auto _ : state) {
    at_other = !at_other;
    system.derivative(0.0, at_other ? other : y, dy);
    benchmark::DoNotOptimize(dy.data());
  }
  state.SetComplexityN(links);
  state.counters["rows"] = 5.0 * links;
  state.counters["tree_used"] = system.tree_dynamics_used() ? 1.0 : 0.0;
  state.counters["factorisations"] =
      static_cast<double>(system.dynamics_factorisations() - factorisations);
  state.counters["per_link_ns"] =
      benchmark::Counter(static_cast<double>(links), benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
}

void BM_ChainDerivative(benchmark::State& state) {
  alternating_chain_derivative(state, turned);
}
BENCHMARK(BM_ChainDerivative)
    ->ArgsProduct({benchmark::CreateRange(4, 1024, 4), {1, 0}})
    ->ArgNames({"N", "tree"});

// The same evaluation where only the velocities changed since the last one
// (the velocity columns of a difference-quotient Jacobian): the rows'
// Jacobians are the same bit for bit and the factorisation is kept
// (SchurSolver::assemble, TreeKktSolver::factorize).
void BM_ChainDerivativeNewVelocities(benchmark::State& state) {
  alternating_chain_derivative(state, faster);
}
BENCHMARK(BM_ChainDerivativeNewVelocities)
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
  const ictus::VecX other = turned(system, y);
  bool at_other = false;
  for (auto _ : state) {
    at_other = !at_other;
    system.derivative(t0, at_other ? other : y, dy);
    benchmark::DoNotOptimize(dy.data());
  }
  state.counters["tree_used"] = system.tree_dynamics_used() ? 1.0 : 0.0;
  state.counters["cut_rows"] = system.tree_dynamics_cut_rows();
}
BENCHMARK(BM_LoopDerivative)->ArgsProduct({{0, 1, 2, 3}, {1, 0}})->ArgNames({"model", "tree"});

}  // namespace
