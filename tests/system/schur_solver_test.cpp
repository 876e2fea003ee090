// The sparse Schur-complement solver against a dense computation.
//
// For rows D (each touching at most two bodies) and the block-diagonal
// inverse mass W = M^-1, the solver must reproduce
//
//     S = D W D^T,        x = S^-1 b,
//
// computed densely with Eigen, for any sparsity pattern (rows touching the
// ground on either side, bodies without rows, repeated body pairs), keep its
// factor sparse on a chain, flag a row that is a combination of others, and
// solve the remaining system once that row is dropped (schur_solver.h).
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../../src/schur_solver.h"

namespace ictus::internal {
namespace {

// solution vs dense: both are backward stable, so they agree to about
// cond(S) eps; the random systems here have cond(S) < 1e3 (checked), which
// leaves 1e-12 a margin of ~10x
constexpr double kSolveTolerance = 1e-12;
constexpr double kMaxCondition = 1e3;
// entries of S: sums of a few O(1) products, exact up to rounding
constexpr double kEntryTolerance = 1e-13;

// Reproducible uniform numbers, independent of std::uniform_real_distribution.
class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}
  double uniform(double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(engine_() >> 11) * 0x1.0p-53;
  }
  int index(int n) { return static_cast<int>(engine_() % static_cast<std::uint64_t>(n)); }
  Vec6 vec6() {
    Vec6 v;
    for (int i = 0; i < 6; ++i) v(i) = uniform(-1.0, 1.0);
    return v;
  }

 private:
  std::mt19937_64 engine_;
};

// A set of rows over `bodies` bodies with their inverse masses.
struct Problem {
  int bodies = 0;
  std::vector<RowBodies> pattern;
  std::vector<ConstraintRow> rows;
  std::vector<InverseMass> inverse_mass;

  int size() const { return static_cast<int>(rows.size()); }

  // the ground side of a row is filled with NaN: the solver must never read it
  void add_row(Random& rng, BodyIndex base, BodyIndex follower) {
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    ConstraintRow row;
    row.J_base = base == kGround ? Vec6::Constant(kNaN) : rng.vec6();
    row.J_follower = follower == kGround ? Vec6::Constant(kNaN) : rng.vec6();
    pattern.push_back({base, follower});
    rows.push_back(row);
  }

  // D as a dense m x 6N matrix (ground columns omitted)
  Eigen::MatrixXd dense_d() const {
    Eigen::MatrixXd d = Eigen::MatrixXd::Zero(size(), 6 * bodies);
    for (int r = 0; r < size(); ++r) {
      const auto i = static_cast<std::size_t>(r);
      if (pattern[i].base != kGround)
        d.block<1, 6>(r, 6 * pattern[i].base) += rows[i].J_base.transpose();
      if (pattern[i].follower != kGround)
        d.block<1, 6>(r, 6 * pattern[i].follower) += rows[i].J_follower.transpose();
    }
    return d;
  }

  Eigen::MatrixXd dense_s() const {
    Eigen::MatrixXd w = Eigen::MatrixXd::Zero(6 * bodies, 6 * bodies);
    for (int b = 0; b < bodies; ++b) {
      const InverseMass& m = inverse_mass[static_cast<std::size_t>(b)];
      w.block<3, 3>(6 * b, 6 * b) = m.inv_mass * Mat3::Identity();
      w.block<3, 3>(6 * b + 3, 6 * b + 3) = m.inv_inertia;
    }
    const Eigen::MatrixXd d = dense_d();
    return d * w * d.transpose();
  }
};

InverseMass random_inverse_mass(Random& rng) {
  InverseMass w;
  w.inv_mass = rng.uniform(0.5, 2.0);
  Mat3 a;
  for (int i = 0; i < 9; ++i) a(i) = rng.uniform(-1.0, 1.0);
  w.inv_inertia = a * a.transpose() + 0.2 * Mat3::Identity();  // SPD
  return w;
}

Problem with_bodies(Random& rng, int bodies) {
  Problem p;
  p.bodies = bodies;
  for (int b = 0; b < bodies; ++b) p.inverse_mass.push_back(random_inverse_mass(rng));
  return p;
}

