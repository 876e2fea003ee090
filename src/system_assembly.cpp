// Putting a state onto the constraints: positions by Newton's method,
// velocities by the impulse equations of seed 000 (eqs. 3-4).
//
// Both are least-change corrections in the kinetic-energy metric:
//   delta u = M^-1 D^T p,   S p = target - D u,   S = D M^-1 D^T,
// for positions with target = 0 and D u replaced by Delta (a Newton step on
// Delta(q) = 0), for velocities with the velocity-level targets h.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "constraint_jacobian.h"
#include "ictus/constraints/point_on_plane.h"
#include "ictus/constraints/rotation_lock.h"
#include "impact_energy.h"
#include "system_impl.h"
#include "text_util.h"

namespace ictus {

namespace {

constexpr int kMaxNewtonIterations = 60;

// The sine below which a row counts as dependent on the others to roundoff
// (its pivot ratio in the Gram matrix of the scaled D about 1e-14, two
// orders above what exactly dependent rows leave).
constexpr double kRoundoffSine = 1e-7;
// What such a row may be left off by, relative to the velocities: the
// sine it may have to the others times the velocities, with a margin.
constexpr double kUnresolvedSine = 1e-6;

// Passes of iterative refinement of the velocity correction; each gains
// about 1 / (cond(S) eps), some 45 at the rank tolerances' 1e14.
constexpr int kRefinementPasses = 6;

// Adds M^-1 D^T p to a 6-per-body block: the velocities u of a state, or a
// Newton displacement [dp_W; dtheta_B].
void add_correction(const internal::ConstraintJacobian& D, const VecX& p,
                    std::span<const internal::InverseMass> inverse_mass,
                    std::span<const char> dropped, Eigen::Ref<VecX> u) {
  D.add_inverse_mass_transpose(p, inverse_mass, dropped,
                               [&u](BodyIndex b) { return u.segment<6>(6 * b); });
}

// D_r u for the velocities u of a state.
double row_times_u(const internal::ConstraintJacobian& D, int r, const StateLayout& layout,
                   const VecX& state) {
  return D.row_times(r, [&](BodyIndex b) { return layout.body_velocity(state, b); });
}

}  // namespace

ModelError System::Impl::row_error(int row, const std::string& what) const {
  const System::Impl& s = *this;
  const System::Impl::Instance& inst =
      s.instances[static_cast<std::size_t>(s.row_info[static_cast<std::size_t>(row)].instance)];
  if (inst.driver >= 0 && s.drivers[static_cast<std::size_t>(inst.driver)].hold_force >= 0) {
    const ForceElement& f = *s.forces[static_cast<std::size_t>(
        s.drivers[static_cast<std::size_t>(inst.driver)].hold_force)];
    return ModelError(f.where(), f.element_label(), what);
  }
  if (inst.driver >= 0 && s.drivers[static_cast<std::size_t>(inst.driver)].hold_contact >= 0) {
    const auto& side = s.contact_sides[static_cast<std::size_t>(
        s.drivers[static_cast<std::size_t>(inst.driver)].hold_contact)];
    if (side.contact < 0) return ModelError({}, fmt::format("contact '{}'", side.name), what);
    const JointLimitContact& c = s.model.contacts()[static_cast<std::size_t>(side.contact)];
    return ModelError(c.where, fmt::format("contact '{}'", c.name), what);
  }
  if (inst.driver >= 0) {
    const Driver& d = s.model.drivers()[static_cast<std::size_t>(inst.driver)];
    return ModelError(d.where, fmt::format("driver '{}'", d.name), what);
  }
  const Joint& j = s.live_joints[static_cast<std::size_t>(inst.joint)];
  return ModelError(j.where, fmt::format("joint '{}'", j.name), what);
}

std::string System::Impl::unrepresentable_row_message(const std::string& row) {
  return fmt::format(
      "row '{}' has a zero or non-finite effective mass (its pivot of D M^-1 D^T); {}", row,
      kMassesOutOfRange);
}

double System::Impl::max_position_error(int* worst, bool include_dropped) const {
  double largest = 0.0;
  if (worst != nullptr) *worst = -1;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (!rows[r].has_position_error || (dropped[r] != 0 && !include_dropped)) continue;
    const double e = std::abs(rows[r].position_error);
    if (e > largest) {
      largest = e;
      if (worst != nullptr) *worst = static_cast<int>(r);
    }
  }
  return largest;
}

