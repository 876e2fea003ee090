// The solutions of the frictional contact problem at one instant, counted by
// exact enumeration (docs/theory/friction.md, "Contact friction", the
// paragraph on det(I - G T)).
//
// The slipping problem of several contacts is solved with every contact
// closed and the stuck tangents held; det(I - G T) > 0 is the condition for
// it to have one solution under every load (Pfeiffer & Glocker 1996, ch. 7).
// Where it fails, the instant may still have exactly one solution: the
// leaning rod of tests/acceptance/contact_friction_test.cpp sliding away with
// mu = 1.3 has det = -0.0403 and one consistent combination. So the
// combinations of this instant are enumerated: each closed contact open
// (N = 0, no friction, its gap accelerating apart) or closed (N >= 0, gap
// acceleration zero); each stuck tangent of a closed contact stuck (|F| <=
// mu_s N, its acceleration zero) or starting to slip either way (F = -s mu N,
// accelerating along s); each slipping tangent keeps its direction (F = -s mu
// N). With the accelerations of the 6n body coordinates
//   x = x_f + P (sum_j G_j^T N_j + sum_h H_h^T F_h + sum_i l_i F_i),
// P the mass-weighted projector onto the motions the other active rows allow
// (as in system_contacts.cpp, Acary & Brogliato 2008, eq. 12.23), each
// combination is one linear system in the closed contacts' N and the stuck
// tangents' F. Stuck forces that are statically indeterminate (dependent
// holds: two corners of one edge held sideways) are searched at the
// minimum-norm point and where one stuck force is at its limit, as in the
// decision at zero rate (system_friction_decision.cpp).
#include "contact_friction_solutions.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <vector>

#include "dense_rows.h"
#include "ictus/forces/reaction_friction.h"