// rows between random pairs; about a third of them touch the ground, on a
// random side
Problem random_problem(Random& rng, int bodies, int rows) {
  Problem p = with_bodies(rng, bodies);
  while (p.size() < rows) {
    BodyIndex a = rng.index(bodies);
    BodyIndex b = rng.index(bodies + bodies / 2) - bodies / 2;  // < 0: ground
    if (b < 0) b = kGround;
    if (a == b) continue;
    if (rng.index(2) == 0) std::swap(a, b);
    p.add_row(rng, a, b);
  }
  return p;
}

double condition(const Eigen::MatrixXd& s) {
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(s);
  return eig.eigenvalues().maxCoeff() / eig.eigenvalues().minCoeff();
}

double relative_difference(const VecX& a, const VecX& b) {
  return (a - b).norm() / b.norm();
}

// Assembles, factorises and checks S and S^-1 b against the dense result.
void expect_matches_dense(SchurSolver& solver, const Problem& p, Random& rng) {
  const std::vector<char> none(static_cast<std::size_t>(p.size()), 0);
  solver.assemble(p.rows, p.inverse_mass, none);
  ASSERT_TRUE(solver.factorize());
  EXPECT_EQ(solver.first_dependent_row(none), -1);
  const Eigen::MatrixXd s = p.dense_s();
  ASSERT_LT(condition(s), kMaxCondition) << "test problem too ill-conditioned to compare";
  for (int i = 0; i < p.size(); ++i)
    EXPECT_NEAR(solver.diagonal(i), s(i, i), kEntryTolerance * s(i, i)) << "row " << i;
  VecX b(p.size());
  for (int i = 0; i < p.size(); ++i) b(i) = rng.uniform(-1.0, 1.0);
  VecX x = b;
  solver.solve_in_place(x);
  EXPECT_LT(relative_difference(x, s.ldlt().solve(b)), kSolveTolerance);
}

TEST(SchurSolver, MatchesDenseSchurComplementOnRandomPatterns) {
  Random rng(1234);
  for (int trial = 0; trial < 20; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const Problem p = random_problem(rng, 8, 14);
    SchurSolver solver;
    solver.analyse(p.pattern, p.bodies);
    ASSERT_EQ(solver.size(), p.size());
    expect_matches_dense(solver, p, rng);
  }
}

// The pattern is analysed once; new values (a new configuration) must be
// assembled from scratch into it, leaving nothing of the previous ones.
TEST(SchurSolver, ReassemblyWithNewValuesReusesThePattern) {
  Random rng(77);
  Problem p = random_problem(rng, 6, 12);
  SchurSolver solver;
  solver.analyse(p.pattern, p.bodies);
  for (int evaluation = 0; evaluation < 5; ++evaluation) {
    SCOPED_TRACE("evaluation " + std::to_string(evaluation));
    for (std::size_t r = 0; r < p.rows.size(); ++r) {
      if (p.pattern[r].base != kGround) p.rows[r].J_base = rng.vec6();
      if (p.pattern[r].follower != kGround) p.rows[r].J_follower = rng.vec6();
    }
    for (InverseMass& w : p.inverse_mass) w = random_inverse_mass(rng);
    expect_matches_dense(solver, p, rng);
  }
}

// Ground on either side, a body reached only through ground rows, a body
// without any row, two rows on the same body pair with base and follower
// swapped, and a row coupling only through a shared follower.
TEST(SchurSolver, HandlesGroundRowsAndUntouchedBodies) {
  Random rng(8);
  Problem p = with_bodies(rng, 5);
  p.add_row(rng, kGround, 0);
  p.add_row(rng, 0, kGround);
  p.add_row(rng, 0, 1);
  p.add_row(rng, 1, 0);
  p.add_row(rng, kGround, 2);  // body 2: ground rows only
  p.add_row(rng, 2, kGround);
  p.add_row(rng, 3, 1);
  p.add_row(rng, kGround, 3);
  // body 4 has no row
  SchurSolver solver;
  solver.analyse(p.pattern, p.bodies);
  expect_matches_dense(solver, p, rng);
}