void System::Impl::assemble_positions(double time, VecX& state, bool for_model, bool rows_current) {
  double scale = 1.0;
  for (int b = 0; b < n; ++b)
    scale = std::max(scale, layout.body_position(state, b).cwiseAbs().maxCoeff());
  const double tolerance = 1e-12 * scale;
  // work buffers of the structure: projection during a run must not allocate
  VecX& delta = displacement_buffer;
  VecX& p = newton_buffer;
  VecX& start = state_buffer;
  if (!rows_current) {
    compute_kinematics(time, state);
    compute_rows();
  }
  double error = max_position_error(nullptr);
  for (int iter = 0; iter < kMaxNewtonIterations && error > tolerance; ++iter) {
    // Newton step on Delta(q) = 0 through the Schur complement
    p.setZero();
    for (std::size_t r = 0; r < rows.size(); ++r)
      if (dropped[r] == 0 && rows[r].has_position_error)
        p(static_cast<Eigen::Index>(r)) = -rows[r].position_error;
    if (!solve_schur(p)) break;
    delta.setZero();
    add_correction(D, p, inverse_mass, dropped, delta);
    // halve the step while it does not reduce the violation
    start = state;
    for (int halving = 0; halving < 12; ++halving) {
      state = start;
      integrate_positions(layout, layout.positions(start), delta, layout.positions(state));
      compute_kinematics(time, state);
      compute_rows();
      const double next = max_position_error(nullptr);
      if (next < error || halving == 11) {
        error = next;
        break;
      }
      delta *= 0.5;
    }
  }
  if (error > std::max(tolerance, 1e-9 * scale)) {
    int worst = -1;
    max_position_error(&worst);
    // name every row still violated, largest first
    std::vector<std::pair<double, int>> violated;
    for (std::size_t r = 0; r < rows.size(); ++r)
      if (dropped[r] == 0 && rows[r].has_position_error &&
          std::abs(rows[r].position_error) > std::max(tolerance, 1e-9 * scale))
        violated.emplace_back(-std::abs(rows[r].position_error), static_cast<int>(r));
    std::sort(violated.begin(), violated.end());
    std::vector<std::string> names;
    for (const auto& [e, r] : violated)
      names.push_back(fmt::format("{} ({:.3g})", row_name(r), -e));
    const std::string what = fmt::format(
        "the constraints cannot be assembled: after Newton's method these rows are still "
        "violated: {}; no configuration near the one written satisfies them all, check the "
        "joint points, axes and lengths",
        internal::join_names(names));
    if (for_model && worst >= 0) throw row_error(worst, what);
    if (for_model) throw ModelError({}, "model", what);
    throw SimulationError(time, what);
  }
  // dependent rows must be satisfied by the motion of the others; not those
  // of a passage through a singular configuration (rank_lowered), which
  // depend on the others only to first order, within the window
  if (rank_lowered) return;
  for (const auto& mode : self_stress) {
    const auto r = static_cast<std::size_t>(mode.front().first);  // the dependent row
    if (!rows[r].has_position_error) continue;
    if (std::abs(rows[r].position_error) > 1e-8 * scale) {
      // a row dependent where the structure was built, at a singular
      // configuration (a mechanism started flat), and independent here: the
      // rank is decided again and the positions assembled with it
      if (!for_model && joint_geometry_row(static_cast<int>(r))) {
        find_dependent_rows(dependent_rows, singular_window);
        if (dependent_rows[r] == 0 && redetect_rank(time)) {
          assemble_positions(time, state, false);
          return;
        }
      }
      std::vector<std::string> names;
      for (std::size_t k = 1; k < mode.size(); ++k) names.push_back(row_name(mode[k].first));
      const std::string what = fmt::format(
          "inconsistent constraint set: row '{}' depends on rows {} and is violated by {:.3g} "
          "when they hold; no configuration satisfies all of them, remove or correct one of "
          "these constraints",
          row_name(static_cast<int>(r)), internal::join_names(names), rows[r].position_error);
      if (for_model) throw row_error(static_cast<int>(r), what);
      throw SimulationError(time, what);
    }
  }
}