namespace ictus::internal {

namespace {

constexpr int kMaxContacts = 8;
constexpr int kMaxUnknowns = 12;
// combinations enumerated at most (2^contacts 3^free tangents): the count
// runs at every evaluation while det(I - G T) <= 0
constexpr double kMaxCombinations = 5000;
// the count is dense in the body coordinates and the other rows (M^-1 and
// D_E M^-1 D_E^T): beyond these it is not made (memory and time)
constexpr int kMaxBodies = 100;
constexpr std::size_t kMaxOtherRows = 600;

struct Tangent {
  int contact = -1;   // index among the closed contacts
  int hold_row = -1;  // its hold row while stuck, else -1
  int mode = kStick;
  bool free = false;  // stuck, or at zero rate: it may stick or start to slip either way
  double mu = 0.0, mu_static = 0.0;
  VecX slip_column;   // P l: the accelerations per unit friction force
  VecX stick_column;  // P H^T of its hold row while stuck, else P l
};

}  // namespace

ContactFrictionSolutions count_contact_friction_solutions(const System::Impl& s) {
  ContactFrictionSolutions out;
  if (s.inertia_ill_conditioned || s.n > kMaxBodies) return out;
  const int nv = 6 * s.n;

  // the closed contacts and their tangents
  std::vector<int> contact_rows, contact_side;
  for (int k = 0; k < static_cast<int>(s.contact_sides.size()); ++k) {
    const int r = s.contact_row(k);
    if (r < 0) continue;
    if (s.dropped[static_cast<std::size_t>(r)] != 0) return out;
    contact_rows.push_back(r);
    contact_side.push_back(k);
  }
  const int nc = static_cast<int>(contact_rows.size());
  if (nc == 0 || nc > kMaxContacts) return out;
  std::vector<Tangent> tangents;
  std::vector<VecX> slip_loads;
  std::vector<ConstraintRow> rate_rows;  // q'' = D_q u' - gamma_q of each tangent
  std::vector<std::pair<BodyIndex, BodyIndex>> rate_bodies;
  std::vector<BodyLoad> unit_loads(static_cast<std::size_t>(s.n));
  const ForceContext ctx(s.kin, s.t);
  int free_count = 0;
  for (const System::Impl::FrictionJoint& fj : s.friction_joints) {
    if (s.force_enabled[static_cast<std::size_t>(fj.force)] == 0) continue;
    if (fj.contact_side < 0) return out;  // a frictional joint: |N| of a reaction
    const auto at = std::find(contact_side.begin(), contact_side.end(), fj.contact_side);
    if (at == contact_side.end()) continue;  // an open contact has no friction
    const auto& e =
        static_cast<const ReactionFriction&>(*s.forces[static_cast<std::size_t>(fj.force)]);
    Tangent tg;
    tg.contact = static_cast<int>(at - contact_side.begin());
    tg.mode = e.mode();
    tg.mu = e.kinetic_lever();
    tg.mu_static = e.static_lever();
    if (tg.mode == kStick) {
      tg.hold_row = s.hold_row(fj.stick_slip);
      if (tg.hold_row < 0) return out;
    } else if (e.slip_rate(ctx) == 0.0) {
      out.provisional = true;  // at rest, slipping the way of a decision to come
    }
    tg.free = tg.mode == kStick || e.slip_rate(ctx) == 0.0;
    if (tg.free) ++free_count;
    rate_rows.push_back(fj.rate_row);
    rate_bodies.push_back({fj.base, fj.follower});
    for (BodyLoad& l : unit_loads) l = BodyLoad{};
    LoadAccumulator accumulator(unit_loads);
    e.add_slip_load(ctx, accumulator, 1.0);
    slip_loads.push_back(dense_loads(unit_loads));
    tangents.push_back(tg);
  }
  if (nc + free_count > kMaxUnknowns ||
      std::ldexp(std::pow(3.0, free_count), nc) > kMaxCombinations)
    return out;

  // P and the free accelerations x_f, the other active rows condensed out
  std::vector<char> in_problem(s.rows.size(), 0);
  for (const int r : contact_rows) in_problem[static_cast<std::size_t>(r)] = 1;
  for (const Tangent& tg : tangents)
    if (tg.hold_row >= 0) in_problem[static_cast<std::size_t>(tg.hold_row)] = 1;
  std::vector<int> equality;
  for (std::size_t r = 0; r < s.rows.size(); ++r)
    if (s.dropped[r] == 0 && in_problem[r] == 0) equality.push_back(static_cast<int>(r));
  if (equality.size() > kMaxOtherRows) return out;
  const MatX Minv = dense_inverse_mass(s);
  MatX DE(static_cast<Eigen::Index>(equality.size()), nv);
  VecX rE(DE.rows());
  for (std::size_t i = 0; i < equality.size(); ++i) {
    DE.row(static_cast<Eigen::Index>(i)) = dense_row(s, equality[i]).transpose();
    rE(static_cast<Eigen::Index>(i)) = row_stabilised_target(s, equality[i]);
  }
  const MatX MinvDEt = Minv * DE.transpose();
  // (Eigen's decompositions do not take an empty matrix: no other rows)
  Eigen::CompleteOrthogonalDecomposition<MatX> A;
  if (DE.rows() > 0) A.compute(DE * MinvDEt);
  auto condensed = [&](const VecX& rhs) -> VecX {
    return DE.rows() > 0 ? VecX(MinvDEt * A.solve(rhs)) : VecX(VecX::Zero(nv));
  };
  auto project = [&](const VecX& load) -> VecX {
    const VecX free = Minv * load;
    return free - condensed(DE * free);
  };
  const VecX free_acc = Minv * dense_loads(s.loads);
  const VecX x_f = free_acc + condensed(rE - DE * free_acc);

  std::vector<VecX> G(static_cast<std::size_t>(nc)), normal_column(static_cast<std::size_t>(nc));
  std::vector<double> g_target(static_cast<std::size_t>(nc));
  for (int j = 0; j < nc; ++j) {
    const double sign = s.contact_sides[static_cast<std::size_t>(contact_side[j])].sign;
    G[j] = dense_row(s, contact_rows[j], sign);
    g_target[j] = sign * row_stabilised_target(s, contact_rows[j]);
    normal_column[j] = project(G[j]);
  }
  const int nt = static_cast<int>(tangents.size());
  std::vector<VecX> H(static_cast<std::size_t>(nt));
  std::vector<double> h_target(static_cast<std::size_t>(nt), 0.0);
  for (int i = 0; i < nt; ++i) {
    Tangent& tg = tangents[static_cast<std::size_t>(i)];
    tg.slip_column = project(slip_loads[static_cast<std::size_t>(i)]);
    if (!tg.free) continue;
    if (tg.hold_row >= 0) {  // held: its row with its stabilisation
      H[i] = dense_row(s, tg.hold_row);
      h_target[i] = row_stabilised_target(s, tg.hold_row);
      tg.stick_column = project(H[i]);
    } else {  // at zero rate: q'' = 0 from its rate row, the force its slip load
      H[i].resize(nv);
      const auto [base, follower] = rate_bodies[static_cast<std::size_t>(i)];
      const ConstraintRow& row = rate_rows[static_cast<std::size_t>(i)];
      scatter_row(row, base, follower, 1.0, H[i]);
      h_target[i] = row.gamma;
      tg.stick_column = tg.slip_column;
    }
  }

  // tolerances: round-off of the forces and accelerations of this instant
  double force_scale = 1e-300;
  for (const int r : contact_rows) force_scale = std::max(force_scale, std::abs(s.multiplier(r)));
  for (const Tangent& tg : tangents)
    if (tg.hold_row >= 0) force_scale = std::max(force_scale, std::abs(s.multiplier(tg.hold_row)));
  double response = 0.0;
  for (const VecX& c : normal_column) response = std::max(response, c.cwiseAbs().maxCoeff());
  for (const Tangent& tg : tangents)
    response = std::max(response, tg.slip_column.cwiseAbs().maxCoeff() * std::max(tg.mu, 1.0));

  // one combination: contact j closed while bit j of `closed` is set; a
  // stuck tangent's choice 0 stuck, 1 slipping +, 2 slipping -
  std::vector<int> choice(static_cast<std::size_t>(nt), 0);
  std::vector<VecX> found_x, found_n;
  auto solve = [&](unsigned closed, bool& consistent, VecX& x, VecX& normal) {
    consistent = false;
    std::vector<int> closed_index(static_cast<std::size_t>(nc), -1), sticking;
    int v = 0;
    for (int j = 0; j < nc; ++j)
      if ((closed >> j & 1u) != 0) closed_index[static_cast<std::size_t>(j)] = v++;
    for (int i = 0; i < nt; ++i)
      if (tangents[i].free && closed_index[tangents[i].contact] >= 0 && choice[i] == 0)
        sticking.push_back(i);
    const int nclosed = v;
    v += static_cast<int>(sticking.size());
    // x = x_f + X z, z = (N of the closed contacts, F of the sticking tangents)
    MatX X = MatX::Zero(nv, v);
    for (int j = 0; j < nc; ++j) {
      const int c = closed_index[static_cast<std::size_t>(j)];
      if (c >= 0) X.col(c) = normal_column[j];
    }
    for (int i = 0; i < nt; ++i) {
      const Tangent& tg = tangents[i];
      const int c = closed_index[tg.contact];
      if (c < 0) continue;
      const int direction = !tg.free ? tg.mode : choice[i] == 0 ? 0 : choice[i] == 1 ? 1 : -1;
      if (direction != 0) X.col(c) -= direction * tg.mu * tg.slip_column;
    }
    for (std::size_t h = 0; h < sticking.size(); ++h)
      X.col(nclosed + static_cast<int>(h)) = tangents[sticking[h]].stick_column;
    MatX K(v, v);
    VecX rhs(v);
    for (int j = 0; j < nc; ++j) {
      const int c = closed_index[static_cast<std::size_t>(j)];
      if (c < 0) continue;
      K.row(c) = G[j].transpose() * X;
      rhs(c) = g_target[j] - G[j].dot(x_f);
    }
    for (std::size_t h = 0; h < sticking.size(); ++h) {
      const int i = sticking[h], row = nclosed + static_cast<int>(h);
      K.row(row) = H[i].transpose() * X;
      rhs(row) = h_target[i] - H[i].dot(x_f);
    }
    const double acc_scale = std::max(x_f.cwiseAbs().maxCoeff(), response * force_scale);
    const double force_tol = 1e-9 * force_scale, acc_tol = 1e-9 * acc_scale + 1e-300;
    auto holds = [&](const VecX& z) {
      if (!z.allFinite()) return false;
      x = x_f + X * z;
      normal = VecX::Zero(nc);
      for (int j = 0; j < nc; ++j) {
        const int c = closed_index[static_cast<std::size_t>(j)];
        if (c >= 0) {
          normal(j) = z(c);
          if (z(c) < -force_tol) return false;
        } else if (G[j].dot(x) - g_target[j] < -acc_tol) {  // an open gap must not close
          return false;
        }
      }
      for (std::size_t h = 0; h < sticking.size(); ++h) {
        const Tangent& tg = tangents[sticking[h]];
        if (std::abs(z(nclosed + static_cast<int>(h))) >
            tg.mu_static * std::max(normal(tg.contact), 0.0) + force_tol)
          return false;
      }
      for (int i = 0; i < nt; ++i) {
        const Tangent& tg = tangents[i];
        if (!tg.free || choice[i] == 0 || closed_index[tg.contact] < 0) continue;
        const double direction = choice[i] == 1 ? 1.0 : -1.0;
        if (!(direction * (H[i].dot(x) - h_target[i]) > acc_tol)) return false;  // starts to slip
      }
      return true;
    };
    auto solve_rows = [&](const MatX& rows, const VecX& b, VecX& z) {
      const Eigen::CompleteOrthogonalDecomposition<MatX> cod(rows);
      z = cod.solve(b);
      return (rows * z - b).norm() <= 1e-9 * (b.norm() + force_scale * rows.norm());
    };
    if (v == 0) {
      consistent = holds(VecX());
      return;
    }
    const Eigen::FullPivLU<MatX> lu(K);
    VecX z;
    if (lu.isInvertible()) {
      z = lu.solve(rhs);
      consistent = holds(z);
      return;
    }
    if (sticking.empty()) return;  // singular without an indeterminate stuck force
    if (solve_rows(K, rhs, z) && holds(z)) {
      consistent = true;
      return;
    }
    for (std::size_t h = 0; h < sticking.size(); ++h) {
      const Tangent& tg = tangents[sticking[h]];
      for (const double limit : {tg.mu_static, -tg.mu_static}) {
        MatX rows(v + 1, v);
        VecX b(v + 1);
        rows.topRows(v) = K;
        b.head(v) = rhs;
        rows.row(v).setZero();  // F_h = limit N
        rows(v, nclosed + static_cast<int>(h)) = 1.0;
        rows(v, closed_index[tg.contact]) = -limit;
        b(v) = 0.0;
        if (solve_rows(rows, b, z) && holds(z)) {
          consistent = true;
          return;
        }
      }
    }
  };

  std::vector<int> free_tangents;
  for (int i = 0; i < nt; ++i)
    if (tangents[i].free) free_tangents.push_back(i);
  for (unsigned closed = 0; closed < (1u << nc); ++closed) {
    // the stuck tangents of the closed contacts choose; those of open ones have no force
    std::vector<int> choosing;
    for (const int i : free_tangents)
      if ((closed >> tangents[i].contact & 1u) != 0) choosing.push_back(i);
    long ways = 1;
    for (std::size_t c = 0; c < choosing.size(); ++c) ways *= 3;
    for (long w = 0; w < ways; ++w) {
      long rest = w;
      for (const int i : free_tangents) choice[i] = 0;
      for (const int i : choosing) {
        choice[i] = static_cast<int>(rest % 3);
        rest /= 3;
      }
      bool consistent = false;
      VecX x, normal;
      solve(closed, consistent, x, normal);
      if (!consistent) continue;
      if (closed == (1u << nc) - 1u && w == 0) out.current = true;
      bool seen = false;
      for (std::size_t k = 0; k < found_x.size() && !seen; ++k)
        seen = (found_x[k] - x).norm() <= 1e-8 * (1.0 + x.norm()) &&
               (found_n[k] - normal).norm() <= 1e-8 * (force_scale + normal.norm());
      if (seen) continue;
      bool same_motion = false;
      for (std::size_t k = 0; k < found_x.size() && !same_motion; ++k)
        same_motion = (found_x[k] - x).norm() <= 1e-8 * (1.0 + x.norm());
      if (!same_motion) ++out.motions;
      found_x.push_back(x);
      found_n.push_back(normal);
    }
  }
  out.counted = true;
  out.consistent = static_cast<int>(found_x.size());
  return out;
}

}  // namespace ictus::internal