// A new structure (elements switched on or off) is analysed by the same
// solver object; nothing of the old pattern may survive.
TEST(SchurSolver, ReanalysisForANewStructure) {
  Random rng(21);
  SchurSolver solver;
  for (const auto& [bodies, rows] : {std::pair{6, 14}, {4, 5}, {9, 20}, {3, 1}}) {
    SCOPED_TRACE(std::to_string(rows) + " rows over " + std::to_string(bodies) + " bodies");
    const Problem p = random_problem(rng, bodies, rows);
    solver.analyse(p.pattern, p.bodies);
    expect_matches_dense(solver, p, rng);
  }
}

// Only the velocities moved (the velocity columns of a difference-quotient
// Jacobian): the rows' Jacobians, the masses and the dropped rows are those
// of the last assembly, so S and its factor are kept. Any one of them
// changed, even in one bit, factorises again; a ground side is not compared.
TEST(SchurSolver, KeepsTheFactorWhileItsInputsAreUnchangedAndOnlyThen) {
  Random rng(5);
  Problem p = random_problem(rng, 6, 12);
  SchurSolver solver;
  solver.analyse(p.pattern, p.bodies);
  std::vector<char> dropped(static_cast<std::size_t>(p.size()), 0);
  auto solve = [&]() {
    solver.assemble(p.rows, p.inverse_mass, dropped);
    EXPECT_TRUE(solver.factorize());
    VecX x = VecX::Ones(p.size());
    solver.solve_in_place(x);
    return x;
  };
  const VecX first = solve();
  EXPECT_EQ(solver.factorizations(), 1);
  EXPECT_EQ(solve(), first);  // kept: the same numbers
  EXPECT_EQ(solver.factorizations(), 1);

  const std::size_t ground_row =
      static_cast<std::size_t>(std::find_if(p.pattern.begin(), p.pattern.end(),
                                            [](const RowBodies& rb) {
                                              return rb.base == kGround || rb.follower == kGround;
                                            }) -
                               p.pattern.begin());
  ASSERT_LT(ground_row, p.rows.size());
  ConstraintRow& g = p.rows[ground_row];
  (p.pattern[ground_row].base == kGround ? g.J_base : g.J_follower).setConstant(7.0);
  solve();  // a ground side is never read
  EXPECT_EQ(solver.factorizations(), 1);

  const std::size_t r = 3;
  Vec6& j = p.pattern[r].follower != kGround ? p.rows[r].J_follower : p.rows[r].J_base;
  j(2) = std::nextafter(j(2), 2.0);
  solve();
  EXPECT_EQ(solver.factorizations(), 2);
  expect_matches_dense(solver, p, rng);
  EXPECT_EQ(solver.factorizations(), 2);  // its assembly had the same inputs

  p.inverse_mass[1].inv_inertia(0, 0) *= 1.5;
  solve();
  EXPECT_EQ(solver.factorizations(), 3);

  dropped[0] = 1;
  solve();
  EXPECT_EQ(solver.factorizations(), 4);

  solver.analyse(p.pattern, p.bodies);  // a new structure forgets the factor
  solve();
  EXPECT_EQ(solver.factorizations(), 5);
}

TEST(SchurSolver, EmptyStructureIsTrivial) {
  SchurSolver solver;
  solver.analyse({}, 3);
  solver.assemble({}, {}, {});
  EXPECT_TRUE(solver.factorize());
  VecX nothing(0);
  solver.solve_in_place(nothing);
  EXPECT_EQ(solver.factor_nonzeros(), 0);
  EXPECT_EQ(solver.first_dependent_row({}), -1);
}

// A chain of n bodies, each joined to the previous (the first to the ground)
// by a joint of `per_joint` rows: S is block tridiagonal and, ordered well,
// factors without fill beyond its band, so the factor grows linearly with n.
// A dense factor would grow as n^2.
Problem chain(Random& rng, int n, int per_joint) {
  Problem p = with_bodies(rng, n);
  for (int k = 0; k < n; ++k)
    for (int r = 0; r < per_joint; ++r) p.add_row(rng, k == 0 ? kGround : k - 1, k);
  return p;
}

