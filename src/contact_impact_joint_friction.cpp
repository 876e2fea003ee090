#include "contact_impact_joint_friction.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>

#include "dense_rows.h"
#include "friction_impulses.h"
#include "ictus/forces/reaction_friction.h"

namespace ictus::internal {

namespace {

// the joints decided together (5^k systems per active set) and the free
// sides whose active sets are enumerated (2^sides)
constexpr int kMaxJoints = 6;
constexpr int kMaxFreeSides = 10;
// the linear systems enumerated at most: the combinations of the sides'
// cases (2 per side without friction, 1 + 9 per side with: open, or pushing
// in one of its pyramid's cases) times the joints' (up to 5 each)
constexpr double kMaxSystems = 2e5;

// The cases of a pushing side with friction, in the pyramid of four
// directions d (contact/friction_pyramid.h), its tangential impulse
// r = sum_d beta_d d with sum_d beta_d <= mu P: stuck (both slip rates
// zero), slipping at a vertex (r = mu P d, d . v the least of the four and
// <= 0), or on an edge between two adjacent directions (r = mu P d1 +
// beta (d2 - d1), 0 <= beta <= mu P, d1 . v = d2 . v the least).
constexpr int kPyramidCases = 9;
constexpr int kStuckSide = 0;
// the directions in the side's slip-rate coordinates, in turn round the
// pyramid: vertex case 1 + i is direction i, edge case 5 + i lies between
// directions i and i + 1
constexpr std::array<std::array<double, 2>, 4> kDirection{{{1, 0}, {0, 1}, {-1, 0}, {0, -1}}};
int first_direction(int pyramid_case) {
  return pyramid_case < 5 ? pyramid_case - 1 : pyramid_case - 5;
}
bool on_edge(int pyramid_case) {
  return pyramid_case >= 5;
}

// One combination of the free sides' cases: the sides that push, and the
// case of each pushing side with friction in its pyramid. It is an impact
// with equality rows only, J u+ = r with the impulses along the rows of
// J_i: the kept equality rows, the pushing sides' normals (a slipping
// side's leaning by mu d T_k: its friction mu P d rides on P), then each
// stuck side's two slip rates and each edge's beta (d1 . v = d2 . v, its
// impulse along d2 - d1). J_i differs from J where a side slips: the
// system J M^-1 J_i^T is not symmetric.
class Combination {
 public:
  // rough_index: per free side, its index in p.rough (-1: frictionless)
  Combination(const ContactImpactProblem& p, std::span<const int> kept_slots,
              std::span<const int> rough_index)
      : p_(p), kept_slots_(kept_slots), rough_index_(rough_index) {}

  // The free sides of `mask` pushing, each with friction stuck
  void start(unsigned mask) {
    pushing_.clear();
    rough_.clear();
    for (int a = 0; a < static_cast<int>(p_.G.rows()); ++a)
      if ((mask >> a & 1U) != 0) pushing_.push_back(a);
    for (std::size_t a = 0; a < pushing_.size(); ++a)
      if (rough_index_[static_cast<std::size_t>(pushing_[a])] >= 0) rough_.push_back(a);
    cases_.assign(rough_.size(), kStuckSide);
  }
  // The next cases of the pushing sides' pyramids; false after the last
  bool next() {
    for (int& c : cases_) {
      if (++c < kPyramidCases) return true;
      c = kStuckSide;
    }
    return false;
  }
  const std::vector<int>& pushing() const { return pushing_; }

