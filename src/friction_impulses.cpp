#include "friction_impulses.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "root_finding.h"
#include "spatial_slip.h"

namespace ictus::internal {

namespace {

// round-off of the consistency tests, relative to the problem's impulses and rates
constexpr double kTolerance = 1e-10;
// a combination's system, its rows scaled to 1, is singular below this pivot
constexpr double kRankThreshold = 1e-10;
// distinct solutions kept (a caller may test each further: Newton's law at
// the contacts of a contact impact)
constexpr std::size_t kMaxSolutions = 8;

}  // namespace

int slip_normal(const Eigen::Vector3d& f0, const Eigen::Vector3d& t, double mu, int s,
                double* normal, double* second) {
  const double a = 1.0 - mu * mu * t.squaredNorm();
  const double b = 2.0 * s * mu * f0.dot(t);
  const double c = -f0.squaredNorm();
  if (a > 0.0) {
    // one root of each sign (c <= 0): the non-negative one, without cancellation
    const double root = std::sqrt(b * b - 4.0 * a * c);
    *normal = b <= 0.0 ? (-b + root) / (2.0 * a) : (-2.0 * c) / (b + root);
    return 1;
  }
  if (a == 0.0) {
    if (c == 0.0) {
      *normal = 0.0;
      return 1;
    }
    if (b > 0.0) {
      *normal = -c / b;
      return 1;
    }
    return 0;
  }
  const double d = b * b - 4.0 * a * c;
  if (d < 0.0) return 0;
  const double root = std::sqrt(d);
  const double r1 = (-b + root) / (2.0 * a);
  const double r2 = (-b - root) / (2.0 * a);
  int count = 0;
  for (const double r : {r1, r2})
    if (r >= 0.0) {
      if (count == 0) *normal = r;
      if (count == 1 && second != nullptr) *second = r;
      ++count;
    }
  if (count == 2 && r1 == r2) count = 1;
  return count;
}

void FrictionImpulses::start(int count) {
  if (count < 1) throw std::logic_error("FrictionImpulses: no joint");
  count_ = count;
  const auto k = static_cast<Eigen::Index>(count);
  v0_.setZero(k);
  mu_.setZero(k);
  C_.setZero(k, k);
  P0_.assign(static_cast<std::size_t>(count), Eigen::Vector3d::Zero());
  R_.assign(static_cast<std::size_t>(count * count), Eigen::Vector3d::Zero());
  off_line_ = -1;
  off_line_why_.clear();
  solutions_.clear();
}

void FrictionImpulses::set_joint(int i, double rate, const Eigen::Vector3d& normal, double mu) {
  v0_(i) = rate;
  P0_[static_cast<std::size_t>(i)] = normal;
  mu_(i) = mu;
}

void FrictionImpulses::set_response(int i, int j, double rate, const Eigen::Vector3d& normal) {
  C_(i, j) = rate;
  R_[static_cast<std::size_t>(i * count_ + j)] = normal;
}

FrictionImpulses::Outcome FrictionImpulses::solve() {
  return count_ == 1 ? solve_one() : solve_several();
}

// One joint: the stuck impulse -v0 / c, and per direction the roots of the
// slip quadratic (P in space); the consistent ones are counted.
FrictionImpulses::Outcome FrictionImpulses::solve_one() {
  const double v0 = v0_(0), c = C_(0, 0), mu = mu_(0);
  const Eigen::Vector3d& P0 = P0_[0];
  const Eigen::Vector3d& R = R_[0];
  std::vector<std::pair<double, int>> candidates;  // (F, mode)
  // stuck: v = 0 (with c = 0 the impulse moves nothing and v = v0)
  const double hold = c > 0.0 ? -v0 / c : 0.0;
  const double impulse_scale = std::max({P0.norm(), std::abs(hold), 1e-300});
  const double rate_scale = std::max(std::abs(v0), 1e-300);
  if ((c > 0.0 || v0 == 0.0) &&
      std::abs(hold) <= mu * (P0 + hold * R).norm() + kTolerance * impulse_scale)
    candidates.emplace_back(hold, 0);
  for (const int s : {1, -1}) {
    std::array<double, 2> roots{};
    const int found = slip_normal(P0, R, mu, s, &roots[0], &roots[1]);
    for (int r = 0; r < found; ++r) {
      const double F = -s * mu * roots[static_cast<std::size_t>(r)];
      // (overlapping the stuck test at v = 0: a boundary solution is found
      // twice, and merged below)
      if (s * (v0 + c * F) >= -kTolerance * std::max(rate_scale, std::abs(c * F)))
        candidates.emplace_back(F, s);
    }
  }
  // distinct by the rate they leave, v = v0 + c F (with c = 0 every F gives
  // v0: the impulse is then one choice among many)
  solutions_.clear();
  for (const auto& [F, mode] : candidates) {
    const double v = v0 + c * F;
    bool seen = false;
    for (Solution& kept : solutions_)
      if (std::abs(v0 + c * kept.F(0) - v) <= 1e-8 * std::max(rate_scale, std::abs(c * F))) {
        seen = true;
        kept.indeterminate = kept.indeterminate ||
                             std::abs(F - kept.F(0)) > 1e-8 * std::max(impulse_scale, std::abs(F));
      }
    if (!seen) solutions_.push_back({Eigen::VectorXd::Constant(1, F), {mode}, false});
  }
  return outcome();
}

FrictionImpulses::Outcome FrictionImpulses::outcome() const {
  if (solutions_.empty()) return Outcome::kNone;
  return solutions_.size() == 1 ? Outcome::kSolved : Outcome::kSeveral;
}

// Several joints: each joint's P on its line e_i (y_i = e_i . P_i), then
// every combination of stuck / slipping either way, and of the slipping
// joints' sides sigma_i = sgn(y_i), as one linear system:
//   stuck i:          (C F)_i = -v0_i
//   slipping i (s):   F_i + s mu_i sigma_i (T F)_i = -s mu_i sigma_i y0_i
// (5^k systems for k joints).
FrictionImpulses::Outcome FrictionImpulses::solve_several() {
  const int k = count_;
  const auto kk = static_cast<Eigen::Index>(k);
  Eigen::VectorXd y0(kk);
  Eigen::MatrixXd T(kk, kk);
  double impulse_scale = 1e-300;
  for (int i = 0; i < k; ++i) {
    const Eigen::Vector3d& P0 = P0_[static_cast<std::size_t>(i)];
    Eigen::Vector3d line = P0;
    double scale = P0.norm();
    for (int j = 0; j < k; ++j) {
      const Eigen::Vector3d& Rij = R_[static_cast<std::size_t>(i * k + j)];
      if (Rij.norm() > line.norm()) line = Rij;
      scale = std::max(scale, Rij.norm());
    }
    if (!(line.norm() > 0.0)) line = Eigen::Vector3d::UnitX();
    line.normalize();
    y0(i) = line.dot(P0);
    bool on_line = (P0 - y0(i) * line).norm() <= kOffLineFraction * std::max(scale, 1e-300);
    for (int j = 0; j < k; ++j) {
      const Eigen::Vector3d& Rij = R_[static_cast<std::size_t>(i * k + j)];
      T(i, j) = line.dot(Rij);
      on_line =
          on_line && (Rij - T(i, j) * line).norm() <= kOffLineFraction * std::max(scale, 1e-300);
    }
    if (!on_line) {
      off_line_ = i;
      return solve_spatial();
    }
    impulse_scale = std::max(impulse_scale, std::abs(y0(i)));
  }
  const double rate_scale = std::max(v0_.lpNorm<Eigen::Infinity>(), 1e-300);

  std::vector<Solution> found;
  bool singular = false;
  // a combination whose consistent impulses form a line along which the
  // joints' rates change: a continuum of motions, the motion not determined
  // (a point of each kept)
  std::vector<Solution> continuum;
  Eigen::MatrixXd A(kk, kk);
  Eigen::VectorXd b(kk);
  std::vector<int> mode(static_cast<std::size_t>(k), 0);  // 0 stuck, 1 +, 2 -
  std::vector<int> sigma(static_cast<std::size_t>(k), 1);
  // Coulomb's law on F in the current combination, each joint's rate to
  // its own scale (a joint that takes much to move beside a fast one)
  auto consistent = [&](const Eigen::VectorXd& F) {
    const Eigen::VectorXd v = v0_ + C_ * F;
    const Eigen::VectorXd y = y0 + T * F;
    const double p_tol = kTolerance * std::max(impulse_scale, F.lpNorm<Eigen::Infinity>());
    for (int i = 0; i < k; ++i) {
      const auto ui = static_cast<std::size_t>(i);
      if (mode[ui] == 0) {
        if (!(std::abs(F(i)) <= mu_(i) * std::abs(y(i)) + p_tol)) return false;
      } else {
        const double s = mode[ui] == 1 ? 1.0 : -1.0;
        const double v_tol =
            kTolerance *
            std::max({std::abs(v0_(i)), C_.row(i).cwiseAbs().dot(F.cwiseAbs()), 1e-300});
        // (overlapping the stuck test at v = 0: merged below)
        if (!(s * v(i) >= -v_tol && sigma[ui] * y(i) >= -p_tol)) return false;
      }
    }
    return true;
  };
  // A singular system with one degree of freedom left (stuck joints of one
  // motion): F = F_p + t n, every test linear in t on each side of y; a
  // consistent t, if any, is at a zero of one of them or between two.
  // Where n changes the joints' rates, a consistent t between zeros (or
  // beyond them) has consistent neighbours: a continuum of motions; one
  // only at a zero is a point, one motion.
  enum class Line { kNone, kPoint, kOneMotion, kMotions };
  auto search_line = [&](const Eigen::FullPivLU<Eigen::MatrixXd>& lu, Eigen::VectorXd& F) -> Line {
    if (lu.rank() != k - 1) return Line::kNone;
    const Eigen::VectorXd Fp = lu.solve(b);
    if ((A * Fp - b).lpNorm<Eigen::Infinity>() >
        1e-10 * std::max(b.lpNorm<Eigen::Infinity>(),
                         A.cwiseAbs().rowwise().sum().maxCoeff() * Fp.lpNorm<Eigen::Infinity>()))
      return Line::kNone;  // the targets contradict each other
    const Eigen::VectorXd n = lu.kernel().col(0);
    // the free direction must leave the joints' rates, hence every body's
    // velocity, as they are (stuck joints of one motion); where it changes
    // them (a slipping joint's normal moved by a locked one), the motion is
    // not determined (each joint's rate to its own row's scale)
    const Eigen::VectorXd dv = C_ * n;
    bool changes_rates = false;
    for (int i = 0; i < k; ++i)
      changes_rates =
          changes_rates || std::abs(dv(i)) > 1e-8 * C_.row(i).cwiseAbs().dot(n.cwiseAbs());
    std::vector<double> zeros;
    auto zero_of = [&zeros](double at0, double slope) {
      if (slope != 0.0) zeros.push_back(-at0 / slope);
    };
    const Eigen::VectorXd vp = v0_ + C_ * Fp, vn = C_ * n;
    const Eigen::VectorXd yp = y0 + T * Fp, yn = T * n;
    for (int i = 0; i < k; ++i) {
      for (const double side : {1.0, -1.0}) {
        zero_of(side * mu_(i) * yp(i) - Fp(i), side * mu_(i) * yn(i) - n(i));
        zero_of(side * mu_(i) * yp(i) + Fp(i), side * mu_(i) * yn(i) + n(i));
      }
      zero_of(vp(i), vn(i));
      zero_of(yp(i), yn(i));
    }
    std::sort(zeros.begin(), zeros.end());
    // (t, whether it is a zero): the particular solution, then the interior
    // points, then the zeros
    std::vector<std::pair<double, bool>> trials{
        {0.0, std::find(zeros.begin(), zeros.end(), 0.0) != zeros.end()}};
    for (std::size_t z = 0; z + 1 < zeros.size(); ++z)
      if (zeros[z + 1] > zeros[z]) trials.emplace_back(0.5 * (zeros[z] + zeros[z + 1]), false);
    if (!zeros.empty()) {
      trials.emplace_back(zeros.front() - 1.0 - std::abs(zeros.front()), false);
      trials.emplace_back(zeros.back() + 1.0 + std::abs(zeros.back()), false);
    }
    for (const double z : zeros) trials.emplace_back(z, true);
    for (const auto& [t, at_zero] : trials) {
      F = Fp + t * n;
      if (!consistent(F)) continue;
      if (!changes_rates) return Line::kOneMotion;
      return at_zero ? Line::kPoint : Line::kMotions;
    }
    return Line::kNone;
  };
  for (;;) {
    std::vector<int> slipping;
    for (int i = 0; i < k; ++i)
      if (mode[static_cast<std::size_t>(i)] != 0) slipping.push_back(i);
    const unsigned sides = 1U << slipping.size();
    for (unsigned side_bits = 0; side_bits < sides; ++side_bits) {
      A.setZero();
      std::fill(sigma.begin(), sigma.end(), 1);
      for (std::size_t q = 0; q < slipping.size(); ++q)
        sigma[static_cast<std::size_t>(slipping[q])] = (side_bits >> q & 1U) != 0 ? -1 : 1;
      for (int i = 0; i < k; ++i) {
        const auto ui = static_cast<std::size_t>(i);
        if (mode[ui] == 0) {
          A.row(i) = C_.row(i);
          b(i) = -v0_(i);
        } else {
          const double s = mode[ui] == 1 ? 1.0 : -1.0;
          const double g = s * mu_(i) * sigma[ui];
          A.row(i) = g * T.row(i);
          A(i, i) += 1.0;
          b(i) = -g * y0(i);
        }
      }
      // rows of C and of I + g T differ in scale: each row scaled to 1, so
      // that the rank threshold judges them alike
      for (int i = 0; i < k; ++i) {
        const double row_scale = A.row(i).cwiseAbs().maxCoeff();
        if (row_scale > 0.0) {
          A.row(i) /= row_scale;
          b(i) /= row_scale;
        }
      }
      Eigen::FullPivLU<Eigen::MatrixXd> lu(A.rows(), A.cols());
      lu.setThreshold(kRankThreshold);
      lu.compute(A);
      Eigen::VectorXd F(kk);
      bool on_line = false;
      if (lu.isInvertible()) {
        F = lu.solve(b);
        if (!consistent(F)) continue;
      } else {
        const Line line = search_line(lu, F);
        if (line == Line::kMotions) {
          // kept for a caller that puts it to further laws (a contact impact)
          std::vector<int> decided(static_cast<std::size_t>(k));
          for (std::size_t i = 0; i < decided.size(); ++i)
            decided[i] = mode[i] == 0 ? 0 : mode[i] == 1 ? 1 : -1;
          continuum.push_back({F, decided, false});
          continue;
        }
        if (line == Line::kNone) {
          singular = singular || lu.rank() < k - 1;
          continue;
        }
        on_line = line == Line::kOneMotion;
      }
      // the velocities decide: equal joint rates, C dF = 0, leave every
      // body's velocity equal (C is the friction directions' Delassus matrix)
      const Eigen::VectorXd v = v0_ + C_ * F;
      const bool seen = std::any_of(found.begin(), found.end(), [&](const Solution& c) {
        return (v0_ + C_ * c.F - v).lpNorm<Eigen::Infinity>() <=
               1e-8 * std::max(rate_scale, (C_ * F).lpNorm<Eigen::Infinity>());
      });
      if (seen) continue;
      std::vector<int> decided(static_cast<std::size_t>(k));
      for (std::size_t i = 0; i < decided.size(); ++i)
        decided[i] = mode[i] == 0 ? 0 : mode[i] == 1 ? 1 : -1;
      found.push_back({F, decided, on_line});
      if (found.size() >= kMaxSolutions) break;
    }
    if (found.size() >= kMaxSolutions) break;
    // the next combination of the cases (base 3)
    int i = 0;
    while (i < k && mode[static_cast<std::size_t>(i)] == 2) mode[static_cast<std::size_t>(i++)] = 0;
    if (i == k) break;
    ++mode[static_cast<std::size_t>(i)];
  }
  if (!continuum.empty()) {
    solutions_ = std::move(continuum);
    return Outcome::kDependent;
  }
  if (found.empty()) return singular ? Outcome::kDependent : Outcome::kNone;
  solutions_ = std::move(found);
  return outcome();
}

// Several joints, a reaction impulse off its line: every joint's normal is
// |P_i|. In each combination of the cases the stuck rows (C F)_i = -v0_i
// are linear, so with the slipping joints' impulses given, F and every P_i
// are affine in them, and the slipping joints' law F_i = -s_i mu_i |P_i(F)|
// is the fixed point of spatial_slip.h: one solution where it is a
// contraction. A combination beyond that leaves the impact undecided
// (kOffLine). A singular one with every joint stuck and one free direction
// n (stuck joints of one motion: a mechanism the impact locks) is searched
// along it, F = F_p + t n: the rates do not change with t (C n = 0), and
// each joint's law |F_i| <= mu_i |P_i| changes sign only at the roots of
// the quadratic F_i(t)^2 - mu_i^2 |P_i(t)|^2, so the roots and the points
// between and beyond them are every case to try (the impulses found are
// then one choice among many). Other singular combinations are not
// searched (kDependent), even where another combination is consistent.
FrictionImpulses::Outcome FrictionImpulses::solve_spatial() {
  const int k = count_;
  const auto kk = static_cast<Eigen::Index>(k);
  double impulse_scale = 1e-300;
  for (const Eigen::Vector3d& P0 : P0_) impulse_scale = std::max(impulse_scale, P0.norm());
  const double rate_scale = std::max(v0_.lpNorm<Eigen::Infinity>(), 1e-300);
  // sum_j R_ij F_j, and P_i
  auto response = [&](int i, const Eigen::VectorXd& F) {
    Eigen::Vector3d P = Eigen::Vector3d::Zero();
    for (int j = 0; j < k; ++j) P += R_[static_cast<std::size_t>(i * k + j)] * F(j);
    return P;
  };
  auto normal = [&](int i, const Eigen::VectorXd& F) {
    return Eigen::Vector3d(P0_[static_cast<std::size_t>(i)] + response(i, F));
  };
  std::vector<int> mode(static_cast<std::size_t>(k), 0);  // 0 stuck, 1 +, 2 -
  auto consistent = [&](const Eigen::VectorXd& F) {
    const Eigen::VectorXd v = v0_ + C_ * F;
    const double p_tol = kTolerance * std::max(impulse_scale, F.lpNorm<Eigen::Infinity>());
    for (int i = 0; i < k; ++i) {
      const int m = mode[static_cast<std::size_t>(i)];
      if (m == 0) {
        if (!(std::abs(F(i)) <= mu_(i) * normal(i, F).norm() + p_tol)) return false;
        continue;
      }
      const double s = m == 1 ? 1.0 : -1.0;
      const double v_tol =
          kTolerance * std::max({std::abs(v0_(i)), C_.row(i).cwiseAbs().dot(F.cwiseAbs()), 1e-300});
      if (!(s * v(i) >= -v_tol)) return false;
    }
    return true;
  };
  std::vector<Solution> found;
  bool singular = false;
  Eigen::MatrixXd A(kk, kk);
  Eigen::VectorXd b(kk);
  // every joint stuck, A singular with one free direction: a consistent
  // point of the line of solutions, if any, in F
  auto search_stuck_line = [&](const Eigen::FullPivLU<Eigen::MatrixXd>& lu,
                               Eigen::VectorXd& F) -> bool {
    if (lu.rank() != k - 1) return false;
    const Eigen::VectorXd Fp = lu.solve(b);
    if ((A * Fp - b).lpNorm<Eigen::Infinity>() >
        1e-10 * std::max(b.lpNorm<Eigen::Infinity>(),
                         A.cwiseAbs().rowwise().sum().maxCoeff() * Fp.lpNorm<Eigen::Infinity>()))
      return false;  // the targets contradict each other
    const Eigen::VectorXd n = lu.kernel().col(0);
    std::vector<double> roots;
    for (int i = 0; i < k; ++i) {
      const Eigen::Vector3d Pp = normal(i, Fp), Pn = response(i, n);
      const double mu2 = mu_(i) * mu_(i);
      append_quadratic_roots(n(i) * n(i) - mu2 * Pn.squaredNorm(),
                             2.0 * (Fp(i) * n(i) - mu2 * Pp.dot(Pn)),
                             Fp(i) * Fp(i) - mu2 * Pp.squaredNorm(), roots);
    }
    for (const double t : line_trials(roots)) {
      F = Fp + t * n;
      if (consistent(F)) return true;
    }
    return false;
  };
  for (;;) {
    std::vector<int> slipping;
    for (int i = 0; i < k; ++i) {
      if (mode[static_cast<std::size_t>(i)] == 0) {
        A.row(i) = C_.row(i);
        b(i) = -v0_(i);
      } else {  // F_i given: zero for the affine map's base
        A.row(i).setZero();
        A(i, i) = 1.0;
        b(i) = 0.0;
        slipping.push_back(i);
      }
      const double row_scale = A.row(i).cwiseAbs().maxCoeff();
      if (row_scale > 0.0) {
        A.row(i) /= row_scale;
        b(i) /= row_scale;
      }
    }
    Eigen::FullPivLU<Eigen::MatrixXd> lu(kk, kk);
    lu.setThreshold(kRankThreshold);
    lu.compute(A);
    if (!lu.isInvertible() && slipping.empty()) {
      Eigen::VectorXd F(kk);
      if (lu.rank() != k - 1) {
        singular = true;
      } else if (search_stuck_line(lu, F)) {
        // one motion (C n = 0); the first consistent point counts for it
        const Eigen::VectorXd v = v0_ + C_ * F;
        const bool seen = std::any_of(found.begin(), found.end(), [&](const Solution& c) {
          return (v0_ + C_ * c.F - v).lpNorm<Eigen::Infinity>() <=
                 1e-8 * std::max(rate_scale, (C_ * F).lpNorm<Eigen::Infinity>());
        });
        if (!seen) found.push_back({F, std::vector<int>(static_cast<std::size_t>(k), 0), true});
        if (found.size() >= kMaxSolutions) break;
      }
    } else if (!lu.isInvertible()) {
      singular = true;
    } else {
      const Eigen::VectorXd base = lu.solve(b);
      const auto m = static_cast<int>(slipping.size());
      Eigen::MatrixXd unit(kk, m);  // F per unit impulse of each slipping joint
      for (int c = 0; c < m; ++c) {
        const int i = slipping[static_cast<std::size_t>(c)];
        Eigen::VectorXd rhs = Eigen::VectorXd::Zero(kk);
        rhs(i) = 1.0 / A(i, i);  // the row as scaled
        unit.col(c) = lu.solve(rhs);
      }
      Eigen::VectorXd F = base;
      if (m > 0) {
        SpatialSlip set;
        set.reserve(m);
        set.start(m);
        for (int a = 0; a < m; ++a) {
          const int i = slipping[static_cast<std::size_t>(a)];
          const double s = mode[static_cast<std::size_t>(i)] == 1 ? 1.0 : -1.0;
          set.set_element(a, normal(i, base), -s * mu_(i), true);
          for (int c = 0; c < m; ++c) set.set_response(a, c, response(i, unit.col(c)));
        }
        const SpatialSlip::Result result = set.solve();
        if (!result.solved) {
          off_line_why_ = result.why_not_solved();
          return Outcome::kOffLine;
        }
        for (int c = 0; c < m; ++c) F += set.force(c) * unit.col(c);
      }
      if (consistent(F)) {
        const Eigen::VectorXd v = v0_ + C_ * F;
        const bool seen = std::any_of(found.begin(), found.end(), [&](const Solution& c) {
          return (v0_ + C_ * c.F - v).lpNorm<Eigen::Infinity>() <=
                 1e-8 * std::max(rate_scale, (C_ * F).lpNorm<Eigen::Infinity>());
        });
        if (!seen) {
          std::vector<int> decided(static_cast<std::size_t>(k));
          for (std::size_t i = 0; i < decided.size(); ++i)
            decided[i] = mode[i] == 0 ? 0 : mode[i] == 1 ? 1 : -1;
          found.push_back({F, decided, false});
          if (found.size() >= kMaxSolutions) break;
        }
      }
    }
    // the next combination of the cases (base 3)
    int i = 0;
    while (i < k && mode[static_cast<std::size_t>(i)] == 2) mode[static_cast<std::size_t>(i++)] = 0;
    if (i == k) break;
    ++mode[static_cast<std::size_t>(i)];
  }
  if (singular) return Outcome::kDependent;
  if (found.empty()) return Outcome::kNone;
  solutions_ = std::move(found);
  return outcome();
}

std::vector<BallImpulse> ball_friction_impulses(const Eigen::Vector3d& w0, const Eigen::Matrix3d& C,
                                                const Eigen::Vector3d& P0, const Eigen::Matrix3d& R,
                                                double mu, bool* indeterminate,
                                                double free_response) {
  *indeterminate = false;
  std::vector<BallImpulse> found;
  // C = V diag(lambda) V^T; M stays in C's range (w0 is there: it is a rate
  // the mechanism allows)
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eigen(0.5 * (C + C.transpose()));
  const Eigen::Vector3d lambda = eigen.eigenvalues();
  const Eigen::Matrix3d& V = eigen.eigenvectors();
  const double largest = std::max(lambda.cwiseAbs().maxCoeff(), free_response);
  if (!std::isfinite(largest)) return found;  // not solved
  const Eigen::Vector3d a = V.transpose() * w0;
  Eigen::Vector3d in_range = Eigen::Vector3d::Zero();
  double range_sum = 0.0;
  for (int k = 0; k < 3; ++k)
    if (lambda(k) > kRankThreshold * largest) {
      in_range(k) = 1.0;
      range_sum += lambda(k);
    }
  *indeterminate = in_range.sum() < 3.0;
  if (range_sum == 0.0) {
    // locked whole by the mechanism: held, whatever moment within the cone
    found.push_back({Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), true});
    return found;
  }
  auto moment = [&](double kappa) {  // M(kappa); kappa infinite: the holding impulse
    Eigen::Vector3d m = Eigen::Vector3d::Zero();
    for (int k = 0; k < 3; ++k)
      if (in_range(k) != 0.0)
        m(k) = std::isinf(kappa) ? -a(k) / lambda(k) : -kappa / (1.0 + kappa * lambda(k)) * a(k);
    return Eigen::Vector3d(V * m);
  };
  auto phi = [&](const Eigen::Vector3d& M) { return M.norm() - mu * (P0 + R * M).norm(); };
  const Eigen::Vector3d held = moment(std::numeric_limits<double>::infinity());
  const double scale = held.norm() + mu * (P0.norm() + R.norm() * held.norm());
  const double rate_scale = w0.norm();
  // every solution is told apart by its w+
  auto add = [&](const Eigen::Vector3d& M, bool stuck) {
    const Eigen::Vector3d w = stuck ? Eigen::Vector3d::Zero() : Eigen::Vector3d(w0 + C * M);
    for (const BallImpulse& b : found)
      if ((b.w - w).norm() <= 1e-9 * rate_scale) return;
    found.push_back({M, w, stuck});
  };
  // stuck: the holding impulse within the cone
  if (phi(held) <= kTolerance * scale) add(held, true);
  if (rate_scale == 0.0) return found;  // at rest, nothing to hold: M = 0
  // a ball without a reaction impulse slips free (M = 0, within the cone's tip)
  if (mu * P0.norm() <= kTolerance * scale) add(Eigen::Vector3d::Zero(), false);
  // slipping: the roots of phi in u = ln(kappa mean(lambda)); from 1e-20 to
  // 1e20 a factor 10 between samples
  const double kappa_scale = in_range.sum() / range_sum;
  internal::bracketed_roots(
      -46.0, 46.0, 41, 1e-12, [&](double u) { return phi(moment(kappa_scale * std::exp(u))); },
      [&](double u) {
        const double kappa = kappa_scale * std::exp(u);
        add(moment(kappa), false);
      });
  return found;
}

}  // namespace ictus::internal