TEST(SchurSolver, ChainFactorGrowsLinearly) {
  // doubling the chain doubles the factor, up to the ends of the chain
  constexpr double kDoublingTolerance = 0.05;
  for (const int per_joint : {1, 3, 5}) {
    SCOPED_TRACE(std::to_string(per_joint) + " rows per joint");
    Random rng(static_cast<std::uint64_t>(per_joint));
    std::vector<double> nonzeros;
    for (const int n : {25, 50, 100, 200}) {
      const Problem p = chain(rng, n, per_joint);
      SchurSolver solver;
      solver.analyse(p.pattern, p.bodies);
      const std::vector<char> none(static_cast<std::size_t>(p.size()), 0);
      solver.assemble(p.rows, p.inverse_mass, none);
      ASSERT_TRUE(solver.factorize());
      // no fill: L (unit diagonal not stored) holds just the strictly lower
      // part of S, r(r-1)/2 entries per joint block and r^2 per coupling
      // between neighbouring joints. L contains the pattern of S, so this
      // bound is met with equality when the ordering causes no fill at all.
      const int r = per_joint;
      EXPECT_LE(solver.factor_nonzeros(), n * r * (r - 1) / 2 + (n - 1) * r * r);
      nonzeros.push_back(static_cast<double>(solver.factor_nonzeros()));
    }
    for (std::size_t i = 1; i < nonzeros.size(); ++i)
      EXPECT_NEAR(nonzeros[i] / nonzeros[i - 1], 2.0, 2.0 * kDoublingTolerance)
          << nonzeros[i - 1] << " -> " << nonzeros[i];
  }
  // and the sparse factor of a chain still solves it
  Random rng(4);
  const Problem p = chain(rng, 12, 3);
  SchurSolver solver;
  solver.analyse(p.pattern, p.bodies);
  expect_matches_dense(solver, p, rng);
}

// Appends row c = alpha a + beta b over the same two bodies (with base and
// follower swapped if `swap_roles`), a row of D lying in the span of a and b:
// S becomes singular with a null vector supported on {a, b, c}.
void add_combination(Problem& p, int a, int b, double alpha, double beta, bool swap_roles) {
  const auto ia = static_cast<std::size_t>(a);
  const auto ib = static_cast<std::size_t>(b);
  ConstraintRow c;
  c.J_base = alpha * p.rows[ia].J_base + beta * p.rows[ib].J_base;
  c.J_follower = alpha * p.rows[ia].J_follower + beta * p.rows[ib].J_follower;
  RowBodies bodies = p.pattern[ia];
  if (swap_roles) {
    std::swap(c.J_base, c.J_follower);
    std::swap(bodies.base, bodies.follower);
  }
  p.pattern.push_back(bodies);
  p.rows.push_back(c);
}

// Flags a dependent row, checks it belongs to the dependent set, drops it and
// checks the reduced system against the dense one with that row removed.
void expect_redundancy_resolved(const Problem& p, const std::vector<int>& dependent_set,
                                Random& rng) {
  SchurSolver solver;
  solver.analyse(p.pattern, p.bodies);
  std::vector<char> dropped(static_cast<std::size_t>(p.size()), 0);
  solver.assemble(p.rows, p.inverse_mass, dropped);
  solver.factorize();  // may stop early at an exactly zero pivot
  const int flagged = solver.first_dependent_row(dropped);
  ASSERT_NE(std::find(dependent_set.begin(), dependent_set.end(), flagged), dependent_set.end())
      << "flagged row " << flagged;

  dropped[static_cast<std::size_t>(flagged)] = 1;
  solver.assemble(p.rows, p.inverse_mass, dropped);
  ASSERT_TRUE(solver.factorize());
  EXPECT_EQ(solver.first_dependent_row(dropped), -1);
  EXPECT_GT(solver.smallest_pivot_ratio(dropped).first, SchurSolver::kDependencyTolerance);

  std::vector<int> kept;
  for (int i = 0; i < p.size(); ++i)
    if (i != flagged) kept.push_back(i);
  const Eigen::MatrixXd s = p.dense_s()(kept, kept);
  ASSERT_LT(condition(s), kMaxCondition);
  VecX b(p.size());
  for (int i = 0; i < p.size(); ++i) b(i) = rng.uniform(-1.0, 1.0);
  VecX x = b;
  solver.solve_in_place(x);
  // a dropped row is an identity row of S: its multiplier is its right-hand
  // side, untouched by the others
  EXPECT_EQ(x(flagged), b(flagged));
  const VecX reduced_b = b(kept);
  EXPECT_LT(relative_difference(x(kept), s.ldlt().solve(reduced_b)), kSolveTolerance);
}