  void assemble(int nv, MatX& J, MatX& Ji, VecX& r) {
    const auto ne = static_cast<Eigen::Index>(kept_slots_.size());
    auto m = ne + static_cast<Eigen::Index>(pushing_.size());
    extra_.assign(rough_.size(), -1);
    for (std::size_t i = 0; i < cases_.size(); ++i) {
      extra_[i] = m;
      m += cases_[i] == kStuckSide ? 2 : (on_edge(cases_[i]) ? 1 : 0);
    }
    J = MatX::Zero(m, nv);
    r = VecX::Zero(m);
    for (Eigen::Index i = 0; i < ne; ++i) {
      J.row(i) = p_.DE.row(kept_slots_[static_cast<std::size_t>(i)]);
      r(i) = p_.rE(kept_slots_[static_cast<std::size_t>(i)]);
    }
    for (std::size_t a = 0; a < pushing_.size(); ++a) {
      J.row(ne + static_cast<Eigen::Index>(a)) = p_.G.row(pushing_[a]);
      r(ne + static_cast<Eigen::Index>(a)) = p_.c(pushing_[a]);
    }
    for (std::size_t i = 0; i < cases_.size(); ++i) {
      const int side = pushing_[rough_[i]];
      if (cases_[i] == kStuckSide) {
        J.row(extra_[i]) = p_.T.row(2 * side);
        J.row(extra_[i] + 1) = p_.T.row(2 * side + 1);
      } else if (on_edge(cases_[i])) {
        const int d1 = first_direction(cases_[i]);
        J.row(extra_[i]) = along(side, (d1 + 1) % 4) - along(side, d1);
      }
    }
    Ji = J;
    for (std::size_t i = 0; i < cases_.size(); ++i)
      if (cases_[i] != kStuckSide) {
        const int side = pushing_[rough_[i]];
        Ji.row(ne + static_cast<Eigen::Index>(rough_[i])) +=
            mu(side) * along(side, first_direction(cases_[i]));
      }
  }

  // Coulomb's law in each pushing side's pyramid at the combination's
  // solution: l its impulses (along J_i's rows), x the velocities after
  bool within_pyramids(const VecX& l, const VecX& x, double impulse_tolerance,
                       double rate_tolerance) const {
    const auto ne = static_cast<Eigen::Index>(kept_slots_.size());
    for (std::size_t i = 0; i < cases_.size(); ++i) {
      const int side = pushing_[rough_[i]];
      const double limit = mu(side) * std::max(l(ne + static_cast<Eigen::Index>(rough_[i])), 0.0);
      const Eigen::Index row = extra_[i];
      if (cases_[i] == kStuckSide) {
        if (std::abs(l(row)) + std::abs(l(row + 1)) > limit + impulse_tolerance) return false;
        continue;
      }
      if (on_edge(cases_[i]) && (l(row) < -impulse_tolerance || l(row) > limit + impulse_tolerance))
        return false;
      // the impulse's direction d1 is the one the slip opposes most
      const double least = along(side, first_direction(cases_[i])).dot(x);
      if (least > rate_tolerance) return false;
      for (int d = 0; d < 4; ++d)
        if (along(side, d).dot(x) < least - rate_tolerance) return false;
    }
    return true;
  }

 private:
  // side k's slip-rate row along direction d: d . T_k
  Eigen::RowVectorXd along(int side, int direction) const {
    const auto& d = kDirection[static_cast<std::size_t>(direction)];
    return d[0] * p_.T.row(2 * side) + d[1] * p_.T.row(2 * side + 1);
  }
  double mu(int side) const {
    return p_.mu[static_cast<std::size_t>(rough_index_[static_cast<std::size_t>(side)])];
  }

