// The constraint structure: which rows are active, how rotation locks pair
// up, and which rows are redundant.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>

#include "ictus/constraints/rotation_lock.h"
#include "system_impl.h"
#include "text_util.h"

namespace ictus {

void System::Impl::ensure_structure() {
  if (structure_dirty) rebuild_structure();
}

void System::Impl::rebuild_structure() {
  log_rank_change();             // the rows it names are those of this structure
  row_geometry_current = false;  // rows are laid out anew
  const auto& joints = live_joints;
  // what was active before, to tell the constraints that close now (impacts)
  std::vector<char> was_active(instances.size(), 0);
  if (instance_row.size() == instances.size())
    for (std::size_t i = 0; i < instances.size(); ++i) was_active[i] = instance_row[i] >= 0;
  // joints switched on since the last structure; latches close where they are
  joint_newly_enabled.resize(joints.size(), 0);
  for (std::size_t j = 0; j < joints.size(); ++j) {
    bool closes = false;
    if (joint_enabled[j] != 0 && joint_enabled_before[j] == 0) {
      joint_newly_enabled[j] = 1;
      closes = true;
    }
    // a member switched on again closes a latch just the same
    if (joint_enabled[j] != 0)
      for (const int i : joint_instances[j])
        if (instances[static_cast<std::size_t>(i)].enabled != 0 &&
            was_active[static_cast<std::size_t>(i)] == 0 && instance_row.size() == instances.size())
          closes = true;
    // (a restored mode brings its captured frames along)
    if (closes && joints[j].capture && adopt_redundancy == nullptr)
      capture_joint(static_cast<int>(j));
  }
  row_info.clear();
  row_bodies.clear();
  instance_row.assign(instances.size(), -1);
  joint_rows.assign(joints.size(), {});
  for (std::size_t j = 0; j < joints.size(); ++j) {
    JointRows& jr = joint_rows[j];
    jr.begin = static_cast<int>(row_info.size());
    if (joint_enabled[j] != 0) {
      for (const int i : joint_instances[j]) {
        const Instance& inst = instances[static_cast<std::size_t>(i)];
        if (inst.enabled == 0) continue;
        instance_row[static_cast<std::size_t>(i)] = static_cast<int>(row_info.size());
        for (int k = 0; k < inst.constraint->row_count(); ++k) {
          row_info.push_back({i, k});
          row_bodies.push_back({joints[j].base, joints[j].follower});
        }
        if (inst.is_lock) {
          const auto* lock = static_cast<const RotationLock*>(inst.constraint.get());
          jr.locks.rows.push_back(instance_row[static_cast<std::size_t>(i)]);
          jr.locks.axes_base.push_back(lock->axis_base());
          // the driven angle the group's errors are measured against: a
          // model driver's before a stuck hold's on the same joint (a
          // driven frictional pin at rest, whose hold is dependent on the
          // driver's row and dropped; measured against the hold's angle,
          // the driver's row would be stabilised away from its motion)
          const auto is_hold = [this](int d) {
            return drivers[static_cast<std::size_t>(d)].hold_force >= 0;
          };
          if (inst.driver >= 0 && (jr.locks.driver < 0 || is_hold(jr.locks.driver))) {
            jr.locks.driver_row = instance_row[static_cast<std::size_t>(i)];
            jr.locks.driver = inst.driver;
          }
        }
      }
    }
    jr.end = static_cast<int>(row_info.size());
    LockGroup& g = jr.locks;
    if (g.rows.size() == 2) {
      // the free axis of a pair of locks, carried by both bodies
      g.free_base = g.axes_base[0].cross(g.axes_base[1]).normalized();
      g.free_follower =
          joints[j].frame_follower.axes * (joints[j].frame_base.axes.transpose() * g.free_base);
    }
  }
  // rows of no joint (the distance holds of stick/slip elements between two
  // points), after every joint's range
  for (const int i : free_instances) {
    const Instance& inst = instances[static_cast<std::size_t>(i)];
    if (inst.enabled == 0) continue;
    instance_row[static_cast<std::size_t>(i)] = static_cast<int>(row_info.size());
    for (int k = 0; k < inst.constraint->row_count(); ++k) {
      row_info.push_back({i, k});
      row_bodies.push_back({inst.base, inst.follower});
    }
  }
  newly_active.resize(instances.size(), 0);
  for (std::size_t i = 0; i < instances.size(); ++i)
    if (instance_row[i] >= 0 && was_active[i] == 0) newly_active[i] = 1;
  joint_enabled_before = joint_enabled;
  const std::size_t m = row_info.size();
  rows.assign(m, ConstraintRow{});
  dropped.assign(m, 0);
  D = internal::ConstraintJacobian(rows, row_bodies);
  multipliers = VecX::Zero(static_cast<Eigen::Index>(m));
  rhs = VecX::Zero(static_cast<Eigen::Index>(m));
  newton_buffer = VecX::Zero(static_cast<Eigen::Index>(m));
  displacement_buffer = VecX::Zero(layout.velocity_size());
  impact_velocities_before = VecX::Zero(layout.velocity_size());
  state_buffer = VecX::Zero(layout.size());
  solver.analyse(row_bodies, n);
  tree_accelerations.assign(static_cast<std::size_t>(n), Vec6::Zero());
  tree_rhs = VecX::Zero(static_cast<Eigen::Index>(m));
  rank.analyse(row_bodies, n);
  no_rows.assign(m, 0);
  dependent_rows.assign(m, 0);
  rank_change.rows.assign(m, 0);
  before_probe.dropped.assign(m, 0);
  before_probe.rank_change.rows.assign(m, 0);
  geometric_check_below = kSchurCheck;
  inertia_ill_conditioned = false;
  kkt_rhs = VecX::Zero(static_cast<Eigen::Index>(m));
  ++structure_version;
  structure_dirty = false;
  if (adopt_redundancy != nullptr && adopt_redundancy->dropped.size() == m) {
    // a restored mode: the same dependent rows as the run it was saved from
    dropped = adopt_redundancy->dropped;
    self_stress = adopt_redundancy->self_stress;
    singular_window = adopt_redundancy->singular_window;
    structure_sine = adopt_redundancy->structure_sine;
    sine_checked_at_ratio = adopt_redundancy->sine_checked_at_ratio;
    built_sine = adopt_redundancy->built_sine;
    // the rank it was built with or raised to, and whether a passage had
    // lowered it, as in the run the mode was saved from
    structure_rank = adopt_redundancy->structure_rank;
    rank_lowered = adopt_redundancy->rank_lowered;
    structure_assembled = adopt_redundancy->structure_assembled;
  } else {
    detect_redundancy();
    structure_sine = rows.empty() ? 1.0
                                  : std::max(rank.smallest_sine(rows, row_bodies, dropped),
                                             internal::ConstraintRank::kTolerance);
    singular_window =
        std::clamp(0.1 * structure_sine, internal::ConstraintRank::kTolerance, kSingularWindow);
    sine_checked_at_ratio = 0.0;
    built_sine = structure_sine;
    structure_rank = static_cast<long>(m) - std::count(dropped.begin(), dropped.end(), char{1});
    rank_lowered = false;
    structure_assembled = false;
  }
  tree.analyse(row_bodies, model.bodies(), dropped);
}

bool System::Impl::redetect_rank(double time) {
  // while the rank stays lowered this runs at every accepted step: decide
  // first, in buffers of the structure, and rebuild the self-stress modes
  // (which allocate) only when the dependent rows changed
  compute_rows();
  find_dependent_rows(dependent_rows, singular_window);
  if (dependent_rows == dropped) return false;
  keep_self_stress_for_probe();
  const std::vector<char> before = dropped;
  std::fill(dropped.begin(), dropped.end(), char{0});
  detect_redundancy(false, singular_window);
  if (dropped == before) return false;
  const auto rows_count = static_cast<long>(dropped.size());
  const long after = rows_count - std::count(dropped.begin(), dropped.end(), char{1});
  const long was = rows_count - std::count(before.begin(), before.end(), char{1});
  // built at a singular configuration (a parallelogram started flat): its
  // rank was the lowered one, and the next passage through it would not be
  // recognised as one (rk4 took the other branch there). Raised where a
  // joint's own row comes back: contacts' and stuck holds' rows part and
  // join as a body turns on its corners, which is no singular configuration
  bool joint_row_back = false;
  for (std::size_t r = 0; r < dropped.size(); ++r)
    joint_row_back = joint_row_back ||
                     (before[r] != 0 && dropped[r] == 0 && joint_geometry_row(static_cast<int>(r)));
  if (joint_row_back) structure_rank = std::max(structure_rank, after);
  rank_lowered = after < structure_rank;
  ++rank_changes;
  RankChange& c = rank_change;
  if (!c.pending) {
    c.pending = true;
    c.time = time;
    c.last_time = time;
    c.rank_before = was;
    c.lowest = was;
    std::fill(c.rows.begin(), c.rows.end(), char{0});
  }
  c.time = std::min(c.time, time);
  c.last_time = std::max(c.last_time, time);
  c.rank_after = after;
  c.lowest = std::min(c.lowest, after);
  for (std::size_t r = 0; r < dropped.size(); ++r)
    if (dropped[r] != before[r]) c.rows[r] = 1;
  return true;
}

// pivot ratio of S above which no configuration of lower rank is near
constexpr double kSingularityRatio = 1e-2;
// growth of S's smallest pivot ratio at which the structure's sine is
// checked again (a tenfold sine)
constexpr double kSineRecheckGrowth = 1e2;
// growth of the sine since the build that marks a structure built near a
// singular configuration (a parallelogram 1e-5 to 1e-1 rad off flat; the
// peers' chains of 16 to 256 bars were checked once in a run, at the sine
// they were built with)
constexpr double kBuiltNearSingularGrowth = 10.0;

// The smallest pivot ratio of S, free from the solve, is small near a
// singular configuration but also for small inertias (a slender rod): only
// then is the geometry asked, the smallest sine of the scaled D
// (constraint_rank.h), which falls linearly to zero at a crossing whatever
// the inertia. Both relative to the mechanism's own conditioning where that
// is poor (conditioning_scale; the pivots go as the square of the sines):
// a long chain is otherwise near a crossing at every step, and every step
// of dopri5 is searched for one (half the CPU of a run of 64 bars).
double System::singularity_distance() {
  Impl& s = *impl_;
  if (!s.dynamics_valid || s.rows.empty()) return std::numeric_limits<double>::infinity();
  const double ratio =
      s.tree_used ? s.tree.smallest_pivot_ratio() : s.solver.smallest_pivot_ratio(s.dropped).first;
  // A structure built near a singular configuration (a parallelogram 1e-5
  // rad off flat) took that configuration's small sine for its own
  // conditioning: a window of 1e-5 and a scale of 1e-4, and the next
  // passage was one it could not see (it turned onto the other branch, or
  // lost 1 % of the energy in a run of rank changes). A sine that has grown
  // kBuiltNearSingularGrowth-fold since the build is no property of the
  // mechanism: it was built near a singular configuration, and the
  // structure's sine follows the largest seen since (a return to that
  // configuration is a passage). A long chain, whose sine changes by a
  // small factor with its shape, keeps its own (raised to a passing higher
  // one, it would take its build shape for a singular configuration).
  // Asked at the first accepted step of a structure and whenever the
  // pivots of S, free from the solve, have grown by kSineRecheckGrowth
  // since (their ratio goes as the square of the sine): one factorisation
  // of the geometry per such growth.
  if (s.structure_sine < Impl::kWellConditionedSine && !s.rank_lowered &&
      ratio > kSineRecheckGrowth * s.sine_checked_at_ratio) {
    s.sine_checked_at_ratio = ratio;
    const double sine = s.rank.smallest_sine(s.rows, s.row_bodies, s.dropped);
    if (sine >= kBuiltNearSingularGrowth * s.built_sine && sine > s.structure_sine) {
      s.structure_sine = sine;
      s.singular_window =
          std::clamp(0.1 * sine, internal::ConstraintRank::kTolerance, Impl::kSingularWindow);
    }
  }
  const double scale = s.conditioning_scale();
  if (ratio > kSingularityRatio * scale * scale) return std::numeric_limits<double>::infinity();
  return s.rank.smallest_sine(s.rows, s.row_bodies, s.dropped) / scale;
}

// Between stages (a stepper looking for a passage on its dense output): the
// kinematics and rows at y, and the geometry alone, whatever S's pivots say.
double System::singularity_distance_at(double t, const VecX& y) {
  Impl& s = *impl_;
  if (s.rows.empty()) return std::numeric_limits<double>::infinity();
  s.compute_kinematics(t, y);
  s.compute_rows();
  s.forget_evaluation();  // the stepper's state is elsewhere
  return s.rank.smallest_sine(s.rows, s.row_bodies, s.dropped) / s.conditioning_scale();
}

// A step that passed a singular configuration without a stage near enough to
// drop a row (placed across it, steppers/singular_crossing.h, or a long step)
// keeps every row. The passage is logged as one a stage saw would be: the
// rows dependent at the crossing, which the stepper found on its dense output.
void System::note_singular_passage(double t, const VecX& y) {
  Impl& s = *impl_;
  s.compute_kinematics(t, y);
  s.compute_rows();
  s.find_dependent_rows(s.dependent_rows, s.singular_window);
  long lowest = 0;
  bool passage = false;
  for (std::size_t r = 0; r < s.dropped.size(); ++r) {
    lowest += s.dependent_rows[r] == 0 ? 1 : 0;
    passage = passage || (s.dependent_rows[r] != 0 && s.dropped[r] == 0);
  }
  s.forget_evaluation();  // the stepper's state is elsewhere
  if (!passage) return;
  ++s.rank_changes;
  Impl::RankChange& c = s.rank_change;
  if (!c.pending) {
    c.pending = true;
    c.time = t;
    c.last_time = t;
    c.rank_before = s.structure_rank;
    c.lowest = s.structure_rank;
    std::fill(c.rows.begin(), c.rows.end(), char{0});
  }
  c.time = std::min(c.time, t);
  c.last_time = std::max(c.last_time, t);
  c.rank_after = s.structure_rank;
  c.lowest = std::min(c.lowest, lowest);
  for (std::size_t r = 0; r < s.dropped.size(); ++r)
    if (s.dependent_rows[r] != 0 && s.dropped[r] == 0) c.rows[r] = 1;
}

void System::Impl::log_rank_change(std::optional<double> time) {
  // a passage goes down and up again in several accepted steps (the rows of
  // a chain leave and come back one by one; the steps that approach it dip
  // into the window with a stage): one warning for it, once the run is as
  // far past the last change as ten times the passage has lasted
  if (!rank_change.pending) return;
  const RankChange& c = rank_change;
  if (time && (rank_lowered || !(*time > c.last_time + 10.0 * (c.last_time - c.time)))) return;
  rank_change.pending = false;
  std::vector<std::string> names;
  for (std::size_t r = 0; r < c.rows.size(); ++r)
    if (c.rows[r] != 0) names.push_back(row_name(static_cast<int>(r)));
  std::sort(names.begin(), names.end());
  std::string ranks = fmt::format("{} -> {}", c.rank_before, c.rank_after);
  if (c.lowest < std::min(c.rank_before, c.rank_after))
    ranks = fmt::format("{} -> {} -> {}", c.rank_before, c.lowest, c.rank_after);
  const std::string when = c.last_time > c.time
                               ? fmt::format("t = {:.9g} to {:.9g} s", c.time, c.last_time)
                               : fmt::format("t = {:.9g} s", c.time);
  warnings.push_back(
      fmt::format("{}: the constraint rank changed ({}; rows {}): the mechanism passes a singular "
                  "configuration",
                  when, ranks, internal::join_names(names, 20)));
}

// Kinetic energy a projection may take from a structure built at a singular
// configuration, relative, before its initial velocities count as off every
// branch. Measured on a parallelogram assembled flat: with both crank rates
// given the drift of the first step without the row takes 1.1e-6 (dopri5;
// rk4 3.7e-7); with one, the least change between the branches 0.70.
constexpr double kBranchLoss = 1e-4;

void System::Impl::warn_branch_not_fixed(double time, double removed, double kinetic) {
  if (!structure_assembled || !(removed > kBranchLoss * kinetic)) return;
  std::vector<std::string> back;
  for (std::size_t r = 0; r < rank_change.rows.size(); ++r)
    if (rank_change.rows[r] != 0 && dropped[r] == 0) back.push_back(row_name(static_cast<int>(r)));
  warn(fmt::format(
      "t = {:.9g} s: the mechanism was assembled at a singular configuration (rows {} "
      "depended on the others there and hold again from here); putting the velocities back "
      "onto them took {:.3g} J of kinetic energy ({:.2g} %): the given initial velocities "
      "did not fix which way it moves from there (give the rates of more joints)",
      time, internal::join_names(back), removed, 100.0 * removed / kinetic));
}

void System::Impl::warn(std::string text) {
  const auto [it, first] = warning_repeats.try_emplace(text, 0);
  if (first) {
    warnings.push_back(std::move(text));
  } else {
    ++it->second;
  }
}

// A body held both by a joint or contact and by a stuck friction force (a
// pendulum with a frictional pin whose tip rests on a floor) has a stuck
// hold dependent on the other rows: the forces are statically
// indeterminate. The rows without the holds are analysed first, then each
// hold is kept where it adds to the rank of those kept so far: a dependent
// hold is dropped and its force is zero, the least friction, which its cone
// always admits (and which the decision at zero rate, whose unknowns are the
// friction forces, finds at its least norm). Left to the elimination order
// the solve could keep the hold and drop a joint's row, the hold then
// carrying the load beyond its cone, and the element would be let go at
// once while the body stays at rest.
void System::Impl::find_dependent_rows(std::vector<char>& dependent, double sine) {
  const std::size_t m = rows.size();
  hold_rows.assign(m, 0);
  bool any = false;
  for (std::size_t k = 0; k < hold_driver.size(); ++k) {
    const int first = hold_row(static_cast<int>(k));
    if (first < 0) continue;
    const Instance& hold = instances[static_cast<std::size_t>(
        drivers[static_cast<std::size_t>(hold_driver[k])].instance)];
    for (int q = 0; q < hold.constraint->row_count(); ++q)
      hold_rows[static_cast<std::size_t>(first + q)] = 1;
    any = true;
  }
  if (!any) {
    rank.find_dependent_rows(rows, row_bodies, no_rows, dependent, sine);
    return;
  }
  rank.find_dependent_rows(rows, row_bodies, hold_rows, dependent, sine);
  rank_excluded.assign(m, 0);
  for (std::size_t r = 0; r < m; ++r)
    rank_excluded[r] = dependent[r] != 0 || hold_rows[r] != 0 ? 1 : 0;
  for (std::size_t r = 0; r < m; ++r) {
    if (hold_rows[r] == 0) continue;
    rank_excluded[r] = 0;
    if (rank.independent(rows, row_bodies, rank_excluded, sine)) continue;
    rank_excluded[r] = 1;
    dependent[r] = 1;
  }
}

void System::Impl::detect_redundancy(bool report, double sine) {
  self_stress.clear();
  compute_rows();
  // which rows depend on the others is decided on D alone (constraint_rank.h)
  find_dependent_rows(dropped, sine);
  geometric_check_below = kSchurCheck;
  solver.assemble(rows, inverse_mass, dropped);
  const bool factorized = solver.factorize();
  // which kept rows each dropped row depends on: solve S c = D M^-1 D_r^T
  const auto m = static_cast<Eigen::Index>(rows.size());
  std::vector<std::string> dropped_names;
  for (Eigen::Index r = 0; r < m; ++r) {
    if (dropped[static_cast<std::size_t>(r)] == 0) continue;
    if (!factorized) {
      const int bad = solver.first_unusable_row(dropped);
      throw row_error(bad, unrepresentable_row_message(row_name(bad)));
    }
    VecX column = VecX::Zero(m);
    for (Eigen::Index k = 0; k < m; ++k)
      column(k) = dropped[static_cast<std::size_t>(k)] != 0
                      ? 0.0
                      : D.schur_entry(static_cast<int>(k), static_cast<int>(r), inverse_mass);
    solver.solve_in_place(column);
    const double scale = column.cwiseAbs().maxCoeff();
    // self-stress: multipliers e_r - sum c_k e_k change no motion (D^T of it is 0);
    // the rows with a coefficient are those row r depends on
    std::vector<std::pair<int, double>> mode{{static_cast<int>(r), 1.0}};
    for (Eigen::Index k = 0; k < m; ++k)
      if (dropped[static_cast<std::size_t>(k)] == 0 && std::abs(column(k)) > 1e-8 * scale)
        mode.emplace_back(static_cast<int>(k), -column(k));
    self_stress.push_back(std::move(mode));
    dropped_names.push_back(row_name(static_cast<int>(r)));
  }
  // Said where a row depends on the others that no earlier warning of the
  // run named: a box on a rough floor flush against a rough wall changes
  // its structure at every stick and slip, and sliding along the wall to a
  // stop in 0.1 s it logged 20 such warnings, each naming most of the rows
  // of one before (3 now)
  const bool new_row =
      std::any_of(dropped_names.begin(), dropped_names.end(),
                  [&](const std::string& name) { return !dependent_rows_named.contains(name); });
  if (report && new_row) {
    dependent_rows_named.insert(dropped_names.begin(), dropped_names.end());
    warn(fmt::format(
        "redundant constraints: {} dependent row(s) eliminated ({}); the motion is unique but "
        "these reaction components are not (statically indeterminate): {}",
        dropped_names.size(), internal::join_names(dropped_names, 20),
        internal::join_names(non_unique_components(), 20)));
  }
}

// A latch closes where the bodies are: the follower frame becomes the base
// frame at this instant, and the joint's elementary constraints are rebuilt
// from the new frames (the lock groups of rebuild_structure follow).
void System::Impl::capture_joint(int j) {
  forget_evaluation();  // joint coordinates change with the frames
  Joint& joint = live_joints[static_cast<std::size_t>(j)];
  const BodyKinematics& kb = kinematics(joint.base);
  const BodyKinematics& kf = kinematics(joint.follower);
  const Vec3 origin_W = kb.point(joint.frame_base.origin);
  const Mat3 axes_W = kb.R_WB * joint.frame_base.axes;
  joint.frame_follower.origin = kf.R_WB.transpose() * (origin_W - kf.p_W);
  joint.frame_follower.axes = kf.R_WB.transpose() * axes_W;
  Joint rebuilt = joint;
  rebuilt.members.clear();
  add_standard_constraints(rebuilt);
  for (std::size_t k = 0; k < rebuilt.members.size(); ++k)
    rebuilt.members[k].restitution = joint.members[k].restitution;
  joint.members = rebuilt.members;
  std::size_t k = 0;
  for (const int i : joint_instances[static_cast<std::size_t>(j)]) {
    Instance& inst = instances[static_cast<std::size_t>(i)];
    if (inst.driver >= 0) continue;
    inst.constraint = joint.members[k].constraint;
    ++k;
  }
}

// Reaction components (world axes) that a self-stress changes: those are not
// determined by the equations of motion. "A (Fz, Mx, My)" per joint; a row
// of no joint (a contact point's normal force, a hold) by its own name.
std::vector<std::string> System::Impl::non_unique_components() const {
  static constexpr const char* kNames[] = {"Fx", "Fy", "Fz", "Mx", "My", "Mz"};
  std::vector<std::array<bool, 6>> affected(live_joints.size(), std::array<bool, 6>{});
  std::vector<std::string> of_no_joint;
  for (const auto& mode : self_stress) {
    // the resultant each joint's rows exert on its follower under this mode
    std::vector<Vec6> resultant(live_joints.size(), Vec6::Zero());
    for (const auto& [row, coefficient] : mode) {
      const auto ri = static_cast<std::size_t>(row);
      const Instance& inst = instances[static_cast<std::size_t>(row_info[ri].instance)];
      // a driver's load and a stuck element's friction force are no
      // reaction of the joint they act on: a driver and a hold of one
      // coordinate (a frictional pin driven by a motor) share its load
      // whichever way, and the pin's reactions are the same
      if (inst.joint < 0 || inst.driver >= 0) {
        const DriverRuntime& d = drivers[static_cast<std::size_t>(inst.driver)];
        std::string name =
            d.hold_contact >= 0
                ? contact_sides[static_cast<std::size_t>(d.hold_contact)].name + " (N)"
            : d.hold_force >= 0
                ? forces[static_cast<std::size_t>(d.hold_force)]->name() + " (stuck force)"
                : inst.label + " (load)";
        if (std::find(of_no_joint.begin(), of_no_joint.end(), name) == of_no_joint.end())
          of_no_joint.push_back(std::move(name));
        continue;
      }
      const Joint& joint = live_joints[static_cast<std::size_t>(inst.joint)];
      const BodyKinematics& kf = kinematics(joint.follower);
      const Vec3 force = coefficient * rows[ri].J_follower.head<3>();
      const Vec3 moment = kf.R_WB * (coefficient * rows[ri].J_follower.tail<3>()) -
                          (kf.point(joint.frame_follower.origin) - kf.p_W).cross(force);
      resultant[static_cast<std::size_t>(inst.joint)].head<3>() += force;
      resultant[static_cast<std::size_t>(inst.joint)].tail<3>() += moment;
    }
    double force_scale = 0.0, moment_scale = 0.0;
    for (const Vec6& v : resultant) {
      force_scale = std::max(force_scale, v.head<3>().cwiseAbs().maxCoeff());
      moment_scale = std::max(moment_scale, v.tail<3>().cwiseAbs().maxCoeff());
    }
    for (std::size_t j = 0; j < resultant.size(); ++j)
      for (int c = 0; c < 6; ++c)
        if (std::abs(resultant[j](c)) > 1e-9 * (c < 3 ? force_scale : moment_scale))
          affected[j][static_cast<std::size_t>(c)] = true;
  }
  std::vector<std::string> out;
  for (std::size_t j = 0; j < affected.size(); ++j) {
    std::string list;
    for (std::size_t c = 0; c < 6; ++c)
      if (affected[j][c]) list += (list.empty() ? "" : ", ") + std::string(kNames[c]);
    if (!list.empty()) out.push_back(live_joints[j].name + " (" + list + ")");
  }
  out.insert(out.end(), of_no_joint.begin(), of_no_joint.end());
  return out;
}

double System::Impl::member_restitution(int instance) const {
  const Instance& inst = instances[static_cast<std::size_t>(instance)];
  if (inst.driver >= 0) return 0.0;  // a driver imposes its motion plastically
  const Joint& joint = live_joints[static_cast<std::size_t>(inst.joint)];
  for (const JointMember& m : joint.members)
    if (m.label == inst.label) return m.restitution;
  return 0.0;
}

std::string System::Impl::owner_of_row(int row) const {
  const Instance& inst =
      instances[static_cast<std::size_t>(row_info[static_cast<std::size_t>(row)].instance)];
  if (inst.joint >= 0) return live_joints[static_cast<std::size_t>(inst.joint)].name;
  if (const int side = drivers[static_cast<std::size_t>(inst.driver)].hold_contact; side >= 0)
    return contact_sides[static_cast<std::size_t>(side)].name;  // a contact point of shapes
  return forces[static_cast<std::size_t>(drivers[static_cast<std::size_t>(inst.driver)].hold_force)]
      ->name();
}

std::string System::Impl::row_name(int row) const {
  const RowInfo& ri = row_info[static_cast<std::size_t>(row)];
  const Instance& inst = instances[static_cast<std::size_t>(ri.instance)];
  if (inst.driver >= 0) return inst.label;
  const std::string& joint = live_joints[static_cast<std::size_t>(inst.joint)].name;
  if (inst.constraint->row_count() == 1) return joint + "." + inst.label;
  return joint + "." + inst.label + "." + inst.constraint->row_label(ri.k);
}

StructureReport System::Impl::report() {
  ensure_structure();
  compute_rows();
  solver.assemble(rows, inverse_mass, dropped);
  solver.factorize();
  StructureReport rep;
  rep.bodies = n;
  rep.rows = static_cast<int>(rows.size());
  rep.independent_rows =
      rep.rows - static_cast<int>(std::count(dropped.begin(), dropped.end(), char{1}));
  for (const JointRows& jr : joint_rows)
    if (jr.locks.rows.size() == 1 && jr.locks.driver_row < 0) ++rep.nonholonomic_rows;
  rep.dof = 6 * n - rep.independent_rows;
  rep.gruebler_dof = 6 * n - rep.rows;
  std::set<std::string> affected;
  for (const auto& mode : self_stress) {
    rep.redundant_rows.push_back(row_name(mode.front().first));
    std::vector<std::string> deps;
    for (std::size_t k = 0; k < mode.size(); ++k) {
      affected.insert(owner_of_row(mode[k].first));
      if (k > 0) deps.push_back(row_name(mode[k].first));
    }
    rep.dependencies.push_back(std::move(deps));
  }
  rep.non_unique_reactions.assign(affected.begin(), affected.end());
  rep.non_unique_components = non_unique_components();
  // the condition of the scaled D of the independent rows (constraint_rank.h):
  // geometry only, whatever the inertia
  rank.independent(rows, row_bodies, dropped);
  rep.condition_estimate = rank.condition();
  int worst = -1;
  rep.max_position_violation = max_position_error(&worst, true);
  if (worst >= 0) rep.worst_row = row_name(worst);
  rep.factor_nonzeros = static_cast<long>(solver.factor_nonzeros());
  return rep;
}

StructureReport System::structure_report(double t, const VecX& y) {
  impl_->compute_kinematics(t, y);
  return impl_->report();
}

}  // namespace ictus