ImpulseResult System::Impl::correct_velocities(double time, VecX& state, bool use_given,
                                               bool for_model) {
  ImpulseResult result;
  compute_kinematics(time, state);
  compute_rows();
  // rows: the active constraints, then the given velocities
  std::vector<ConstraintRow> all_rows;
  std::vector<internal::RowBodies> all_bodies;
  std::vector<std::string> names;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    all_rows.push_back(rows[r]);
    all_bodies.push_back(row_bodies[r]);
    names.push_back(row_name(static_cast<int>(r)));
  }
  const std::size_t constraint_rows = all_rows.size();
  if (use_given) {
    for (const GivenRow& g : given_rows) {
      ConstraintRow row;
      const ConstraintContext ctx{kinematics(g.base), kinematics(g.follower), time, {}};
      g.constraint->evaluate(ctx, std::span<ConstraintRow>(&row, 1));
      row.target = g.value;
      all_rows.push_back(row);
      all_bodies.push_back({g.base, g.follower});
      names.push_back(g.name);
    }
  }
  const std::size_t m = all_rows.size();
  if (m == 0) return result;
  const internal::ConstraintJacobian given_D(all_rows, all_bodies);
  internal::SchurSolver s;
  s.analyse(all_bodies, n);
  internal::ConstraintRank given_rank;
  given_rank.analyse(all_bodies, n);
  const VecX given_u = layout.velocities(state);
  double target_scale = 1.0;
  for (std::size_t r = 0; r < m; ++r)
    target_scale = std::max(target_scale, std::abs(all_rows[r].target));
  double scale = target_scale;
  for (int b = 0; b < n; ++b)
    scale = std::max(scale, layout.body_velocity(state, b).cwiseAbs().maxCoeff());
  VecX p(static_cast<Eigen::Index>(m));
  VecX correction(static_cast<Eigen::Index>(m));
  VecX refined_u(given_u.size()), refined_p(static_cast<Eigen::Index>(m));
  std::vector<double> residual(m, 0.0);
  // The least change of the given velocities that satisfies the rows not
  // flagged in `drop`; the residuals of all rows. False if S is singular
  // (its first unusable row in `bad`).
  const auto solve = [&](const std::vector<char>& drop, std::size_t& bad) {
    layout.velocities(state) = given_u;
    for (std::size_t r = 0; r < m; ++r)
      p(static_cast<Eigen::Index>(r)) =
          drop[r] != 0
              ? 0.0
              : all_rows[r].target - row_times_u(given_D, static_cast<int>(r), layout, state);
    s.assemble(all_rows, inverse_mass, drop);
    if (!s.factorize()) {
      bad = static_cast<std::size_t>(s.first_unusable_row(drop));
      return false;
    }
    s.solve_in_place(p);
    add_correction(given_D, p, inverse_mass, drop, layout.velocities(state));
    // Near a singular configuration S is ill-conditioned (up to 1e14 by the
    // rank tolerances, more with a spread of inertias) and one solve leaves
    // the kept rows off by its roundoff, the velocities off along the
    // near-null direction by that over the sine: iterative refinement
    // removes it while each pass at least halves the largest residual (a
    // pass that makes it worse is undone).
    double previous = std::numeric_limits<double>::infinity();
    for (int pass = 0; pass <= kRefinementPasses; ++pass) {
      double largest = 0.0;
      for (std::size_t r = 0; r < m; ++r) {
        const double left =
            drop[r] != 0
                ? 0.0
                : all_rows[r].target - row_times_u(given_D, static_cast<int>(r), layout, state);
        correction(static_cast<Eigen::Index>(r)) = left;
        largest = std::max(largest, std::abs(left));
      }
      if (largest > previous) {
        layout.velocities(state) = refined_u;
        p = refined_p;
        break;
      }
      if (largest <= 1e-15 * scale || largest > 0.5 * previous || pass == kRefinementPasses) break;
      previous = largest;
      refined_u = layout.velocities(state);
      refined_p = p;
      s.solve_in_place(correction);
      add_correction(given_D, correction, inverse_mass, drop, layout.velocities(state));
      p += correction;
    }
    for (std::size_t r = 0; r < m; ++r)
      residual[r] = row_times_u(given_D, static_cast<int>(r), layout, state) - all_rows[r].target;
    return true;
  };
  // the velocity scale of the residual test: the targets and the corrected
  // velocities (near a singular configuration they may exceed the given ones)
  double check_scale = scale;
  const auto take_scale = [&] {
    check_scale = target_scale;
    for (int b = 0; b < n; ++b)
      check_scale = std::max(check_scale, layout.body_velocity(state, b).cwiseAbs().maxCoeff());
  };
  const auto violated = [&](std::size_t r) { return std::abs(residual[r]) > 1e-8 * check_scale; };

  std::vector<char> drop(m, 0);
  given_rank.find_dependent_rows(all_rows, all_bodies, std::vector<char>(m, 0), drop);
  std::size_t bad = 0;
  if (!solve(drop, bad)) {
    // D has full rank here (drop): the masses and inertias made S singular
    const std::string what = unrepresentable_row_message(names[bad]);
    if (for_model && bad < constraint_rows) throw row_error(static_cast<int>(bad), what);
    throw SimulationError(time, what);
  }
  take_scale();
  // A row within kTolerance of the span of the others counts as dependent
  // for the dynamics, but near a singular configuration it may still be
  // independent and carry what decides the velocities: a parallelogram 1e-5
  // rad off flat with one crank's rate given has a one-dof motion, which
  // only its pin row left0.point.x tells from the coupler's turning; without
  // it the least change misses that row by 1.6e-5. Such violated rows are
  // taken back, with only the rows dependent to roundoff left out
  // (kRoundoffSine), before the set is called inconsistent.
  std::vector<char> excluded(m, 0);
  std::vector<char> unresolved(m, 0);
  bool retry = false;
  for (std::size_t r = 0; r < m; ++r) {
    excluded[r] = drop[r] != 0 && !violated(r) ? 1 : 0;
    retry = retry || (drop[r] != 0 && violated(r));
  }
  if (retry) {
    const std::vector<double> first_residual = residual;
    const VecX first_u = layout.velocities(state);
    const VecX first_p = p;
    const double first_scale = check_scale;
    std::vector<char> near(m, 0);
    given_rank.find_dependent_rows(all_rows, all_bodies, excluded, near, kRoundoffSine);
    std::vector<char> second(m, 0);
    for (std::size_t r = 0; r < m; ++r) second[r] = excluded[r] != 0 || near[r] != 0 ? 1 : 0;
    // a row still dependent to roundoff may be left off by what that
    // geometry resolves (kUnresolvedSine): the configuration is singular
    // to within roundoff and the given velocities do not fix the branch
    bool holds = solve(second, bad);
    if (holds) take_scale();
    for (std::size_t r = 0; r < m && holds; ++r)
      holds =
          !violated(r) || (near[r] != 0 && std::abs(residual[r]) <= kUnresolvedSine * check_scale &&
                           r < constraint_rows);
    if (holds) {
      drop = second;
      unresolved = near;
    } else {
      // report what the first solve left
      residual = first_residual;
      layout.velocities(state) = first_u;
      p = first_p;
      check_scale = first_scale;
    }
  }
  for (std::size_t r = 0; r < m; ++r) {
    if (!violated(r)) continue;
    if (unresolved[r] != 0) {
      warn(fmt::format(
          "t = {:.9g} s: row '{}' depends on the others to within {:g} rad here (a singular "
          "configuration) and no velocities that hold the given ones satisfy it better than "
          "{:.3g}: they do not fix which way the mechanism moves from here; the initial "
          "velocities are the least change of those given (give the rates of more joints to "
          "choose)",
          time, names[r], kRoundoffSine, residual[r]));
      continue;
    }
    std::string what;
    if (r >= constraint_rows)
      what = fmt::format(
          "the given initial velocity '{}' = {} cannot hold together with the "
          "constraints and the other given velocities (off by {:.3g})",
          names[r], all_rows[r].target, residual[r]);
    else
      what = fmt::format(
          "inconsistent constraint set: no velocities satisfy row '{}' together "
          "with the others (off by {:.3g})",
          names[r], residual[r]);
    if (for_model && r >= constraint_rows) {
      const GivenVelocity& g = model.given_velocities()[r - constraint_rows];
      throw ModelError(g.where, fmt::format("given velocity '{}'", g.channel), what);
    }
    if (for_model) throw row_error(static_cast<int>(r), what);
    throw SimulationError(time, what);
  }
  for (std::size_t r = 0; r < constraint_rows; ++r) {
    const double impulse = p(static_cast<Eigen::Index>(r));
    if (impulse == 0.0) continue;
    result.row_names.push_back(names[r]);
    result.impulses.push_back(impulse);
  }
  compute_kinematics(time, state);
  return result;
}