  const ContactImpactProblem& p_;
  std::span<const int> kept_slots_, rough_index_;
  std::vector<int> pushing_;         // into G's rows
  std::vector<std::size_t> rough_;   // the positions in pushing_ of the sides with friction
  std::vector<int> cases_;           // their pyramids' cases
  std::vector<Eigen::Index> extra_;  // and their first rows after the normals
};

// A frictional joint of the impact: its slip-rate row and the generalized
// load of a unit friction force along it (6n each), its coefficient, and
// its hold row's index among the equality rows while stuck.
struct Joint {
  System::Impl::FrictionJoint* fj = nullptr;
  int hold_slot = -1;
  double mu = 0.0;
  VecX rate, load;
};

// A ball (spherical joint's friction) of the impact: its relative angular
// velocity w = rate u (3 x 6n), the generalized loads of unit moments about
// the world axes (6n x 3), its coefficient, and its hold rows' indices
// among the equality rows while stuck.
struct Ball {
  System::Impl::FrictionJoint* fj = nullptr;
  std::array<int, 3> hold_slots{-1, -1, -1};
  double mu = 0.0;
  MatX rate, load;
};

// One consistent outcome of an active set
struct Outcome {
  VecX x, z, l_E;
  std::vector<double> F;
  std::vector<int> mode;
  bool indeterminate = false;  // the joints' impulses one choice among many
  std::vector<BallImpulse> balls;
  std::vector<char> ball_indeterminate;
};

// A ball whose friction impulse this impact does not decide (why): the
// impact is decided again without the balls, as before they took part
struct BallNotDecided {
  std::string ball, why;
};

// The bodies the impact reaches: those joined to a free side's bodies by
// the equality rows. A frictional joint elsewhere takes no impulse (its
// rate and reaction stay as they are) and is left out of the enumeration.
std::vector<char> bodies_reached(const ContactImpactProblem& p, int bodies) {
  std::vector<int> parent(static_cast<std::size_t>(bodies));
  for (int b = 0; b < bodies; ++b) parent[static_cast<std::size_t>(b)] = b;
  auto root = [&parent](int b) {
    while (parent[static_cast<std::size_t>(b)] != b)
      b = parent[static_cast<std::size_t>(b)] =
          parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(b)])];
    return b;
  };
  std::vector<int> on_row;
  auto bodies_of = [&](const auto& row) {
    on_row.clear();
    for (int b = 0; b < bodies; ++b)
      if (row.segment(6 * b, 6).squaredNorm() > 0.0) on_row.push_back(b);
  };
  for (Eigen::Index r = 0; r < p.DE.rows(); ++r) {
    bodies_of(p.DE.row(r));
    for (std::size_t i = 1; i < on_row.size(); ++i)
      parent[static_cast<std::size_t>(root(on_row[i]))] = root(on_row[0]);
  }
  std::vector<char> reached(static_cast<std::size_t>(bodies), 0), pressed = reached;
  for (Eigen::Index r = 0; r < p.G.rows(); ++r) {
    bodies_of(p.G.row(r));
    for (const int b : on_row) pressed[static_cast<std::size_t>(root(b))] = 1;
  }
  for (int b = 0; b < bodies; ++b)
    reached[static_cast<std::size_t>(b)] = pressed[static_cast<std::size_t>(root(b))];
  return reached;
}

