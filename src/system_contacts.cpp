// Unilateral contacts, the System's side (docs/theory/contact.md): each side
// of a joint limit is a row held closed, while it is, by a driver row without
// formulas at the limit (like a stuck element's hold, system_stick_slip.cpp);
// the impact and the acceleration-level contact problem are linear
// complementarity problems over the contact rows, with the active equality
// rows condensed out (Acary & Brogliato 2008, sec. 12.1; Pfeiffer & Glocker
// 1996, ch. 6), solved by siconos-numerics (contact/lcp.h).
#include <fmt/format.h>

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "contact/friction_pyramid.h"
#include "contact/lcp.h"
#include "contact/pivoting_lcp.h"
#include "contact_impact_joint_friction.h"
#include "dense_rows.h"
#include "ictus/constraints/rotation_lock.h"
#include "ictus/forces/reaction_friction.h"
#include "ictus/shape_contact_points.h"
#include "ictus/system.h"
#include "system_impl.h"

namespace ictus {

void System::Impl::build_contact_holds() {
  using Coordinate = JointLimitContact::Coordinate;
  for (std::size_t c = 0; c < model.contacts().size(); ++c) {
    const JointLimitContact& contact = model.contacts()[c];
    const int j = model.find_joint(contact.joint);
    const Joint& joint = live_joints[static_cast<std::size_t>(j)];
    const bool angle = contact.coordinate == Coordinate::kAngle;
    const bool two_sided = contact.lower && contact.upper;
    for (const auto& [limit, sign, suffix] :
         {std::tuple{contact.lower, 1.0, ".lower"}, {contact.upper, -1.0, ".upper"}}) {
      if (!limit) continue;
      ContactSide side;
      side.contact = static_cast<int>(c);
      side.sign = sign;
      side.limit = *limit;
      side.name = two_sided ? contact.name + suffix : contact.name;
      side.restitution = contact.restitution;
      side.accumulation_time = contact.accumulation_time;
      DriverRuntime rt;
      rt.hold_contact = static_cast<int>(contact_sides.size());
      rt.joint = j;
      Instance inst;
      inst.joint = j;
      inst.label = side.name;
      inst.driver = static_cast<int>(drivers.size());
      inst.enabled = 0;  // open until the Simulation closes it
      hold_joint_coordinate(joint, angle, rt, inst);
      rt.held = side.limit - rt.offset;  // the hold row holds the coordinate at the limit
      rt.instance = static_cast<int>(instances.size());
      joint_instances[static_cast<std::size_t>(j)].push_back(rt.instance);
      instances.push_back(std::move(inst));
      side.driver = static_cast<int>(drivers.size());
      drivers.push_back(std::move(rt));
      contact_sides.push_back(std::move(side));
    }
  }
  build_shape_contact_holds();
  contact_impulses.assign(contact_sides.size(), 0.0);
}

// Contact points of two shapes (shape_contact_points.h: the gap and its
// row) as rows of the free instances, like a stick/slip element's distance
// hold: the hold row's position error at the held value is the gap.
void System::Impl::build_shape_contact_holds() {
  int surface_count = 0;
  for (const ShapeContact& contact : model.shape_contacts()) {
    const std::vector<ShapeContactPoint> points = shape_contact_points(
        model.shapes(), model.body_index(contact.body_a), model.body_index(contact.body_b));
    for (std::size_t p = 0; p < points.size(); ++p) {
      ContactSide side;
      side.name = shape_contact_side_name(contact.name, p, points.size());
      const bool same_plane = p > 0 && points[p].on_plane && points[p - 1].on_plane &&
                              points[p].base == points[p - 1].base &&
                              points[p].follower == points[p - 1].follower &&
                              points[p].plane_point_B == points[p - 1].plane_point_B &&
                              points[p].plane_normal_B == points[p - 1].plane_normal_B;
      side.surface = same_plane ? contact_sides.back().surface : surface_count++;
      side.restitution = contact.restitution;
      side.accumulation_time = contact.accumulation_time;
      side.limit = points[p].held;
      DriverRuntime rt;
      rt.hold_contact = static_cast<int>(contact_sides.size());
      rt.coordinate = Driver::Coordinate::kTranslation;
      rt.held = points[p].held;
      Instance inst;
      inst.label = side.name;
      inst.driver = static_cast<int>(drivers.size());
      inst.enabled = 0;
      inst.base = points[p].base;
      inst.follower = points[p].follower;
      inst.constraint = points[p].constraint;
      rt.instance = static_cast<int>(instances.size());
      free_instances.push_back(rt.instance);
      instances.push_back(std::move(inst));
      side.driver = static_cast<int>(drivers.size());
      drivers.push_back(std::move(rt));
      contact_sides.push_back(std::move(side));
    }
  }
}

void System::Impl::register_contact_channels() {
  using Coordinate = JointLimitContact::Coordinate;
  for (std::size_t k = 0; k < contact_sides.size(); ++k) {
    const ContactSide& side = contact_sides[k];
    const bool angle =
        side.contact >= 0 &&
        model.contacts()[static_cast<std::size_t>(side.contact)].coordinate == Coordinate::kAngle;
    const int i = static_cast<int>(k);
    add_channel(side.name + ".gap", angle ? "rad" : "m", Stage::kKinematics,
                "gap of the contact (>= 0 admissible)", [this, i] { return contact_gap(i); });
    add_channel(side.name + ".gap_rate", angle ? "rad/s" : "m/s", Stage::kKinematics,
                "rate of the gap (negative: approaching)",
                [this, i] { return contact_gap_rate(i); });
    add_channel(
        side.name + ".normal", angle ? "N m" : "N", Stage::kDynamics,
        "normal force of the contact (compressive positive; zero while open)", [this, i] {
          if (time_stepping) return step_impulses[static_cast<std::size_t>(i)] / time_step;
          const int row = contact_row(i);
          return row < 0 ? 0.0 : contact_sides[static_cast<std::size_t>(i)].sign * multiplier(row);
        });
    add_channel(side.name + ".impulse", angle ? "N m s" : "N s", Stage::kKinematics,
                "normal impulse of the contact at the instant of its last impact (zero otherwise)",
                [this, i] {
                  if (time_stepping) return step_impulses[static_cast<std::size_t>(i)];
                  return t == last_contact_impact_time
                             ? contact_impulses[static_cast<std::size_t>(i)]
                             : 0.0;
                });
    add_channel(
        side.name + ".state", "", Stage::kKinematics, "1 while closed, 0 while open", [this, i] {
          if (time_stepping) return step_impulses[static_cast<std::size_t>(i)] > 0.0 ? 1.0 : 0.0;
          const DriverRuntime& d =
              drivers[static_cast<std::size_t>(contact_sides[static_cast<std::size_t>(i)].driver)];
          return instances[static_cast<std::size_t>(d.instance)].enabled != 0 ? 1.0 : 0.0;
        });
  }
}

int System::Impl::contact_row(int side) const {
  const DriverRuntime& d =
      drivers[static_cast<std::size_t>(contact_sides[static_cast<std::size_t>(side)].driver)];
  return instance_row[static_cast<std::size_t>(d.instance)];
}

namespace {
// The row of a shape contact point with its position error (the gap) at the
// evaluated kinematics.
ConstraintRow shape_row(const System::Impl& s, const System::Impl::DriverRuntime& d) {
  const System::Impl::Instance& inst = s.instances[static_cast<std::size_t>(d.instance)];
  ConstraintRow row;
  const ConstraintContext ctx{s.kinematics(inst.base), s.kinematics(inst.follower), s.t,
                              MotionSample{d.held, 0.0, 0.0}};
  inst.constraint->evaluate(ctx, std::span<ConstraintRow>(&row, 1));
  return row;
}
}  // namespace

double System::Impl::contact_gap(int side) const {
  const ContactSide& s = contact_sides[static_cast<std::size_t>(side)];
  const DriverRuntime& d = drivers[static_cast<std::size_t>(s.driver)];
  if (d.joint < 0) return shape_row(*this, d).position_error;
  const double c = d.coordinate == Driver::Coordinate::kAngle ? joint_angle(d.joint)
                                                              : joint_translation(d.joint);
  return s.sign * (c - s.limit);
}

double System::Impl::contact_gap_rate(int side) const {
  const ContactSide& s = contact_sides[static_cast<std::size_t>(side)];
  const DriverRuntime& d = drivers[static_cast<std::size_t>(s.driver)];
  if (d.joint < 0) {
    const Instance& inst = instances[static_cast<std::size_t>(d.instance)];
    const ConstraintRow row = shape_row(*this, d);
    double rate = 0.0;
    if (inst.base != kGround) rate += row.J_base.dot(layout.body_velocity(y, inst.base));
    if (inst.follower != kGround)
      rate += row.J_follower.dot(layout.body_velocity(y, inst.follower));
    return rate;
  }
  const double c = d.coordinate == Driver::Coordinate::kAngle ? joint_angle_rate(d.joint)
                                                              : joint_translation_rate(d.joint);
  return s.sign * c;
}

void System::Impl::refresh_contact_structure(double time, const VecX& state) {
  compute_kinematics(time, state);
  compute_loads();
  compute_rows();  // rebuilds the structure if contacts were switched
  for (const ContactSide& side : contact_sides)
    newly_active[static_cast<std::size_t>(
        drivers[static_cast<std::size_t>(side.driver)].instance)] = 0;
  dynamics_valid = false;
}

namespace {

// The LCP of the contact rows C with the equality rows E condensed out
// (Acary & Brogliato 2008, eq. 12.23 for the impact). For a 6-per-body
// vector x = x0 + M^-1 (D_E^T l_E + D_C^T s z):
//   D_E x = r_E,    0 <= z  _|_  s D_C x - c >= 0.
// With A = D_E M^-1 D_E^T (pseudo-inverse: dependent rows are harmless)
// and P = M^-1 - M^-1 D_E^T A^+ D_E M^-1 (the mass-weighted projector onto
// the motions E allows), W = G P G^T, q = G x_f - c, G = s D_C.
// The equality rows' multipliers l_E (least-norm where E is dependent) are
// returned too: a side held closed through an impact is one of them.
struct CondensedSolution {
  VecX x;
  VecX z;
  VecX l_E;
  internal::LcpSolution lcp;
};

// `solve` solves the LCP (W, q) over H's rows (its z the impulses or forces
// per row of H), so that the friction pyramid can take the tangent rows.
template <class Solve>
CondensedSolution solve_condensed(const MatX& Minv, const MatX& DE, const VecX& rE, const MatX& H,
                                  const VecX& c, const VecX& x0, Solve&& solve) {
  CondensedSolution out;
  VecX xf = x0;
  MatX P = Minv;
  const MatX MinvDEt = Minv * DE.transpose();
  Eigen::CompleteOrthogonalDecomposition<MatX> cod;
  if (DE.rows() > 0) {
    cod.compute(DE * MinvDEt);
    xf += MinvDEt * cod.solve(rE - DE * x0);
    P -= MinvDEt * cod.solve(MinvDEt.transpose());
  }
  const MatX PHt = P * H.transpose();
  const MatX W = H * PHt;
  const VecX q = H * xf - c;
  out.lcp = solve(W, q);
  out.z = out.lcp.z;
  out.x = out.lcp.solved ? VecX(xf + PHt * out.z) : xf;
  // A l_E = r_E - D_E (x0 + M^-1 H^T z)
  out.l_E = DE.rows() > 0 && out.lcp.solved
                ? VecX(cod.solve(rE - DE * (x0 + Minv * (H.transpose() * out.z))))
                : VecX::Zero(DE.rows());
  return out;
}

CondensedSolution solve_condensed(const MatX& Minv, const MatX& DE, const VecX& rE, const MatX& G,
                                  const VecX& c, const VecX& x0) {
  return solve_condensed(Minv, DE, rE, G, c, x0,
                         [](const MatX& W, const VecX& q) { return internal::solve_lcp(W, q); });
}

// The friction pyramid's problem (contact/friction_pyramid.h) over H = [G;
// T] of `sides` sides, every side normal, the sides `rough` with their mu:
// the solution's z is the impulse per row of H.
internal::LcpSolution solve_friction_pyramid(const MatX& W, const VecX& q, Eigen::Index sides,
                                             std::span<const int> rough,
                                             std::span<const double> mu) {
  std::vector<int> normal(static_cast<std::size_t>(sides));
  for (Eigen::Index k = 0; k < sides; ++k)
    normal[static_cast<std::size_t>(k)] = static_cast<int>(k);
  const auto n = static_cast<Eigen::Index>(normal.size() + 5 * rough.size());
  MatX L(n, n);
  VecX lq(n), lz(n);
  internal::assemble_friction_pyramid(W, q, sides, normal, rough, mu, L, lq);
  std::vector<int> all(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = static_cast<int>(i);
  internal::PivotingLcp lcp;
  lcp.reserve(static_cast<int>(n));
  internal::LcpSolution out;
  out.solved = lcp.solve(L, lq, all, lz, false);
  out.error = lcp.error();
  // a degenerate problem: a body landing flat on resting, stuck points
  if (!out.solved) {
    out.solved = internal::solve_degenerate_friction_pyramid(L, lq, normal, rough, lz);
    if (out.solved) out.error = 0.0;
  }
  out.z = VecX::Zero(W.rows());
  if (out.solved) internal::friction_pyramid_impulses(lz, sides, normal, rough, out.z);
  out.w = W * out.z + q;
  return out;
}

}  // namespace

int System::contact_side_count() const {
  return static_cast<int>(impl_->contact_sides.size());
}

const std::string& System::contact_side_name(int k) const {
  return impl_->contact_sides[static_cast<std::size_t>(k)].name;
}

double System::contact_restitution(int k) const {
  return impl_->contact_sides[static_cast<std::size_t>(k)].restitution;
}

double System::contact_accumulation_time(int k) const {
  return impl_->contact_sides[static_cast<std::size_t>(k)].accumulation_time;
}

bool System::contact_closed(int k) const {
  const Impl& s = *impl_;
  const Impl::DriverRuntime& d =
      s.drivers[static_cast<std::size_t>(s.contact_sides[static_cast<std::size_t>(k)].driver)];
  return s.instances[static_cast<std::size_t>(d.instance)].enabled != 0;
}

bool System::set_contact_closed(int k, bool closed) {
  Impl& s = *impl_;
  const Impl::DriverRuntime& d =
      s.drivers[static_cast<std::size_t>(s.contact_sides[static_cast<std::size_t>(k)].driver)];
  Impl::Instance& hold = s.instances[static_cast<std::size_t>(d.instance)];
  const char on = closed ? 1 : 0;
  if (hold.enabled == on) return false;
  hold.enabled = on;
  s.dynamics_valid = false;
  s.mark_structure_changed();
  // an open contact's tangents hold nothing: a stuck one lets go (its
  // friction is zero while the contact is open, whichever way it slips)
  if (!closed && k < static_cast<int>(s.side_friction.size()))
    for (const int i : s.side_friction[static_cast<std::size_t>(k)]) {
      if (i < 0) continue;
      const int element = s.friction_joints[static_cast<std::size_t>(i)].stick_slip;
      if (stick_slip_element(element).mode() == kStick) set_stick_slip_mode(element, kSlipPositive);
    }
  return true;
}

double System::contact_gap(int k) {
  return impl_->contact_gap(k);
}

double System::contact_gap_rate(int k) {
  return impl_->contact_gap_rate(k);
}

double System::contact_gap_resolution(int k) {
  const Impl& s = *impl_;
  const Impl::ContactSide& side = s.contact_sides[static_cast<std::size_t>(k)];
  const bool angle =
      s.drivers[static_cast<std::size_t>(side.driver)].coordinate == Driver::Coordinate::kAngle;
  const double coordinate = side.limit + side.sign * s.contact_gap(k);
  return 10.0 * std::numeric_limits<double>::epsilon() *
         (std::abs(side.limit) + std::abs(coordinate) + (angle ? M_PI : 0.0));
}

double System::contact_normal_force(int k) {
  Impl& s = *impl_;
  if (!contact_closed(k)) return 0.0;
  s.ensure_structure();
  s.ensure_dynamics();
  const int row = s.contact_row(k);
  return row < 0 ? 0.0 : s.contact_sides[static_cast<std::size_t>(k)].sign * s.multiplier(row);
}

namespace {

// Dense pieces of the active rows for the contact problems (they run at
// events only, on the few bodies of a contact model: dense is simplest).
struct ContactProblemRows {
  MatX Minv;  // 6n x 6n
  MatX DE;    // equality rows (active, independent, not a contact side in the problem)
  MatX G;     // contact rows times their sign: gap rates G u
  std::vector<int> equality_rows, contact_rows;
};

}  // namespace

// Builds M^-1, D_E and G for the sides `sides` (closed, structure current).
// The rows `released` (stuck tangents' holds that the impact's friction
// problem takes as tangent rows) are not equality rows.
static ContactProblemRows contact_problem_rows(const System::Impl& s, std::span<const int> sides,
                                               std::span<const int> released = {}) {
  ContactProblemRows d;
  const int nv = 6 * s.n;
  d.Minv = internal::dense_inverse_mass(s);
  std::vector<char> is_contact(s.rows.size(), 0);
  for (const int k : sides) {
    const int r = s.contact_row(k);
    d.contact_rows.push_back(r);
    is_contact[static_cast<std::size_t>(r)] = 1;
  }
  for (const int r : released) is_contact[static_cast<std::size_t>(r)] = 1;
  // a closed side outside the problem (held through an impact) is an
  // equality row even where the structure dropped it as dependent: it may
  // depend on a side of the problem, whose rate the problem decides
  std::vector<char> is_hold(s.rows.size(), 0);
  for (int k = 0; k < static_cast<int>(s.contact_sides.size()); ++k)
    if (const int r = s.contact_row(k); r >= 0) is_hold[static_cast<std::size_t>(r)] = 1;
  for (std::size_t r = 0; r < s.rows.size(); ++r)
    if (is_contact[r] == 0 && (s.dropped[r] == 0 || is_hold[r] != 0))
      d.equality_rows.push_back(static_cast<int>(r));
  d.DE = MatX::Zero(static_cast<Eigen::Index>(d.equality_rows.size()), nv);
  d.G = MatX::Zero(static_cast<Eigen::Index>(sides.size()), nv);
  for (std::size_t i = 0; i < d.equality_rows.size(); ++i)
    d.DE.row(static_cast<Eigen::Index>(i)) = internal::dense_row(s, d.equality_rows[i]).transpose();
  for (std::size_t i = 0; i < sides.size(); ++i)
    d.G.row(static_cast<Eigen::Index>(i)) =
        internal::dense_row(s, d.contact_rows[i],
                            s.contact_sides[static_cast<std::size_t>(sides[i])].sign)
            .transpose();
  return d;
}

static std::string side_list(const System& system, std::span<const int> sides) {
  std::string names;
  for (const int k : sides)
    names += (names.empty() ? "'" : ", '") + system.contact_side_name(k) + "'";
  return names;
}

System::ContactImpact System::contact_impact(double t, VecX& y, std::span<const int> sides,
                                             std::span<const double> restitution,
                                             std::span<const char> held) {
  Impl& s = *impl_;
  for (const int k : sides) set_contact_closed(k, true);
  s.refresh_contact_structure(t, y);
  // the sides of the LCP; a held side's row stays among the equality rows
  std::vector<int> free_sides;
  std::vector<std::size_t> free_index;
  for (std::size_t i = 0; i < sides.size(); ++i)
    if (held.empty() || held[i] == 0) {
      free_sides.push_back(sides[i]);
      free_index.push_back(i);
    }
  const int nv = 6 * s.n;
  VecX u1(nv);
  for (int b = 0; b < s.n; ++b) u1.segment<6>(6 * b) = s.layout.body_velocity(y, b);
  // Coulomb friction at the impulse level (contact/friction_pyramid.h) on
  // every free side with friction. A side resting before the impact may
  // have stuck tangents: their hold rows leave the equality rows and become
  // tangent rows of the pyramid like the others, so that their impulse too
  // stays within mu_s P (held as rows they would take any impulse the
  // other sides' impacts ask of them). mu_s for a side at rest along the
  // plane.
  const auto nf = static_cast<Eigen::Index>(free_sides.size());
  std::vector<int> rough;  // into free_sides
  std::vector<double> mu;
  std::vector<int> released_rows, released_elements, released_tangent;  // stuck tangents
  MatX T = MatX::Zero(2 * nf, nv);
  VecX tangent(nv);
  for (Eigen::Index j = 0; j < nf; ++j) {
    const auto side = static_cast<std::size_t>(free_sides[static_cast<std::size_t>(j)]);
    if (side >= s.side_friction.size()) continue;
    bool rough_side = false, stuck_side = false;
    double mu_kinetic = 0.0, mu_static = 0.0;
    for (std::size_t axis = 0; axis < 2; ++axis) {
      const int i = s.side_friction[side][axis];
      if (i < 0) continue;
      const Impl::FrictionJoint& fj = s.friction_joints[static_cast<std::size_t>(i)];
      if (s.force_enabled[static_cast<std::size_t>(fj.force)] == 0) continue;
      const auto& e =
          static_cast<const ReactionFriction&>(*s.forces[static_cast<std::size_t>(fj.force)]);
      rough_side = true;
      if (const int hold = s.hold_row(fj.stick_slip); hold >= 0) {
        stuck_side = true;
        released_rows.push_back(hold);
        released_elements.push_back(fj.stick_slip);
        released_tangent.push_back(static_cast<int>(2 * j) + static_cast<int>(axis));
      }
      mu_kinetic = e.kinetic_lever();
      mu_static = e.static_lever();
      internal::scatter_row(internal::slip_rate_row(s, fj), fj.base, fj.follower, 1.0, tangent);
      T.row(2 * j + static_cast<Eigen::Index>(axis)) = tangent.transpose();
    }
    if (!rough_side) continue;
    rough.push_back(static_cast<int>(j));
    // (a stuck side is at rest, even where an external impulse applied with
    // the contact open has just set it moving: Simulation::apply_actions)
    const bool at_rest = stuck_side || (std::abs(T.row(2 * j).dot(u1)) <= 1e-9 &&
                                        std::abs(T.row(2 * j + 1).dot(u1)) <= 1e-9);
    mu.push_back(at_rest ? mu_static : mu_kinetic);
  }
  const ContactProblemRows all = contact_problem_rows(s, sides);  // the gap rates of every side
  const ContactProblemRows d = contact_problem_rows(s, free_sides, released_rows);
  ContactImpact result;
  result.kinetic_before = s.kinetic_energy();
  VecX rE(d.DE.rows());
  for (std::size_t i = 0; i < d.equality_rows.size(); ++i)
    rE(static_cast<Eigen::Index>(i)) = s.rows[static_cast<std::size_t>(d.equality_rows[i])].target;
  const VecX g1 = all.G * u1;
  VecX c(static_cast<Eigen::Index>(free_sides.size()));
  for (std::size_t j = 0; j < free_sides.size(); ++j) {
    const std::size_t i = free_index[j];
    const double e = restitution.empty() ? contact_restitution(sides[i]) : restitution[i];
    // Newton: g'+ >= -e g'-
    c(static_cast<Eigen::Index>(j)) = -e * std::min(g1(static_cast<Eigen::Index>(i)), 0.0);
  }
  CondensedSolution sol;
  if (rough.empty()) {
    sol = solve_condensed(d.Minv, d.DE, rE, d.G, c, u1);
  } else {
    MatX H(3 * nf, nv);
    H << d.G, T;
    VecX cH = VecX::Zero(3 * nf);
    cH.head(nf) = c;
    sol = solve_condensed(d.Minv, d.DE, rE, H, cH, u1, [&](const MatX& W, const VecX& q) {
      return solve_friction_pyramid(W, q, nf, rough, mu);
    });
  }
  if (!sol.lcp.solved)
    throw SimulationError(
        t, fmt::format("the impact of contact(s) {} has no solution: no normal impulses >= 0 "
                       "give every gap its rebound while the joints and drivers hold (something "
                       "prescribes a motion into the contact; complementarity error {:.3g}){}",
                       side_list(*this, sides), sol.lcp.error,
                       rough.empty() ? ""
                                     : "; with Coulomb friction in the impact this may be "
                                       "Painleve's paradox: lower mu"));
  // Coulomb friction at the impulse level on the frictional joints: where a
  // joint asks for a friction impulse, the impact decided again with it
  internal::ContactImpactWithJointFriction with_joints;
  {
    const internal::ContactImpactProblem problem{
        d.Minv, d.DE, d.equality_rows, rE, d.G, T, rough, mu, c, u1, sol.l_E, sol.z};
    if (internal::joint_friction_in_contact_impact(s, t, problem, side_list(*this, sides),
                                                   with_joints)) {
      sol.x = std::move(with_joints.x);
      sol.z = std::move(with_joints.z);
      sol.l_E = std::move(with_joints.l_E);
      result.let_go = std::move(with_joints.let_go);
      result.joint_friction = std::move(with_joints.friction);
      result.non_unique = std::move(with_joints.non_unique);
    }
  }
  for (int b = 0; b < s.n; ++b) s.layout.body_velocity(y, b) = sol.x.segment<6>(6 * b);
  s.compute_kinematics(t, y);
  // a ball that slips after the impact slips along its rate after it
  for (const auto& [fj, axis] : with_joints.ball_axes) s.set_ball_slip_axis(*fj, axis);
  // a stuck tangent that the impulses set slipping lets go (the decision
  // after the impact, ElementSwitching::wake, gives it its direction); one
  // left at rest, within the solve's round-off of the impact's speeds or
  // below the integrator's absolute tolerance, stays stuck (a zero impulse
  // on a box resting on four rough corners left rates of 1e-14 m/s, all
  // eight tangents slipped the way of that round-off, and the push then
  // drove the box against its friction forces)
  const double rest =
      std::max(1e-9 * std::max(u1.lpNorm<Eigen::Infinity>(), sol.x.lpNorm<Eigen::Infinity>()),
               s.model.settings().integrator.atol);
  for (std::size_t i = 0; i < released_elements.size(); ++i)
    if (std::abs(T.row(released_tangent[i]).dot(sol.x)) > rest)
      set_stick_slip_mode(released_elements[i], kSlipPositive);
  result.kinetic_after = s.kinetic_energy();
  const VecX g2 = all.G * sol.x;
  s.last_contact_impact_time = t;
  std::fill(s.contact_impulses.begin(), s.contact_impulses.end(), 0.0);
  result.impulse.assign(sides.size(), 0.0);
  for (std::size_t j = 0; j < free_sides.size(); ++j)
    result.impulse[free_index[j]] = sol.z(static_cast<Eigen::Index>(j));
  for (std::size_t i = 0; i < sides.size(); ++i) {
    if (held.empty() || held[i] == 0) continue;
    // a held side's impulse: its row's multiplier (0 for a dependent row)
    const int row = s.contact_row(sides[i]);
    const auto at = std::find(d.equality_rows.begin(), d.equality_rows.end(), row);
    if (at != d.equality_rows.end())
      result.impulse[i] = s.contact_sides[static_cast<std::size_t>(sides[i])].sign *
                          sol.l_E(static_cast<Eigen::Index>(at - d.equality_rows.begin()));
  }
  for (std::size_t i = 0; i < sides.size(); ++i) {
    const auto ii = static_cast<Eigen::Index>(i);
    result.rate_before.push_back(g1(ii));
    result.rate_after.push_back(g2(ii));
    s.contact_impulses[static_cast<std::size_t>(sides[i])] = result.impulse[i];
  }
  // what the impulses took (Carnot's loss for e = 0; none for e = 1)
  const double loss = result.kinetic_before - result.kinetic_after;
  // Newton's restitution with Coulomb friction at the impulse level can
  // give energy where the friction acts against a slip the rebound reverses
  // (Kane and Levinson's paradox; near a jam without bound): the books stay
  // closed, but the motion is the law's artefact
  if (!rough.empty() &&
      -loss > 1e-9 * std::max({result.kinetic_before, result.kinetic_after, 1e-300}))
    s.warn(fmt::format(
        "t = {:.9g} s: the impact of contact(s) {} with friction gained {:.6g} J of kinetic "
        "energy ({:.6g} -> {:.6g} J): Newton's restitution with Coulomb friction creates "
        "energy here (Kane and Levinson's paradox); the rigid impact law is unreliable: lower "
        "the restitution or mu",
        t, side_list(*this, sides), -loss, result.kinetic_before, result.kinetic_after));
  y(s.layout.audit_offset() + kAuxImpactLoss) += loss;
  y(s.layout.audit_offset() + kAuxDissipated) += loss;
  s.forget_evaluation();
  return result;
}

std::vector<double> System::contact_forces(double t, const VecX& y, std::span<const int> sides,
                                           std::vector<double>* gap_accelerations) {
  Impl& s = *impl_;
  for (const int k : sides) set_contact_closed(k, true);
  s.refresh_contact_structure(t, y);
  const ContactProblemRows d = contact_problem_rows(s, sides);
  const int nv = 6 * s.n;
  // unconstrained accelerations M^-1 f, and the rows' acceleration targets
  // with their stabilisation as in System::Impl::solve_dynamics
  VecX a0(nv);
  for (int b = 0; b < s.n; ++b) {
    const auto i = static_cast<std::size_t>(b);
    a0.segment<3>(6 * b) = s.inverse_mass[i].inv_mass * s.loads[i].force_W;
    a0.segment<3>(6 * b + 3) = s.inverse_mass[i].inv_inertia * s.loads[i].torque_B;
  }
  VecX rE(d.DE.rows());
  for (std::size_t i = 0; i < d.equality_rows.size(); ++i)
    rE(static_cast<Eigen::Index>(i)) = internal::row_stabilised_target(s, d.equality_rows[i]);
  VecX c(static_cast<Eigen::Index>(sides.size()));
  for (std::size_t i = 0; i < sides.size(); ++i)
    c(static_cast<Eigen::Index>(i)) = s.contact_sides[static_cast<std::size_t>(sides[i])].sign *
                                      internal::row_stabilised_target(s, d.contact_rows[i]);
  const CondensedSolution sol = solve_condensed(d.Minv, d.DE, rE, d.G, c, a0);
  if (!sol.lcp.solved)
    throw SimulationError(t, fmt::format("the contact forces of {} have no solution (the "
                                         "complementarity problem failed, error {:.3g})",
                                         side_list(*this, sides), sol.lcp.error));
  if (gap_accelerations != nullptr)
    gap_accelerations->assign(sol.lcp.w.data(), sol.lcp.w.data() + sol.lcp.w.size());
  return {sol.z.data(), sol.z.data() + sol.z.size()};
}

}  // namespace ictus