void System::Impl::build_given_rows() {
  for (const GivenVelocity& g : model.given_velocities()) {
    const std::string element = fmt::format("given velocity '{}'", g.channel);
    GivenRow row;
    row.name = g.channel;
    row.value = internal::evaluate_constant(g.value, model.parameters(), element);
    const auto dot = g.channel.rfind('.');
    const std::string owner = dot == std::string::npos ? g.channel : g.channel.substr(0, dot);
    const std::string what = dot == std::string::npos ? std::string() : g.channel.substr(dot + 1);
    static const char* kAxes = "xyz";
    bool done = false;
    for (int k = 0; k < 3 && !done; ++k) {
      const Vec3 e = Vec3::Unit(k);
      for (BodyIndex b = 0; b < n && !done; ++b) {
        if (model.bodies()[static_cast<std::size_t>(b)].name != owner) continue;
        if (what == std::string("v") + kAxes[k]) {
          row.base = kGround;
          row.follower = b;
          row.constraint = std::make_shared<PointOnPlane>(Vec3::Zero(), e, Vec3::Zero());
          done = true;
        } else if (what == std::string("w") + kAxes[k]) {
          row.base = kGround;
          row.follower = b;
          row.constraint = std::make_shared<RotationLock>(e, e);
          done = true;
        }
      }
    }
    const int j = model.find_joint(owner);
    if (!done && j >= 0) {
      const Joint& joint = live_joints[static_cast<std::size_t>(j)];
      row.base = joint.base;
      row.follower = joint.follower;
      if (what == "omega" && joint.has_angle) {
        row.constraint = std::make_shared<RotationLock>(joint.frame_base.axes.col(2),
                                                        joint.frame_follower.axes.col(2));
        done = true;
      } else if (what == "v" && joint.has_translation) {
        row.constraint = std::make_shared<PointOnPlane>(
            joint.frame_base.origin, joint.frame_base.axes.col(2), joint.frame_follower.origin);
        done = true;
      }
    }
    if (!done)
      throw ModelError(g.where, element,
                       "a given initial velocity must be a body velocity component "
                       "('<body>.vx', ... '<body>.wz', world axes) or a joint rate "
                       "('<joint>.omega', '<joint>.v')");
    given_rows.push_back(std::move(row));
  }
}

