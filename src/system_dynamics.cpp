// Evaluation of the equations of motion (seed 000 eqs. 1, 6, 7):
//
//   M u' - D^T p = f,     D u' = gamma - beta_c Delta - beta_k (D u - h)
//
// on a spanning tree of the body/joint graph, loops closed on cut rows
// (tree_kkt_solver.h), or by the Schur complement: S p = rhs - D M^-1 f,
// then u' = M^-1 (f + D^T p). Nothing here allocates once the structure is
// analysed (or, on the tree, re-analysed after a change of the dropped rows).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "stabilised_target.h"
#include "system_impl.h"

namespace ictus {
namespace {

// The same doubles bit for bit: -0.0 is not 0.0, a NaN is itself (the keys
// of evaluation skipping, which must reproduce the evaluation exactly).
// Empty (a model without bodies): equal, and no null pointer to memcmp.
bool same_bits(const Eigen::Ref<const VecX>& a, const Eigen::Ref<const VecX>& b) {
  if (a.size() != b.size()) return false;
  return a.size() == 0 ||
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

}  // namespace

const BodyKinematics& System::Impl::kinematics(BodyIndex b) const {
  static const BodyKinematics kGroundKinematics{};
  return b == kGround ? kGroundKinematics : kin[static_cast<std::size_t>(b)];
}

void System::Impl::compute_kinematics(double time, const VecX& state) {
  t = time;
  *time_slot = time;
  // positions unchanged (the velocity columns of a difference-quotient
  // Jacobian, a velocity projection, an impact): p_W and R_WB are kept
  const bool positions_moved =
      !kinematics_positions_current || !same_bits(layout.positions(state), layout.positions(y));
  y = state;
  dynamics_valid = false;
  state_current = true;
  kinematics_positions_current = true;
  for (int b = 0; b < n; ++b) {
    BodyKinematics& k = kin[static_cast<std::size_t>(b)];
    if (positions_moved) {
      k.p_W = layout.body_position(state, b);
      const Quat q = layout.body_orientation(state, b).normalized();
      k.R_WB = q.toRotationMatrix();
    }
    k.v_W = layout.body_velocity(state, b).head<3>();
    k.w_B = layout.body_velocity(state, b).tail<3>();
    k.w_W = k.R_WB * k.w_B;
  }
  refresh_slots(kinematic_slots);
}

void System::Impl::refresh_slots(const std::vector<Slot>& slots) {
  for (const Slot& s : slots) *s.value = channel_getters[static_cast<std::size_t>(s.channel)]();
}

void System::Impl::compute_loads() {
  for (int b = 0; b < n; ++b) {
    const auto i = static_cast<std::size_t>(b);
    const Mat3& inertia = model.bodies()[i].inertia;
    loads[i].force_W.setZero();
    // gyroscopic term of Euler's equations: J w' = tau - w x J w
    loads[i].torque_B = -kin[i].w_B.cross(inertia * kin[i].w_B);
  }
  power = {};
  const ForceContext ctx(kin, t);
  LoadAccumulator accumulator(loads);
  for (std::size_t f = 0; f < forces.size(); ++f) {
    if (force_enabled[f] == 0) continue;
    // two-pass scheme: the nonlinear parts act as at the frozen state
    const ForcePower p = nonlinear_frozen && forces[f]->has_nonlinear_part()
                             ? forces[f]->apply_part(ctx, accumulator, ForcePart::kLinear)
                             : forces[f]->apply(ctx, accumulator);
    // a formula that became NaN or inf: name the element (its power is then not finite)
    if (!std::isfinite(p.applied) || !std::isfinite(p.dissipated))
      throw SimulationError(t, fmt::format("{} is not finite (NaN or inf); check its formulas",
                                           forces[f]->element_label()));
    power.applied += p.applied;
    power.dissipated += p.dissipated;
  }
  if (nonlinear_frozen) add_frozen_loads();
}

void System::Impl::add_frozen_loads() {
  for (std::size_t i = 0; i < loads.size(); ++i) {
    loads[i].force_W += frozen_loads[i].force_W;
    loads[i].torque_B += frozen_loads[i].torque_B;
  }
  power.dissipated += frozen_power.dissipated;
  power.applied += frozen_power.applied;
}

void System::Impl::freeze_nonlinear_loads(double time, const VecX& state) {
  compute_kinematics(time, state);
  for (BodyLoad& l : frozen_loads) l = BodyLoad{};
  frozen_power = {};
  const ForceContext ctx(kin, t);
  LoadAccumulator accumulator(frozen_loads);
  for (std::size_t f = 0; f < forces.size(); ++f) {
    if (force_enabled[f] == 0 || !forces[f]->has_nonlinear_part()) continue;
    const ForcePower p = forces[f]->apply_part(ctx, accumulator, ForcePart::kNonlinear);
    frozen_power.applied += p.applied;
    frozen_power.dissipated += p.dissipated;
  }
  nonlinear_frozen = true;
  forget_evaluation();  // evaluations from now on see the frozen loads
}

MotionSample System::Impl::motion_sample(const DriverRuntime& d) const {
  // values of the motion formula around t, for derivatives by 4th-order
  // central differences when no explicit derivative is given
  if (!d.value) return {d.held, 0.0, 0.0};  // a stuck element's hold row
  const double t0 = t;
  auto at = [&](const internal::CompiledExpression& e, double time) {
    *time_slot = time;
    return e.evaluate();
  };
  MotionSample m;
  m.value = at(*d.value, t0) - d.offset;
  // a fixed step, not one relative to t: the motion's time scale does not
  // grow with the clock (1e-3 s keeps round-off of t +- h below 1e-9 up to
  // |t| ~ 1e6 s)
  const double h = 1e-3;
  if (d.rate) {
    m.rate = at(*d.rate, t0);
  } else {
    m.rate = (at(*d.value, t0 - 2 * h) - 8 * at(*d.value, t0 - h) + 8 * at(*d.value, t0 + h) -
              at(*d.value, t0 + 2 * h)) /
             (12 * h);
  }
  if (d.acceleration) {
    m.acceleration = at(*d.acceleration, t0);
  } else if (d.rate) {
    m.acceleration = (at(*d.rate, t0 - 2 * h) - 8 * at(*d.rate, t0 - h) + 8 * at(*d.rate, t0 + h) -
                      at(*d.rate, t0 + 2 * h)) /
                     (12 * h);
  } else {
    const double h2 = 4 * h;
    m.acceleration =
        (-at(*d.value, t0 - 2 * h2) + 16 * at(*d.value, t0 - h2) - 30 * at(*d.value, t0) +
         16 * at(*d.value, t0 + h2) - at(*d.value, t0 + 2 * h2)) /
        (12 * h2 * h2);
  }
  *time_slot = t0;
  return m;
}

void System::Impl::compute_rows() {
  ensure_structure();
  ++row_evaluations;
  if (row_geometry_current && row_time == t && same_bits(layout.positions(y), row_positions)) {
    compute_row_gammas();
    return;
  }
  ++row_geometry_evaluations;
  row_geometry_current = true;
  row_time = t;
  row_positions = layout.positions(y);
  const auto& joints = live_joints;
  for (std::size_t j = 0; j < joints.size(); ++j) {
    const JointRows& jr = joint_rows[j];
    if (jr.begin == jr.end) continue;
    const BodyKinematics& kb = kinematics(joints[j].base);
    const BodyKinematics& kf = kinematics(joints[j].follower);
    for (const int i : joint_instances[j]) {
      const int first = instance_row[static_cast<std::size_t>(i)];
      if (first < 0) continue;
      const Instance& inst = instances[static_cast<std::size_t>(i)];
      MotionSample motion;
      if (inst.driver >= 0) {
        const auto d = static_cast<std::size_t>(inst.driver);
        motion = motion_sample(drivers[d]);
        driver_samples[d] = motion;
      }
      const ConstraintContext ctx{kb, kf, t, motion};
      inst.constraint->evaluate(
          ctx, std::span<ConstraintRow>(rows.data() + first,
                                        static_cast<std::size_t>(inst.constraint->row_count())));
    }
    fill_lock_errors(static_cast<int>(j));
  }
  for (const int i : free_instances) {
    const int first = instance_row[static_cast<std::size_t>(i)];
    if (first < 0) continue;
    const Instance& inst = instances[static_cast<std::size_t>(i)];
    const auto d = static_cast<std::size_t>(inst.driver);
    driver_samples[d] = motion_sample(drivers[d]);
    const ConstraintContext ctx{kinematics(inst.base), kinematics(inst.follower), t,
                                driver_samples[d]};
    inst.constraint->evaluate(
        ctx, std::span<ConstraintRow>(rows.data() + first,
                                      static_cast<std::size_t>(inst.constraint->row_count())));
    if (drivers[d].hold_rotation) fill_hold_rotation_errors(drivers[d], inst, first);
  }
}

void System::Impl::compute_row_gammas() {
  // the position stage of every row, the lock groups' errors and the
  // drivers' samples (functions of t) are those of the last compute_rows()
  for (std::size_t j = 0; j < live_joints.size(); ++j) {
    const JointRows& jr = joint_rows[j];
    if (jr.begin == jr.end) continue;
    const BodyKinematics& kb = kinematics(live_joints[j].base);
    const BodyKinematics& kf = kinematics(live_joints[j].follower);
    for (const int i : joint_instances[j]) {
      const int first = instance_row[static_cast<std::size_t>(i)];
      if (first < 0) continue;
      const Instance& inst = instances[static_cast<std::size_t>(i)];
      const MotionSample motion =
          inst.driver >= 0 ? driver_samples[static_cast<std::size_t>(inst.driver)] : MotionSample{};
      inst.constraint->evaluate_gamma(
          ConstraintContext{kb, kf, t, motion},
          std::span<ConstraintRow>(rows.data() + first,
                                   static_cast<std::size_t>(inst.constraint->row_count())));
    }
  }
  for (const int i : free_instances) {
    const int first = instance_row[static_cast<std::size_t>(i)];
    if (first < 0) continue;
    const Instance& inst = instances[static_cast<std::size_t>(i)];
    inst.constraint->evaluate_gamma(
        ConstraintContext{kinematics(inst.base), kinematics(inst.follower), t,
                          driver_samples[static_cast<std::size_t>(inst.driver)]},
        std::span<ConstraintRow>(rows.data() + first,
                                 static_cast<std::size_t>(inst.constraint->row_count())));
  }
}

void System::Impl::fill_hold_rotation_errors(const DriverRuntime& d, const Instance& inst,
                                             int first) {
  // the follower's orientation against the one held, R_base H (H the
  // relative orientation at the instant of sticking), as a joint's triple of
  // locks (fill_lock_errors): theta = vee(skew(R_f (R_b H)^T)), row k n_k . theta
  const BodyKinematics& kb = kinematics(inst.base);
  const BodyKinematics& kf = kinematics(inst.follower);
  const Vec3 theta = vee_skew_part(kf.R_WB * (kb.R_WB * d.held_rotation).transpose());
  for (int k = 0; k < 3; ++k) {
    ConstraintRow& row = rows[static_cast<std::size_t>(first + k)];
    row.position_error = kb.R_WB.col(k).dot(theta);
    row.has_position_error = true;
  }
}

void System::Impl::fill_lock_errors(int j) {
  const Joint& joint = live_joints[static_cast<std::size_t>(j)];
  const LockGroup& g = joint_rows[static_cast<std::size_t>(j)].locks;
  const std::size_t count = g.rows.size();
  if (count == 0) return;
  const BodyKinematics& kb = kinematics(joint.base);
  const BodyKinematics& kf = kinematics(joint.follower);
  const Mat3 axes_base = kb.R_WB * joint.frame_base.axes;
  const Mat3 axes_follower = kf.R_WB * joint.frame_follower.axes;
  // the prescribed relative angle (motion value minus the assembled angle)
  const double driven =
      g.driver >= 0 ? driver_samples[static_cast<std::size_t>(g.driver)].value : 0.0;
  if (count >= 3) {
    // all relative rotation fixed: error rotation E = A_f Rz(theta)^T A_b^T
    const Mat3 target =
        g.driver_row >= 0 ? Mat3(axes_base * Eigen::AngleAxisd(driven, Vec3::UnitZ())) : axes_base;
    const Vec3 theta = vee_skew_part(axes_follower * target.transpose());
    for (std::size_t k = 0; k < count; ++k) {
      ConstraintRow& row = rows[static_cast<std::size_t>(g.rows[k])];
      row.position_error = (kb.R_WB * g.axes_base[k]).dot(theta);
      row.has_position_error = true;
    }
  } else if (count == 2 && g.driver_row < 0) {
    // rotation free about one axis: misalignment of that axis, c_i x c_j
    const Vec3 mis = (kb.R_WB * g.free_base).cross(kf.R_WB * g.free_follower);
    for (std::size_t k = 0; k < count; ++k) {
      ConstraintRow& row = rows[static_cast<std::size_t>(g.rows[k])];
      row.position_error = (kb.R_WB * g.axes_base[k]).dot(mis);
      row.has_position_error = true;
    }
  } else if (g.driver_row >= 0) {
    // a driver without enough locks: the measured joint angle against the motion
    const double raw = std::atan2(axes_follower.col(0).dot(axes_base.col(1)),
                                  axes_follower.col(0).dot(axes_base.col(0)));
    ConstraintRow& row = rows[static_cast<std::size_t>(g.driver_row)];
    row.position_error = wrap_to_pi(raw - driven);
    row.has_position_error = true;
  }
}

bool System::Impl::dropped_row_violated() {
  if (std::none_of(dropped.begin(), dropped.end(), [](char d) { return d != 0; })) return false;
  compute_rows();
  // A dependent row stays satisfied by the others only while the rank of D is
  // unchanged. If the mechanism leaves a singular configuration the row
  // becomes independent and its velocity residual grows to the order of the
  // velocities, far beyond the drift that the independent rows show.
  double kept_residual = 0.0;  // largest |D u - h| of the independent rows (drift)
  const auto m = rows.size();
  for (std::size_t r = 0; r < m; ++r)
    if (dropped[r] == 0)
      kept_residual =
          std::max(kept_residual, std::abs(row_rate(static_cast<int>(r)) - rows[r].target));
  for (std::size_t r = 0; r < m; ++r) {
    if (dropped[r] == 0) continue;
    const double residual = std::abs(row_rate(static_cast<int>(r)) - rows[r].target);
    if (residual > 1e-3 * row_speed_scale(static_cast<int>(r)) && residual > 1e3 * kept_residual &&
        residual > 1e-10)
      return true;
  }
  return false;
}

void System::Impl::solve_dynamics() {
  const auto m = rows.size();
  for (std::size_t r = 0; r < m; ++r) {
    if (dropped[r] != 0) continue;
    const ConstraintRow& row = rows[r];
    kkt_rhs(static_cast<Eigen::Index>(r)) =
        internal::stabilised_target(row, row_rate(static_cast<int>(r)), stabilisation);
  }

  tree_used = solve_on_tree();
  bool ok = true;
  if (!tree_used) {
    set_schur_rhs();
    solver.assemble(rows, inverse_mass, dropped);
    ok = solver.factorize();
  }
  if (!tree_used && m > 0) {
    // a small pivot of S signals a possible rank change, or only a small
    // inertia (a slender rod): the geometry of D decides (constraint_rank.h),
    // asked again only when the pivots fall a further factor of 100; a
    // failed factorisation (a zero or non-finite pivot) counts as ratio 0
    const double ratio = ok ? solver.smallest_pivot_ratio(dropped).first : 0.0;
    if (!(ratio > geometric_check_below)) {
      ok = rank.independent(rows, row_bodies, dropped, singular_window);
      // D has full rank but S lost every digit of a pivot. Where the
      // geometry alone comes that close (a row within kNearlyDependent of
      // the span of the others: S's pivots go as the square of the sine),
      // the row is dropped over a window widened to ten times its sine (a
      // box lying on its side, yawed by an off-centre push: two corners'
      // tangents along one line to a sine of 1.25e-5, and a pivot ratio of
      // -1.8e-9); otherwise the masses did it (a body far stiffer in
      // rotation than in translation: the KKT system, whose pivoting
      // eliminates in the same order, fails as well)
      if (ok && !(ratio > 0.0)) {
        const double sine = rank.smallest_sine(rows, row_bodies, dropped);
        if (redetecting || !(sine < kNearlyDependent)) throw SimulationError(t, kMassesOutOfRange);
        singular_window =
            std::clamp(10.0 * sine, internal::ConstraintRank::kTolerance, kSingularWindow);
        ok = false;
      }
      if (ok) {
        geometric_check_below = 1e-2 * ratio;
        // S lost far more digits than the geometry explains (the square of
        // the scaled D's condition): the mass matrix did it; solve the KKT
        // system instead, where no inertia is inverted (kkt_solver.h)
        const double geometric = rank.condition();
        if (!inertia_ill_conditioned && ratio * geometric * geometric < kInertiaIllConditioning) {
          kkt.resize(model.bodies(), static_cast<int>(m));
          inertia_ill_conditioned = true;
        }
      }
    }
  }
  if (!ok) {
    if (redetecting)
      throw SimulationError(t,
                            "the constraint set is singular and no dependent rows could be "
                            "isolated (a degenerate configuration?)");
    // the rank of D changed with the configuration: find the dependent rows again
    redetecting = true;
    redetect_rank(t);
    // detect_redundancy recomputed the rows; rebuild the right-hand side
    solve_dynamics();
    redetecting = false;
    return;
  }
  driver_power = 0.0;
  if (tree_used) {
    for (std::size_t r = 0; r < m; ++r)
      if (instances[static_cast<std::size_t>(row_info[r].instance)].driver >= 0)
        driver_power += multipliers(static_cast<Eigen::Index>(r)) * row_rate(static_cast<int>(r));
  } else if (inertia_ill_conditioned) {
    if (!kkt.solve(
            D,
            [this](BodyIndex b) {
              const BodyLoad& l = loads[static_cast<std::size_t>(b)];
              return (Vec6() << l.force_W, l.torque_B).finished();
            },
            kkt_rhs, dropped, accelerations, multipliers))
      throw SimulationError(t, kMassesOutOfRange);
    for (std::size_t r = 0; r < m; ++r)
      if (dropped[r] == 0 && instances[static_cast<std::size_t>(row_info[r].instance)].driver >= 0)
        driver_power += multipliers(static_cast<Eigen::Index>(r)) * row_rate(static_cast<int>(r));
  } else {
    multipliers = rhs;
    solver.solve_in_place(multipliers);
    for (int b = 0; b < n; ++b)
      accelerations[static_cast<std::size_t>(b)] = free_accelerations[static_cast<std::size_t>(b)];
    for (std::size_t r = 0; r < m; ++r) {
      if (dropped[r] != 0) continue;
      const double p = multipliers(static_cast<Eigen::Index>(r));
      D.add_inverse_mass_transpose(
          static_cast<int>(r), p, inverse_mass,
          [this](BodyIndex b) -> Vec6& { return accelerations[static_cast<std::size_t>(b)]; });
      if (instances[static_cast<std::size_t>(row_info[r].instance)].driver >= 0)
        driver_power += p * row_rate(static_cast<int>(r));
    }
  }
  press_dependent_contacts(multipliers);  // system_dependent_contacts.cpp
  solve_joint_friction();                 // system_joint_friction.cpp
  for (const Vec6& a : accelerations)
    if (!a.allFinite())
      throw SimulationError(t,
                            "accelerations are not finite (singular constraint set, or a "
                            "force formula returned NaN/inf)");
  if (!std::isfinite(power.applied) || !std::isfinite(power.dissipated))
    throw SimulationError(t, "a force element returned a non-finite value");
  dynamics_valid = true;
}

void System::Impl::set_schur_rhs() {
  // unconstrained accelerations M^-1 f
  for (int b = 0; b < n; ++b) {
    const auto i = static_cast<std::size_t>(b);
    free_accelerations[i].head<3>() = inverse_mass[i].inv_mass * loads[i].force_W;
    free_accelerations[i].tail<3>() = inverse_mass[i].inv_inertia * loads[i].torque_B;
  }
  // S p = b - D M^-1 f
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (dropped[r] != 0) {
      rhs(static_cast<Eigen::Index>(r)) = 0.0;
      continue;
    }
    const double dfree = D.row_times(static_cast<int>(r), [this](BodyIndex b) -> const Vec6& {
      return free_accelerations[static_cast<std::size_t>(b)];
    });
    rhs(static_cast<Eigen::Index>(r)) = kkt_rhs(static_cast<Eigen::Index>(r)) - dfree;
  }
}

bool System::Impl::tree_may_solve() {
  if (!tree_allowed || inertia_ill_conditioned || !friction_joints.empty()) return false;
  // the dropped rows change with the rank (redetect_rank, a restored mode):
  // the tree and its cut rows are chosen among the kept rows (allocates, at
  // a rank change only)
  if (!tree.analysed_for(dropped)) tree.analyse(row_bodies, model.bodies(), dropped);
  return tree.usable();
}

bool System::Impl::solve_schur(VecX& p) {
  if (tree_may_solve() && tree.factorize(rows) &&
      tree.smallest_pivot_ratio() > geometric_check_below) {
    // with no load, M a = D^T p and D a = b give S p = b
    tree_rhs = p;
    tree.solve([](BodyIndex) { return Vec6::Zero().eval(); }, tree_rhs, tree_accelerations, p);
    return true;
  }
  solver.assemble(rows, inverse_mass, dropped);
  if (!solver.factorize()) return false;
  solver.solve_in_place(p);
  return true;
}

bool System::Impl::solve_on_tree() {
  if (!tree_may_solve()) return false;
  // small pivots: the sparse path decides whether the rank changed (and asks
  // the geometry), as it does for its own pivots
  if (!tree.factorize(rows) || !(tree.smallest_pivot_ratio() > geometric_check_below)) return false;
  tree.solve(
      [this](BodyIndex b) {
        const BodyLoad& l = loads[static_cast<std::size_t>(b)];
        return (Vec6() << l.force_W, l.torque_B).finished();
      },
      kkt_rhs, accelerations, multipliers);
  return true;
}

void System::Impl::compute_all(double time, const VecX& state) {
  compute_kinematics(time, state);
  compute_loads();
  compute_rows();
  solve_dynamics();
  refresh_slots(dynamic_slots);
}

void System::Impl::ensure_dynamics() {
  if (dynamics_valid && (!slips_unsolved || slips_may_stay_unsolved)) return;
  compute_loads();
  compute_rows();
  solve_dynamics();
  refresh_slots(dynamic_slots);
}

double System::Impl::multiplier(int row) const {
  // a dependent contact row carries its share (system_dependent_contacts.cpp)
  return row_carries(row) ? multipliers(row) : 0.0;
}

double System::Impl::row_speed_scale(int row) const {
  const auto r = static_cast<std::size_t>(row);
  const internal::RowBodies& rb = row_bodies[r];
  double scale = std::abs(rows[r].target);
  if (rb.base != kGround)
    scale += rows[r].J_base.cwiseAbs().dot(layout.body_velocity(y, rb.base).cwiseAbs());
  if (rb.follower != kGround)
    scale += rows[r].J_follower.cwiseAbs().dot(layout.body_velocity(y, rb.follower).cwiseAbs());
  return scale;
}

double System::Impl::row_rate(int row) const {
  return D.row_times(row, [this](BodyIndex b) { return layout.body_velocity(y, b); });
}

// --- joint coordinates and reactions ----------------------------------------

double System::Impl::joint_angle(int j) const {
  const Joint& joint = live_joints[static_cast<std::size_t>(j)];
  const Mat3 axes_base = kinematics(joint.base).R_WB * joint.frame_base.axes;
  const Mat3 axes_follower = kinematics(joint.follower).R_WB * joint.frame_follower.axes;
  const double raw = std::atan2(axes_follower.col(0).dot(axes_base.col(1)),
                                axes_follower.col(0).dot(axes_base.col(0)));
  // unwrap around the angle expected from the last accepted one and its rate,
  // so that a step may turn the joint by more than half a turn
  const auto ji = static_cast<std::size_t>(j);
  const double expected = angle_reference[ji] + angle_rate_reference[ji] * (t - reference_time);
  return expected + wrap_to_pi(raw + joint.angle_offset - expected);
}

double System::Impl::joint_angle_rate(int j) const {
  const Joint& joint = live_joints[static_cast<std::size_t>(j)];
  const BodyKinematics& kb = kinematics(joint.base);
  const Vec3 axis = kb.R_WB * joint.frame_base.axes.col(2);
  return (kinematics(joint.follower).w_W - kb.w_W).dot(axis);
}

double System::Impl::joint_translation(int j) const {
  const Joint& joint = live_joints[static_cast<std::size_t>(j)];
  const BodyKinematics& kb = kinematics(joint.base);
  const Vec3 axis = kb.R_WB * joint.frame_base.axes.col(2);
  const Vec3 d = kinematics(joint.follower).point(joint.frame_follower.origin) -
                 kb.point(joint.frame_base.origin);
  return d.dot(axis) + joint.translation_offset;
}

double System::Impl::joint_translation_rate(int j) const {
  const Joint& joint = live_joints[static_cast<std::size_t>(j)];
  const BodyKinematics& kb = kinematics(joint.base);
  const BodyKinematics& kf = kinematics(joint.follower);
  const Vec3 axis = kb.R_WB * joint.frame_base.axes.col(2);
  const Vec3 p = kf.point(joint.frame_follower.origin);
  return axis.dot(kf.point_velocity(joint.frame_follower.origin) - kb.velocity_at(p));
}

Vec3 System::Impl::joint_reaction_force_W(int j) const {
  const JointRows& jr = joint_rows[static_cast<std::size_t>(j)];
  Vec3 f = Vec3::Zero();
  for (int r = jr.begin; r < jr.end; ++r) {
    if (instances[static_cast<std::size_t>(row_info[static_cast<std::size_t>(r)].instance)]
            .driver >= 0)
      continue;  // the actuator load is reported by the driver
    f += multiplier(r) * rows[static_cast<std::size_t>(r)].J_follower.head<3>();
  }
  return f;
}

Vec3 System::Impl::joint_reaction_moment_W(int j) const {
  const Joint& joint = live_joints[static_cast<std::size_t>(j)];
  const JointRows& jr = joint_rows[static_cast<std::size_t>(j)];
  const BodyKinematics& kf = kinematics(joint.follower);
  Vec3 torque_B = Vec3::Zero();
  for (int r = jr.begin; r < jr.end; ++r) {
    if (instances[static_cast<std::size_t>(row_info[static_cast<std::size_t>(r)].instance)]
            .driver >= 0)
      continue;
    torque_B += multiplier(r) * rows[static_cast<std::size_t>(r)].J_follower.tail<3>();
  }
  // moment about the joint point P: M_P = M_c - (P - c) x F
  const Vec3 p = kf.point(joint.frame_follower.origin);
  return kf.R_WB * torque_B - (p - kf.p_W).cross(joint_reaction_force_W(j));
}

double System::Impl::kinetic_energy() const {
  double e = 0.0;
  for (int b = 0; b < n; ++b) {
    const auto i = static_cast<std::size_t>(b);
    const Body& body = model.bodies()[i];
    e += 0.5 * body.mass * kin[i].v_W.squaredNorm() +
         0.5 * kin[i].w_B.dot(body.inertia * kin[i].w_B);
  }
  return e;
}

double System::Impl::potential_energy() const {
  const ForceContext ctx(kin, t);
  double v = 0.0;
  for (std::size_t f = 0; f < forces.size(); ++f)
    if (force_enabled[f] != 0) v += forces[f]->potential_energy(ctx);
  return v;
}

}  // namespace ictus