TEST(SchurSolver, FlagsARowThatIsACombinationOfOthersAndSolvesWithoutIt) {
  Random rng(555);
  for (int trial = 0; trial < 10; ++trial) {
    for (const bool swap_roles : {false, true}) {
      SCOPED_TRACE("trial " + std::to_string(trial) + (swap_roles ? ", roles swapped" : ""));
      Problem p = random_problem(rng, 6, 8);
      // a second row on the body pair of row 2, then their combination
      p.add_row(rng, p.pattern[2].base, p.pattern[2].follower);
      const int second = p.size() - 1;
      add_combination(p, 2, second, rng.uniform(0.5, 2.0), -rng.uniform(0.5, 2.0), swap_roles);
      const int combination = p.size() - 1;
      // more independent rows after them, so the dependent set is not last
      while (p.size() < 13) p.add_row(rng, rng.index(6), kGround);
      // before the drop the smallest pivot is tiny
      SchurSolver solver;
      solver.analyse(p.pattern, p.bodies);
      const std::vector<char> none(static_cast<std::size_t>(p.size()), 0);
      solver.assemble(p.rows, p.inverse_mass, none);
      solver.factorize();
      EXPECT_LT(solver.smallest_pivot_ratio(none).first, SchurSolver::kDependencyTolerance);
      expect_redundancy_resolved(p, {2, second, combination}, rng);
    }
  }
}

// An exact duplicate can give an exactly zero pivot, where the factorisation
// stops (factorize() false); the row must still be found and dropped.
TEST(SchurSolver, FlagsAnExactDuplicateRow) {
  Random rng(9);
  Problem p = random_problem(rng, 5, 6);
  p.pattern.push_back(p.pattern[1]);
  p.rows.push_back(p.rows[1]);
  expect_redundancy_resolved(p, {1, p.size() - 1}, rng);
}

// A row that vanishes (a distance whose two points coincide has no direction,
// distance.cpp) or nearly vanishes has a negligible entry of S: it carries no
// constraint and must be flagged even though its pivot ratio d / S_ii is ~1.
TEST(SchurSolver, FlagsAVanishingRow) {
  Random rng(10);
  Problem p = random_problem(rng, 5, 6);
  p.add_row(rng, 2, 4);
  p.rows.back().J_base *= 0.0;
  p.rows.back().J_follower *= 0.0;
  const int vanishing = p.size() - 1;
  p.add_row(rng, 4, kGround);
  expect_redundancy_resolved(p, {vanishing}, rng);
}

// Dependency is judged per row, free of units: a row scaled down by 1e-9 (a
// heavy body, a stiff direction) is still independent and must be kept.
TEST(SchurSolver, KeepsASmallIndependentRow) {
  Random rng(10);
  Problem p = random_problem(rng, 5, 6);
  p.add_row(rng, 2, 4);
  p.rows.back().J_base *= 1e-9;
  p.rows.back().J_follower *= 1e-9;
  p.add_row(rng, 4, kGround);
  SchurSolver solver;
  solver.analyse(p.pattern, p.bodies);
  const std::vector<char> none(static_cast<std::size_t>(p.size()), 0);
  solver.assemble(p.rows, p.inverse_mass, none);
  ASSERT_TRUE(solver.factorize());
  EXPECT_EQ(solver.first_dependent_row(none), -1);
}