// ---------------------------------------------------------------------------

void System::assemble(double t, VecX& y) {
  impl_->ensure_structure();
  impl_->structure_assembled = true;
  impl_->assemble_positions(t, y, true);
  impl_->correct_velocities(t, y, true, true);
  // what is closed now is the starting structure, not an impact
  std::fill(impl_->newly_active.begin(), impl_->newly_active.end(), char{0});
  std::fill(impl_->joint_newly_enabled.begin(), impl_->joint_newly_enabled.end(), char{0});
  // the joint angles of the assembled state are the reference for unwrapping
  accept(t, y);
}

bool System::project(double t, VecX& y) {
  return project(t, y, impl_->stabilisation.projection_tolerance);
}

bool System::project(double t, VecX& y, double tolerance) {
  Impl& s = *impl_;
  s.compute_kinematics(t, y);
  s.compute_rows();
  bool changed = false;
  // the rows at (t, y) are evaluated once: the position projection starts
  // from them and leaves them evaluated at its result (position-only D and
  // the velocity-dependent gamma are one evaluation), where the velocity
  // projection takes them
  if (s.max_position_error(nullptr) > tolerance) {
    s.assemble_positions(t, y, false, true);
    changed = true;
  }
  double worst = 0.0;
  for (std::size_t r = 0; r < s.rows.size(); ++r)
    if (s.dropped[r] == 0)
      worst = std::max(worst, std::abs(s.row_rate(static_cast<int>(r)) - s.rows[r].target));
  if (changed || worst > tolerance) {
    s.project_velocities(t, y, true);
    changed = true;
  }
  return changed;
}

