// The kernels of one evaluation for chains of N bodies, N = 4 .. 1024:
// the constraint rows (kinematics and rows, as System::position_violation
// computes them), the factorisation and the solve of the linear-time tree
// path (tree_kkt_solver.h) and of the general sparse path through
// S = D M^-1 D^T (schur_solver.h). The solver kernels run on the rows of a
// chain with 5 rows per joint (a revolute) and random entries of order one;
// BM_ChainDerivative (step_chain_bench.cpp) is the whole evaluation.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include "../src/schur_solver.h"
#include "../src/tree_kkt_solver.h"
#include "ictus/system.h"
#include "support/reference_models.h"

namespace {

using ictus::Body;
using ictus::ConstraintRow;
using ictus::Vec6;
using ictus::VecX;
using ictus::internal::InverseMass;
using ictus::internal::RowBodies;

struct ChainRows {
  std::vector<Body> bodies;
  std::vector<InverseMass> inverse_mass;
  std::vector<RowBodies> pattern;
  std::vector<ConstraintRow> rows;
  VecX rhs;
};

// joint k between body k-1 (the ground for k = 0) and body k, 5 rows
ChainRows chain_rows(int n) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  ChainRows c;
  for (int b = 0; b < n; ++b) {
    Body body;
    body.mass = 1.0;
    body.inertia = ictus::Vec3(1e-3, 1.0 / 12, 1.0 / 12).asDiagonal();
    c.bodies.push_back(body);
    c.inverse_mass.push_back({1.0, body.inertia.inverse()});
  }
  for (int k = 0; k < n; ++k)
    for (int r = 0; r < 5; ++r) {
      ConstraintRow row;
      row.J_base = Vec6::NullaryExpr([&] { return u(rng); });
      row.J_follower = Vec6::NullaryExpr([&] { return u(rng); });
      row.J_follower(r) += 3.0;  // well conditioned
      c.rows.push_back(row);
      c.pattern.push_back({k == 0 ? ictus::kGround : k - 1, k});
    }
  c.rhs = VecX::NullaryExpr(5 * n, [&] { return u(rng); });
  return c;
}

void set_counters(benchmark::State& state, int n) {
  state.SetComplexityN(n);
  state.counters["per_body_ns"] = benchmark::Counter(
      n, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_ChainConstraintRows(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  ictus::System system(ictus::test::make_chain(n));
  VecX y = system.initial_state();
  system.assemble(0.0, y);
  double t = 0.0;
  for (auto _ : state) {
    t = t == 0.0 ? 1e-12 : 0.0;  // a new time: the rows are evaluated again
    benchmark::DoNotOptimize(system.position_violation(t, y));
  }
  set_counters(state, n);
}

// the rows with one entry moved by an ulp: a factorisation for unchanged
// rows is kept (its inputs compared), so the loops below alternate these
std::vector<ConstraintRow> other_rows(const ChainRows& c) {
  std::vector<ConstraintRow> out = c.rows;
  out.back().J_follower(0) = std::nextafter(out.back().J_follower(0), 2.0);
  return out;
}

void BM_TreeFactorize(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  ChainRows c = chain_rows(n);
  const std::vector<ConstraintRow> other = other_rows(c);
  ictus::internal::TreeKktSolver tree;
  const std::vector<char> none(c.rows.size(), 0);
  if (!tree.analyse(c.pattern, c.bodies, none)) state.SkipWithError("not usable");
  bool at_other = false;
  for (auto _ : state) {
    at_other = !at_other;
    benchmark::DoNotOptimize(tree.factorize(at_other ? other : c.rows));
  }
  set_counters(state, n);
}

void BM_TreeSolve(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  ChainRows c = chain_rows(n);
  ictus::internal::TreeKktSolver tree;
  const std::vector<char> none(c.rows.size(), 0);
  tree.analyse(c.pattern, c.bodies, none);
  tree.factorize(c.rows);
  std::vector<Vec6> accelerations(static_cast<std::size_t>(n));
  VecX multipliers(5 * n);
  const Vec6 load = Vec6::Constant(1.0);
  for (auto _ : state) {
    tree.solve([&](int) { return load; }, c.rhs, accelerations, multipliers);
    benchmark::DoNotOptimize(multipliers.data());
  }
  set_counters(state, n);
}

void BM_SchurAssembleFactorize(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  ChainRows c = chain_rows(n);
  ictus::internal::SchurSolver schur;
  schur.analyse(c.pattern, n);
  const std::vector<ConstraintRow> other = other_rows(c);
  const std::vector<char> dropped(c.rows.size(), 0);
  bool at_other = false;
  for (auto _ : state) {
    at_other = !at_other;
    schur.assemble(at_other ? other : c.rows, c.inverse_mass, dropped);
    benchmark::DoNotOptimize(schur.factorize());
  }
  set_counters(state, n);
}

void BM_SchurSolve(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  ChainRows c = chain_rows(n);
  ictus::internal::SchurSolver schur;
  schur.analyse(c.pattern, n);
  const std::vector<char> dropped(c.rows.size(), 0);
  schur.assemble(c.rows, c.inverse_mass, dropped);
  schur.factorize();
  VecX x = c.rhs;
  for (auto _ : state) {
    x = c.rhs;
    schur.solve_in_place(x);
    benchmark::DoNotOptimize(x.data());
  }
  set_counters(state, n);
}

BENCHMARK(BM_ChainConstraintRows)->RangeMultiplier(4)->Range(4, 1024)->Complexity(benchmark::oN);
BENCHMARK(BM_TreeFactorize)->RangeMultiplier(4)->Range(4, 1024)->Complexity(benchmark::oN);
BENCHMARK(BM_TreeSolve)->RangeMultiplier(4)->Range(4, 1024)->Complexity(benchmark::oN);
BENCHMARK(BM_SchurAssembleFactorize)->RangeMultiplier(4)->Range(4, 1024)->Complexity(benchmark::oN);
BENCHMARK(BM_SchurSolve)->RangeMultiplier(4)->Range(4, 1024)->Complexity(benchmark::oN);

}  // namespace