// The LDL^T pivots of an SPD S lie between its extreme eigenvalues (each is a
// Schur complement of a leading block of P S P^T), so the condition estimate
// 1 <= pivot_spread <= cond_2(S). For rows on disjoint bodies S is diagonal
// and the pivots are its diagonal: the spread is exactly max S_ii / min S_ii.
TEST(SchurSolver, PivotSpreadEstimatesTheCondition) {
  // bound checks allow for rounding of the eigenvalues and pivots
  constexpr double kRounding = 1e-12;
  Random rng(31);
  for (int trial = 0; trial < 10; ++trial) {
    const Problem p = random_problem(rng, 8, 14);
    SchurSolver solver;
    solver.analyse(p.pattern, p.bodies);
    const std::vector<char> none(static_cast<std::size_t>(p.size()), 0);
    solver.assemble(p.rows, p.inverse_mass, none);
    ASSERT_TRUE(solver.factorize());
    const double spread = solver.pivot_spread(none);
    EXPECT_GT(spread, 1.0);
    EXPECT_LE(spread, condition(p.dense_s()) * (1.0 + kRounding));
  }

  Problem diagonal = with_bodies(rng, 4);
  for (int b = 0; b < 4; ++b) diagonal.add_row(rng, b, kGround);
  SchurSolver solver;
  solver.analyse(diagonal.pattern, diagonal.bodies);
  const std::vector<char> none(4, 0);
  solver.assemble(diagonal.rows, diagonal.inverse_mass, none);
  ASSERT_TRUE(solver.factorize());
  const VecX d = diagonal.dense_s().diagonal();
  EXPECT_NEAR(solver.pivot_spread(none), d.maxCoeff() / d.minCoeff(),
              kRounding * d.maxCoeff() / d.minCoeff());
  // a dropped row no longer counts
  std::vector<char> drop_largest(4, 0);
  Eigen::Index largest = 0;
  d.maxCoeff(&largest);
  drop_largest[static_cast<std::size_t>(largest)] = 1;
  VecX rest(3);
  for (Eigen::Index i = 0, k = 0; i < 4; ++i)
    if (i != largest) rest(k++) = d(i);
  solver.assemble(diagonal.rows, diagonal.inverse_mass, drop_largest);
  ASSERT_TRUE(solver.factorize());
  EXPECT_NEAR(solver.pivot_spread(drop_largest), rest.maxCoeff() / rest.minCoeff(),
              kRounding * rest.maxCoeff() / rest.minCoeff());
}

// Rows that differ only in the rotation of a body whose inverse inertia is
// negligible (a body far stiffer in rotation than in translation) make S
// exactly singular in floating point: Eigen stops at the zero pivot and leaves
// the factor half built. Solving with it read past the factor (a fuzzing
// finding, SEGV in the triangular solve); now the failure is reported, the
// solution is NaN and the row is named. Non-finite entries fail the same way.
TEST(SchurSolver, AFailedFactorisationIsReportedAndNeverSolvedWith) {
  Random rng(12);
  Problem p = random_problem(rng, 6, 9);
  p.inverse_mass[0].inv_inertia.setZero();
  for (int k = 0; k < 3; ++k) {
    p.add_row(rng, 0, kGround);
    p.rows.back().J_base.head<3>() = Vec3(1.0, 0.0, 0.0);
  }
  const std::vector<char> none(static_cast<std::size_t>(p.size()), 0);
  SchurSolver solver;
  solver.analyse(p.pattern, p.bodies);
  solver.assemble(p.rows, p.inverse_mass, none);
  EXPECT_FALSE(solver.factorize());
  VecX b = VecX::Ones(p.size());
  solver.solve_in_place(b);
  EXPECT_TRUE(b.array().isNaN().all());
  EXPECT_GE(solver.first_unusable_row(none), p.size() - 3);

  // a finite system factorises again afterwards
  Problem finite = p;
  finite.inverse_mass[0] = random_inverse_mass(rng);
  solver.assemble(finite.rows, finite.inverse_mass, none);
  ASSERT_TRUE(solver.factorize());
  b.setOnes();
  solver.solve_in_place(b);
  EXPECT_TRUE(b.allFinite());

  Problem overflowing = finite;
  overflowing.inverse_mass[0].inv_mass = std::numeric_limits<double>::infinity();
  solver.assemble(overflowing.rows, overflowing.inverse_mass, none);
  EXPECT_FALSE(solver.factorize());
  b.setOnes();
  solver.solve_in_place(b);
  EXPECT_TRUE(b.array().isNaN().all());
}

}  // namespace
}  // namespace ictus::internal