// Velocities onto D u = h with the structure's own solver, on the tree when
// the structure is one (no allocation):
// u += M^-1 D^T p,  S p = h - D u   (seed 000 eq. 4 without impact rows).
void System::Impl::project_velocities(double time, VecX& state, bool rows_current) {
  if (!rows_current) {
    compute_kinematics(time, state);
    compute_rows();
  }
  VecX& p = newton_buffer;
  for (std::size_t r = 0; r < rows.size(); ++r)
    p(static_cast<Eigen::Index>(r)) =
        dropped[r] != 0 ? 0.0 : rows[r].target - row_rate(static_cast<int>(r));
  if (!solve_schur(p)) throw SimulationError(time, "singular constraint set in projection");
  add_correction(D, p, inverse_mass, dropped, layout.velocities(state));
  compute_kinematics(time, state);
}

double System::position_violation(double t, const VecX& y) {
  impl_->compute_kinematics(t, y);
  impl_->compute_rows();
  return impl_->max_position_error(nullptr, true);
}

double System::velocity_violation(double t, const VecX& y) {
  Impl& s = *impl_;
  s.compute_kinematics(t, y);
  s.compute_rows();
  double worst = 0.0;
  for (std::size_t r = 0; r < s.rows.size(); ++r)
    if (s.dropped[r] == 0)
      worst = std::max(worst, std::abs(s.row_rate(static_cast<int>(r)) - s.rows[r].target));
  return worst;
}

ImpulseResult System::apply_impact(double t, VecX& y, std::span<const ExternalImpulse> external,
                                   bool impulsive_closure) {
  ImpulseResult result = impl_->impact(t, y, external, impulsive_closure);
  // a stuck joint the impact set slipping lets go (ElementSwitching::wake
  // then logs the slip)
  for (const auto& [k, mode] : result.let_go) set_stick_slip_mode(k, mode);
  return result;
}

bool System::constraints_closing() const {
  Impl& s = *impl_;
  s.ensure_structure();
  for (std::size_t i = 0; i < s.instances.size(); ++i)
    if (s.newly_active[i] != 0 && s.instance_row[i] >= 0) return true;
  return false;
}