bool decide(System::Impl& s, double t, const ContactImpactProblem& p, const std::string& sides,
            bool with_balls, ContactImpactWithJointFriction& out) {
  const auto nE = static_cast<int>(p.equality_rows.size());
  const auto nf = static_cast<int>(p.G.rows());
  const int nv = 6 * s.n;
  // the equality impulses on the System's rows (a joint's transverse
  // reaction reads its own rows)
  auto on_rows = [&](const VecX& l, std::span<const int> rows) {
    VecX all = VecX::Zero(static_cast<Eigen::Index>(s.rows.size()));
    for (std::size_t i = 0; i < rows.size(); ++i) all(rows[i]) = l(static_cast<Eigen::Index>(i));
    return all;
  };
  const VecX first = on_rows(p.l_E, p.equality_rows);
  // the impact's impulses: the equality rows' and the sides'
  const double scale =
      std::max({p.l_E.lpNorm<Eigen::Infinity>(), p.z.lpNorm<Eigen::Infinity>(), 1e-300});

  // what asks for friction impulses: a hold beyond mu_s |P_N|, a slipping
  // joint pressed across; of the joints the impact reaches
  const std::vector<char> reached = bodies_reached(p, s.n);
  auto impact_reaches = [&reached](const System::Impl::FrictionJoint& fj) {
    return (fj.base != kGround && reached[static_cast<std::size_t>(fj.base)] != 0) ||
           (fj.follower != kGround && reached[static_cast<std::size_t>(fj.follower)] != 0);
  };
  std::vector<Joint> joints;
  std::string needing, dependent;
  for (System::Impl::FrictionJoint& fj : s.friction_joints) {
    if (fj.joint < 0 || fj.ball || s.force_enabled[static_cast<std::size_t>(fj.force)] == 0 ||
        !impact_reaches(fj))
      continue;
    const ReactionFriction& e = s.friction_element(fj);
    Joint j;
    j.fj = &fj;
    const bool stuck = e.mode() == kStick;
    if (stuck) {
      const int hold = s.hold_row(fj.stick_slip);
      const auto at = std::find(p.equality_rows.begin(), p.equality_rows.end(), hold);
      if (hold < 0 || at == p.equality_rows.end()) {
        // a dependent hold (two guides of one motion): left out of the impact
        if (hold >= 0) dependent = s.friction_site(fj);
        continue;
      }
      j.hold_slot = static_cast<int>(at - p.equality_rows.begin());
    }
    j.mu = stuck ? e.static_lever() : e.kinetic_lever();
    const double normal = s.friction_normal(fj, first).norm();
    // (a slipping joint's transverse impulse above the round-off of the
    // impact's, the drift corrections of its rows included)
    const bool needs = stuck ? std::abs(p.l_E(j.hold_slot)) > j.mu * normal + 1e-12 * scale
                             : normal > 1e-9 * scale;
    if (needs) needing += (needing.empty() ? "" : ", ") + s.friction_site(fj);
    joints.push_back(std::move(j));
  }
  // the balls, when one asks: each decided alone (ball_friction_impulses)
  std::vector<Ball> balls;
  std::string dependent_ball;
  bool ball_asks = false;
  for (System::Impl::FrictionJoint& fj : s.friction_joints) {
    if (!with_balls || !fj.ball || s.force_enabled[static_cast<std::size_t>(fj.force)] == 0 ||
        !impact_reaches(fj))
      continue;
    const ReactionFriction& e = s.friction_element(fj);
    Ball b;
    b.fj = &fj;
    const bool stuck = e.mode() == kStick;
    Vec3 held = Vec3::Zero();
    if (stuck) {
      const int hold = s.hold_row(fj.stick_slip);
      if (hold < 0) continue;
      const Mat3& R = s.kinematics(fj.base).R_WB;
      bool all = true;
      for (int q = 0; q < 3 && all; ++q) {
        const auto at = std::find(p.equality_rows.begin(), p.equality_rows.end(), hold + q);
        all = at != p.equality_rows.end();
        if (!all) break;
        b.hold_slots[static_cast<std::size_t>(q)] = static_cast<int>(at - p.equality_rows.begin());
        held += p.l_E(b.hold_slots[static_cast<std::size_t>(q)]) * R.col(q);
      }
      if (!all) {
        dependent_ball = s.friction_site(fj);
        continue;
      }
    }
    b.mu = stuck ? e.static_lever() : e.kinetic_lever();
    const double normal = s.friction_normal(fj, first).norm();
    const bool needs = stuck ? held.norm() > b.mu * normal + 1e-12 * scale : normal > 1e-9 * scale;
    if (needs) {
      ball_asks = true;
      needing += (needing.empty() ? "" : ", ") + s.friction_site(fj);
    }
    balls.push_back(std::move(b));
  }
  if (!ball_asks) {
    balls.clear();
    dependent_ball.clear();
  }
  if (ball_asks) {
    const std::string& ball = s.friction_site(*balls.front().fj);
    // (a slipping side's impulse leans off its normal: the ball's response
    // is then not symmetric, which ball_friction_impulses' root count needs)
    if (!p.rough.empty()) throw BallNotDecided{ball, "the contacts have friction"};
    if (nf > kMaxFreeSides)
      throw BallNotDecided{ball, fmt::format("more than {} contact sides", kMaxFreeSides)};
    if (!dependent_ball.empty())
      throw BallNotDecided{dependent_ball, "its hold rows are partly dependent"};
  }
  if (needing.empty()) return false;
  auto not_built = [&](const std::string& why) {
    return SimulationError(
        t, fmt::format("{}: the impact of contact(s) {} takes friction impulses at these "
                       "joints, {}",
                       needing, sides, why));
  };
  if (!dependent.empty())
    throw not_built(
        fmt::format("and the stuck {}'s hold is dependent on the others (one motion "
                    "held twice): its friction impulse is statically indeterminate",
                    dependent));
  const auto k = static_cast<int>(joints.size());
  if (k > kMaxJoints)
    throw not_built(
        fmt::format("and the model's {} frictional joints are more than the {} ictus "
                    "decides together in a contact impact",
                    k, kMaxJoints));
  if (nf > kMaxFreeSides)
    throw not_built(
        fmt::format("with {} contact sides, more than the {} whose active sets ictus "
                    "enumerates",
                    nf, kMaxFreeSides));
  // (a side whose mu is zero has no pyramid)
  std::vector<int> rough_index(static_cast<std::size_t>(nf), -1);  // into p.rough and p.mu
  int nr = 0;
  for (std::size_t i = 0; i < p.rough.size(); ++i)
    if (p.mu[i] > 0.0) {
      rough_index[static_cast<std::size_t>(p.rough[i])] = static_cast<int>(i);
      ++nr;
    }
  const double systems =
      std::pow(2.0, nf - nr) * std::pow(1.0 + kPyramidCases, nr) * std::pow(5.0, k);
  if (systems > kMaxSystems)
    throw not_built(
        fmt::format("with {} contact sides, {} of them with friction, and {} frictional joints: "
                    "more combinations of their cases ({:.3g}) than the {:.0f} ictus enumerates",
                    nf, nr, k, systems, kMaxSystems));

  const ForceContext ctx(s.kin, s.t);
  std::vector<BodyLoad> loads(static_cast<std::size_t>(s.n));
  for (Joint& j : joints) {
    j.rate = VecX(nv);
    scatter_row(slip_rate_row(s, *j.fj), j.fj->base, j.fj->follower, 1.0, j.rate);
    for (BodyLoad& l : loads) l = BodyLoad{};
    LoadAccumulator accumulator(loads);
    s.forces[static_cast<std::size_t>(j.fj->force)]->add_slip_load(ctx, accumulator, 1.0);
    j.load = dense_loads(loads);
  }
  for (Ball& b : balls) {
    b.rate = MatX::Zero(3, nv);
    b.load = MatX(nv, 3);
    for (int q = 0; q < 3; ++q) {
      // w . e_q = (R_f^T e_q) . w_f - (R_b^T e_q) . w_b (body rates in their frames)
      ConstraintRow row;
      row.J_follower.tail<3>() = s.kinematics(b.fj->follower).R_WB.transpose() * Vec3::Unit(q);
      row.J_base.tail<3>() = -(s.kinematics(b.fj->base).R_WB.transpose() * Vec3::Unit(q));
      VecX dense(nv);
      scatter_row(row, b.fj->base, b.fj->follower, 1.0, dense);
      b.rate.row(q) = dense.transpose();
      for (BodyLoad& l : loads) l = BodyLoad{};
      LoadAccumulator accumulator(loads);
      accumulator.add_torque_W(b.fj->follower, ctx.body(b.fj->follower), Vec3::Unit(q));
      accumulator.add_torque_W(b.fj->base, ctx.body(b.fj->base), -Vec3::Unit(q));
      b.load.col(q) = dense_loads(loads);
    }
  }
  // the equality rows kept: all but the stuck joints' holds (their friction
  // impulses are the unknowns)
  std::vector<int> kept_slots;
  for (int i = 0; i < nE; ++i)
    if (std::none_of(joints.begin(), joints.end(),
                     [i](const Joint& j) { return j.hold_slot == i; }) &&
        std::none_of(balls.begin(), balls.end(), [i](const Ball& b) {
          return std::find(b.hold_slots.begin(), b.hold_slots.end(), i) != b.hold_slots.end();
        }))
      kept_slots.push_back(i);
  std::vector<int> kept_rows;
  for (const int i : kept_slots) kept_rows.push_back(p.equality_rows[static_cast<std::size_t>(i)]);
  const auto ne = static_cast<Eigen::Index>(kept_slots.size());

  // each active set of the free sides (pushing: G_k u+ = c_k, P_k >= 0; the
  // others P_k = 0, G_k u+ >= c_k), with each pushing side with friction in
  // one case of its pyramid, is an impact with equality rows only
  std::vector<Outcome> found;
  bool undetermined = false;
  bool motions = false;  // a continuum of motions consistent with every law
  const double speed = std::max(p.u1.lpNorm<Eigen::Infinity>(), 1e-300);
  Combination combination(p, kept_slots, rough_index);
  MatX J, Ji;
  VecX r;
  for (unsigned mask = 0; mask < (1U << nf); ++mask) {
    combination.start(mask);
    const std::vector<int>& active = combination.pushing();
    for (bool more_cases = true; more_cases; more_cases = combination.next()) {
      combination.assemble(nv, J, Ji, r);
      const Eigen::Index m = J.rows();
      const MatX MJt = p.Minv * Ji.transpose();
      Eigen::CompleteOrthogonalDecomposition<MatX> A;
      if (m > 0) A.compute(J * MJt);
      auto multipliers = [&](const VecX& rhs) -> VecX {
        return m > 0 ? VecX(A.solve(rhs)) : VecX(VecX::Zero(0));
      };
      const VecX l0 = multipliers(r - J * p.u1);
      const VecX x0 = p.u1 + MJt * l0;
      // targets that contradict each other (a side dependent on the joints
      // with another rebound): no such impact
      if ((J * x0 - r).lpNorm<Eigen::Infinity>() >
          1e-9 * std::max(speed, r.lpNorm<Eigen::Infinity>()))
        continue;
      std::vector<VecX> du(joints.size()), dl(joints.size());
      for (int j = 0; j < k; ++j) {
        const VecX free = p.Minv * joints[static_cast<std::size_t>(j)].load;
        dl[static_cast<std::size_t>(j)] = multipliers(-(J * free));
        du[static_cast<std::size_t>(j)] = free + MJt * dl[static_cast<std::size_t>(j)];
      }
      // the joints' friction impulses (none: one empty solution)
      std::vector<FrictionImpulses::Solution> joint_solutions;
      bool continuum = false;
      if (k == 0) {
        joint_solutions.push_back({VecX(0), {}, false});
      } else {
        FrictionImpulses problem;
        problem.start(k);
        const VecX first_rows = on_rows(l0.head(ne), kept_rows);
        for (int i = 0; i < k; ++i) {
          const Joint& ji = joints[static_cast<std::size_t>(i)];
          problem.set_joint(i, ji.rate.dot(x0), s.friction_normal(*ji.fj, first_rows), ji.mu);
          for (int j = 0; j < k; ++j)
            problem.set_response(
                i, j, ji.rate.dot(du[static_cast<std::size_t>(j)]),
                s.friction_normal(*ji.fj,
                                  on_rows(dl[static_cast<std::size_t>(j)].head(ne), kept_rows)));
        }
        switch (problem.solve()) {
          case FrictionImpulses::Outcome::kSolved:
          case FrictionImpulses::Outcome::kSeveral:
            break;
          case FrictionImpulses::Outcome::kNone:
            continue;
          case FrictionImpulses::Outcome::kDependent:
            // a continuum of motions (a point inside it in solutions()) is
            // put to Newton's law below; without one, not determined
            undetermined = true;
            if (problem.solutions().empty()) continue;
            continuum = true;
            break;
          case FrictionImpulses::Outcome::kOffLine:
            throw not_built(fmt::format(
                "and {}'s transverse reaction impulse leaves its line; a combination of them "
                "stuck and slipping is not solved: {}; ictus does not decide it",
                s.friction_site(*joints[static_cast<std::size_t>(problem.off_line())].fj),
                problem.off_line_why()));
        }
        joint_solutions = problem.solutions();
      }
      // each ball alone: its responses to unit moment impulses about the world
      // axes, which must not reach the joints' or another ball's
      const auto nb = balls.size();
      std::vector<MatX> bdu(nb), bdl(nb);
      std::vector<std::vector<BallImpulse>> ball_solutions(nb);
      std::vector<char> ball_indeterminate(nb, 0);
      bool none = false;
      for (std::size_t b = 0; b < nb && !none; ++b) {
        const Ball& ball = balls[b];
        const MatX free = p.Minv * ball.load;
        bdl[b] = MatX(m, 3);
        for (int q = 0; q < 3; ++q) bdl[b].col(q) = multipliers(-(J * free.col(q)));
        bdu[b] = free + MJt * bdl[b];
        Mat3 C = ball.rate * bdu[b], R;
        for (int q = 0; q < 3; ++q)
          R.col(q) = s.friction_normal(*ball.fj, on_rows(bdl[b].col(q).head(ne), kept_rows));
        const double reaction = 1e-12 * std::max(R.cwiseAbs().maxCoeff(), 1.0);
        // (the rates' round-off is to the larger of the two's own responses)
        auto reaches = [&](const System::Impl::FrictionJoint& other, const MatX& other_rate,
                           const MatX& other_du, const MatX& other_dl) {
          const double coupling =
              1e-12 * std::max({C.cwiseAbs().maxCoeff(),
                                (other_rate * other_du).cwiseAbs().maxCoeff(), 1e-300});
          if ((other_rate * bdu[b]).cwiseAbs().maxCoeff() > coupling ||
              (ball.rate * other_du).cwiseAbs().maxCoeff() > coupling)
            return true;
          for (int q = 0; q < 3; ++q)
            if (s.friction_normal(other, on_rows(bdl[b].col(q).head(ne), kept_rows)).norm() >
                reaction)
              return true;
          for (Eigen::Index q = 0; q < other_dl.cols(); ++q)
            if (s.friction_normal(*ball.fj, on_rows(other_dl.col(q).head(ne), kept_rows)).norm() >
                reaction)
              return true;
          return false;
        };
        for (int j = 0; j < k; ++j) {
          const Joint& joint = joints[static_cast<std::size_t>(j)];
          if (reaches(*joint.fj, joint.rate.transpose(), du[static_cast<std::size_t>(j)],
                      dl[static_cast<std::size_t>(j)]))
            throw BallNotDecided{
                s.friction_site(*ball.fj),
                fmt::format("its impulses reach those of {}", s.friction_site(*joint.fj))};
        }
        for (std::size_t o = 0; o < b; ++o)
          if (reaches(*balls[o].fj, balls[o].rate, bdu[o], bdl[o]))
            throw BallNotDecided{
                s.friction_site(*ball.fj),
                fmt::format("its impulses reach those of {}", s.friction_site(*balls[o].fj))};
        bool indeterminate = false;
        ball_solutions[b] = ball_friction_impulses(
            ball.rate * x0, C, s.friction_normal(*ball.fj, on_rows(l0.head(ne), kept_rows)), R,
            ball.mu, &indeterminate, (ball.rate * p.Minv * ball.load).cwiseAbs().maxCoeff());
        ball_indeterminate[b] = indeterminate ? 1 : 0;
        none = ball_solutions[b].empty();
      }
      if (none) continue;
      // every solution of the joints with every one of each ball, put to
      // Newton's law on every free side
      std::vector<std::size_t> pick(nb, 0);
      for (const FrictionImpulses::Solution& solution : joint_solutions) {
        std::fill(pick.begin(), pick.end(), 0);
        for (bool more = true; more;) {
          Outcome o;
          o.x = x0;
          VecX l = l0;
          for (int j = 0; j < k; ++j) {
            o.x += solution.F(j) * du[static_cast<std::size_t>(j)];
            l += solution.F(j) * dl[static_cast<std::size_t>(j)];
          }
          for (std::size_t b = 0; b < nb; ++b) {
            const BallImpulse& bi = ball_solutions[b][pick[b]];
            o.x += bdu[b] * bi.M;
            l += bdl[b] * bi.M;
            o.balls.push_back(bi);
            o.ball_indeterminate.push_back(ball_indeterminate[b]);
          }
          // the next choice of the balls' solutions
          more = false;
          for (std::size_t b = 0; b < nb && !more; ++b) {
            if (++pick[b] < ball_solutions[b].size()) {
              more = true;
            } else {
              pick[b] = 0;
            }
          }
          o.F.assign(solution.F.data(), solution.F.data() + k);
          o.mode = solution.mode;
          o.indeterminate = solution.indeterminate;
          const double impulse_scale = std::max(l.lpNorm<Eigen::Infinity>(), 1e-300);
          const double rate_tolerance = 1e-10 * std::max(speed, o.x.lpNorm<Eigen::Infinity>());
          o.z = VecX::Zero(nf);
          bool consistent = true;
          for (std::size_t a = 0; a < active.size(); ++a) {
            const double P = l(ne + static_cast<Eigen::Index>(a));
            consistent = consistent && P >= -1e-10 * impulse_scale;
            o.z(active[a]) = std::max(P, 0.0);
          }
          for (int a = 0; a < nf && consistent; ++a)
            if ((mask >> a & 1U) == 0) consistent = p.G.row(a).dot(o.x) >= p.c(a) - rate_tolerance;
          consistent = consistent &&
                       combination.within_pyramids(l, o.x, 1e-10 * impulse_scale, rate_tolerance);
          if (!consistent) continue;
          // a continuum of the joints' motions that Newton's law admits
          if (continuum) {
            motions = true;
            continue;
          }
          // the velocities decide (a dependent side's impulse is not unique)
          const bool seen = std::any_of(found.begin(), found.end(), [&](const Outcome& f) {
            return (f.x - o.x).lpNorm<Eigen::Infinity>() <=
                   1e-9 * std::max(speed, o.x.lpNorm<Eigen::Infinity>());
          });
          if (seen) continue;
          o.l_E = VecX::Zero(nE);
          for (Eigen::Index i = 0; i < ne; ++i)
            o.l_E(kept_slots[static_cast<std::size_t>(i)]) = l(i);
          for (int j = 0; j < k; ++j)
            if (joints[static_cast<std::size_t>(j)].hold_slot >= 0)
              o.l_E(joints[static_cast<std::size_t>(j)].hold_slot) = solution.F(j);
          for (std::size_t b = 0; b < nb; ++b) {
            // a ball's moment impulse in its hold rows' slots (its base's axes)
            const Vec3 components = s.kinematics(balls[b].fj->base).R_WB.transpose() * o.balls[b].M;
            for (int q = 0; q < 3; ++q)
              if (balls[b].hold_slots[static_cast<std::size_t>(q)] >= 0)
                o.l_E(balls[b].hold_slots[static_cast<std::size_t>(q)]) = components(q);
          }
          found.push_back(std::move(o));
        }
      }
    }
  }
  if (motions)
    throw not_built(
        "and Coulomb's law at the joints admits a continuum of motions consistent with the "
        "contacts' Newton law: the rigid model does not determine the motion");
  if (found.size() != 1) {
    if (found.empty() && undetermined)
      throw not_built(
          "and they are not determined (the joints' motions are dependent, or Coulomb's law "
          "admits a continuum of motions)");
    throw SimulationError(
        t, fmt::format("{}: in the impact of contact(s) {}, Coulomb friction at the impulse level "
                       "with the contacts' Newton law has {} consistent solutions (Painleve's "
                       "paradox{}); the rigid model does not determine the motion. Lower mu, or "
                       "model the guides' compliance",
                       needing, sides, found.empty() ? "no" : "several",
                       found.empty() || nr == 0
                           ? ""
                           : ", or friction impulses statically indeterminate: a body pressed "
                             "at several rough points can take them in more than one way, each "
                             "a different motion"));
  }
  Outcome& o = found.front();
  out.x = std::move(o.x);
  out.z = std::move(o.z);
  out.l_E = std::move(o.l_E);
  out.let_go.clear();
  out.friction.clear();
  out.non_unique.clear();
  for (int j = 0; j < k; ++j) {
    const Joint& joint = joints[static_cast<std::size_t>(j)];
    const auto uj = static_cast<std::size_t>(j);
    if (o.indeterminate) out.non_unique.push_back(s.friction_element(*joint.fj).site());
    // a stuck joint set slipping, a slipping one turned round (one stopped is
    // decided after the impact, ElementSwitching::wake)
    const int now = s.forces[static_cast<std::size_t>(joint.fj->force)]->mode();
    if (o.mode[uj] != kStick && (joint.hold_slot >= 0 || o.mode[uj] == -now))
      out.let_go.emplace_back(joint.fj->stick_slip, o.mode[uj]);
    if (o.F[uj] != 0.0)
      out.friction.emplace_back(
          s.friction_element(*joint.fj).name() + (joint.hold_slot >= 0 ? ".stick" : ".slip"),
          o.F[uj]);
  }
  out.ball_axes.clear();
  for (std::size_t b = 0; b < balls.size(); ++b) {
    const Ball& ball = balls[b];
    const BallImpulse& bi = o.balls[b];
    const bool was_stuck = ball.hold_slots[0] >= 0;
    if (bi.stuck && o.ball_indeterminate[b] != 0)
      out.non_unique.push_back(s.friction_element(*ball.fj).site());
    // a stuck ball set slipping lets its hold go; slipping, it follows w+
    // (one stopped is decided after the impact, ElementSwitching::wake)
    if (!bi.stuck) {
      if (was_stuck) out.let_go.emplace_back(ball.fj->stick_slip, kSlipPositive);
      out.ball_axes.emplace_back(ball.fj, bi.w.normalized());
    }
    if (bi.M.norm() > 0.0)
      out.friction.emplace_back(
          s.friction_element(*ball.fj).name() + (was_stuck ? ".stick" : ".slip"), bi.M.norm());
  }
  return true;
}

}  // namespace

bool joint_friction_in_contact_impact(System::Impl& s, double t, const ContactImpactProblem& p,
                                      const std::string& sides,
                                      ContactImpactWithJointFriction& out) {
  try {
    return decide(s, t, p, sides, true, out);
  } catch (const BallNotDecided& not_decided) {
    // as before balls took part: a stuck ball's hold takes its share whole,
    // a slipping one none
    s.warn(
        fmt::format("{}: its friction impulse in a contact impact is not decided ({}; ictus "
                    "decides a ball alone, with frictionless contacts): its stuck hold took "
                    "the impulse whole, or, slipping, it took none",
                    not_decided.ball, not_decided.why));
    return decide(s, t, p, sides, false, out);
  }
}

}  // namespace ictus::internal