// System impact, seed 000 eqs. (3)-(5) with restitution per constraint as
// target relative velocities (shared/seeds/README.md, note on eq. 5):
//   closing row i:    (D u2)_i = h_i - k_i ((D u1)_i - h_i)
//   persisting row j: (D u2)_j = h_j
// u1 already includes the external impulses, u1 = u + M^-1 K pe.
ImpulseResult System::Impl::impact(double time, VecX& state,
                                   std::span<const ExternalImpulse> external,
                                   bool impulsive_closure) {
  ImpulseResult result;
  compute_kinematics(time, state);
  compute_rows();  // rebuilds the structure if constraints were switched
  result.kinetic_before = kinetic_energy();
  impact_velocities_before = layout.velocities(state);
  for (const ExternalImpulse& e : external) {
    const auto b = static_cast<std::size_t>(e.body);
    const BodyKinematics& k = kin[b];
    const Vec3 angular_W = (k.R_WB * e.point_B).cross(e.linear_W) + e.angular_W;
    layout.body_velocity(state, e.body).head<3>() += inverse_mass[b].inv_mass * e.linear_W;
    layout.body_velocity(state, e.body).tail<3>() +=
        inverse_mass[b].inv_inertia * (k.R_WB.transpose() * angular_W);
  }
  compute_kinematics(time, state);
  compute_rows();

  // targets; closing rows left to the stabilisation are taken out of the solve
  const std::size_t m = rows.size();
  std::vector<char> excluded(dropped.begin(), dropped.end());
  VecX& p = newton_buffer;
  // an impulse from outside or a constraint closing (not only a stick's hold
  // row): the stuck joints' friction is bounded (impact_joint_friction)
  bool bounds_stuck_joints = !external.empty();
  for (std::size_t r = 0; r < m; ++r) {
    const int i = row_info[r].instance;
    const bool closing = newly_active[static_cast<std::size_t>(i)] != 0;
    const int driver = instances[static_cast<std::size_t>(i)].driver;
    if (closing && (driver < 0 || drivers[static_cast<std::size_t>(driver)].hold_force < 0))
      bounds_stuck_joints = true;
    const double relative = row_rate(static_cast<int>(r)) - rows[r].target;
    double target = rows[r].target;
    if (closing) {
      result.closing_rows.push_back(row_name(static_cast<int>(r)));
      // a constraint that closes away from its geometry is pulled in by the
      // Baumgarte terms, whose work the energy audit does not book
      if (rows[r].has_position_error && std::abs(rows[r].position_error) > 1e-6)
        warnings.push_back(fmt::format(
            "t = {:.9g} s: '{}' closes with a position error of {:.3g}; the stabilisation "
            "pulls it in (and changes the energy); give its joint 'capture: true' to close it "
            "where the bodies are",
            time, row_name(static_cast<int>(r)), rows[r].position_error));
      if (!impulsive_closure) excluded[r] = 1;
      target -= member_restitution(i) * relative;
    }
    p(static_cast<Eigen::Index>(r)) =
        excluded[r] != 0 ? 0.0 : target - row_rate(static_cast<int>(r));
    rhs(static_cast<Eigen::Index>(r)) = target;  // kept for the consistency check
  }
  solver.assemble(rows, inverse_mass, excluded);
  if (m > 0 && !solver.factorize())
    throw SimulationError(time, "the constraint set of the impact is singular");
  const VecX u_before =
      bounds_stuck_joints && !friction_joints.empty() ? VecX(layout.velocities(state)) : VecX();
  solver.solve_in_place(p);
  result.condition_estimate = solver.pivot_spread(excluded);
  add_correction(D, p, inverse_mass, excluded, layout.velocities(state));
  compute_kinematics(time, state);
  // the joints' friction impulses; a stuck joint whose friction gives way
  // lets its hold row go
  const std::vector<int> released_holds =
      u_before.size() > 0 ? impact_joint_friction(time, state, u_before, excluded, p, result)
                          : std::vector<int>{};
  auto released = [&released_holds](std::size_t r) {
    return std::find(released_holds.begin(), released_holds.end(), static_cast<int>(r)) !=
           released_holds.end();
  };

  // every row, the eliminated dependent ones included, must now hold
  double scale = 1.0;
  for (int b = 0; b < n; ++b)
    scale = std::max(scale, layout.body_velocity(state, b).cwiseAbs().maxCoeff());
  for (std::size_t r = 0; r < m; ++r) {
    const bool closing = newly_active[static_cast<std::size_t>(row_info[r].instance)] != 0;
    if (!impulsive_closure && closing) continue;  // left to the stabilisation
    if (released(r)) continue;                    // it slips
    const double residual = row_rate(static_cast<int>(r)) - rhs(static_cast<Eigen::Index>(r));
    if (std::abs(residual) > 1e-8 * std::max(scale, std::abs(rhs(static_cast<Eigen::Index>(r)))))
      throw SimulationError(
          time, fmt::format("inconsistent impact: no velocities satisfy row '{}' together with "
                            "the others (off by {:.3g}); dependent constraints close with "
                            "different restitution or against a prescribed motion",
                            row_name(static_cast<int>(r)), residual));
  }

  // impulses for the log and the channels
  last_impact_time = time;
  std::fill(impulses.begin(), impulses.end(), 0.0);
  // (the joints' friction impulses may have named some already)
  std::set<std::string> non_unique(result.non_unique.begin(), result.non_unique.end());
  for (std::size_t r = 0; r < m; ++r) {
    const RowInfo& ri = row_info[r];
    // (a released hold row's slot holds its joint's friction impulse)
    const double impulse = excluded[r] != 0 && !released(r) ? 0.0 : p(static_cast<Eigen::Index>(r));
    impulses[static_cast<std::size_t>(impulse_offset[static_cast<std::size_t>(ri.instance)] +
                                      ri.k)] = impulse;
    if (impulse != 0.0) {
      result.row_names.push_back(row_name(static_cast<int>(r)));
      result.impulses.push_back(impulse);
    }
  }
  for (const auto& mode : self_stress)
    for (const auto& [k, coefficient] : mode) non_unique.insert(owner_of_row(k));
  result.non_unique.assign(non_unique.begin(), non_unique.end());
  for (std::size_t j = 0; j < live_joints.size(); ++j) {
    const Joint& joint = live_joints[j];
    const JointRows& jr = joint_rows[j];
    Vec3 force = Vec3::Zero();
    Vec3 torque_B = Vec3::Zero();
    for (int r = jr.begin; r < jr.end; ++r) {
      const auto ri = static_cast<std::size_t>(r);
      if (instances[static_cast<std::size_t>(row_info[ri].instance)].driver >= 0 ||
          excluded[ri] != 0)
        continue;
      force += p(r) * rows[ri].J_follower.head<3>();
      torque_B += p(r) * rows[ri].J_follower.tail<3>();
    }
    const BodyKinematics& kf = kinematics(joint.follower);
    joint_impulse_force[j] = force;
    joint_impulse_moment[j] =
        kf.R_WB * torque_B - (kf.point(joint.frame_follower.origin) - kf.p_W).cross(force);
  }
  book_impact_energy(external, state, result);

  // what closed is now part of the structure; what closed with k > 0 parts
  // again: the whole joint if it closed as a whole and all its members bounce,
  // otherwise the bouncing members alone
  for (std::size_t i = 0; i < instances.size(); ++i) {
    if (newly_active[i] == 0 || instance_row[i] < 0) continue;
    const Instance& inst = instances[i];
    if (!impulsive_closure || member_restitution(static_cast<int>(i)) <= 0.0) continue;
    const auto j = static_cast<std::size_t>(inst.joint);
    bool all_bounce = joint_newly_enabled[j] != 0;
    for (const int k : joint_instances[j])
      if (instance_row[static_cast<std::size_t>(k)] >= 0 && member_restitution(k) <= 0.0)
        all_bounce = false;
    if (all_bounce) {
      if (joint_enabled[j] != 0) result.released.push_back(live_joints[j].name);
      joint_enabled[j] = 0;
    } else {
      instances[i].enabled = 0;
      result.released.push_back(live_joints[j].name + "." + inst.label);
    }
    structure_dirty = true;
  }
  std::fill(newly_active.begin(), newly_active.end(), char{0});
  std::fill(joint_newly_enabled.begin(), joint_newly_enabled.end(), char{0});
  dynamics_valid = false;
  return result;
}

// The work of the external impulses is done on the system (applied work);
// the rest of the change of kinetic energy is what the constraint impulses
// took (Carnot's loss for a plastic impact, zero for persisting workless
// constraints): impact_energy.h.
void System::Impl::book_impact_energy(std::span<const ExternalImpulse> external, VecX& state,
                                      ImpulseResult& result) {
  result.external_work = internal::external_impulse_work(external, kin, impact_velocities_before,
                                                         layout.velocities(state));
  result.kinetic_after = kinetic_energy();
  double loss = result.kinetic_before + result.external_work - result.kinetic_after;
  // a persisting workless constraint loses nothing: what is left of the
  // balance at the level of the solve's round-off is not a loss
  const double scale =
      std::max({result.kinetic_before, result.kinetic_after, std::abs(result.external_work)});
  if (std::abs(loss) <= 1e-12 * scale) loss = 0.0;
  result.constraint_loss = loss;
  state(layout.audit_offset() + kAuxAppliedWork) += result.external_work;
  state(layout.audit_offset() + kAuxImpactLoss) += loss;
  state(layout.audit_offset() + kAuxDissipated) += loss;
}

void System::set_energy_reference(double t, const VecX& y) {
  Impl& s = *impl_;
  s.compute_kinematics(t, y);
  const int aux = s.layout.audit_offset();
  s.energy_reference = s.kinetic_energy() + s.potential_energy() - y(aux + kAuxAppliedWork) -
                       y(aux + kAuxDriverWork) + y(aux + kAuxDissipated);
}

}  // namespace ictus
