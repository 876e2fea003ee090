// The constraint structure: which rows are active, how rotation locks pair
// up, and which rows are redundant.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "ictus/constraints/rotation_lock.h"
#include "system_impl.h"
#include "text_util.h"

namespace ictus {

void System::Impl::ensure_structure() {
  if (structure_dirty) rebuild_structure();
}

void System::Impl::rebuild_structure() {
  const auto& joints = model.joints();
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
          if (inst.driver >= 0) {
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
  const std::size_t m = row_info.size();
  rows.assign(m, ConstraintRow{});
  dropped.assign(m, 0);
  multipliers = VecX::Zero(static_cast<Eigen::Index>(m));
  rhs = VecX::Zero(static_cast<Eigen::Index>(m));
  newton_buffer = VecX::Zero(static_cast<Eigen::Index>(m));
  correction_buffer.assign(static_cast<std::size_t>(n), Vec6::Zero());
  state_buffer = VecX::Zero(13 * n + kAuxCount);
  solver.analyse(row_bodies, n);
  ++structure_version;
  structure_dirty = false;
  detect_redundancy();
}

void System::Impl::detect_redundancy() {
  dependencies.clear();
  compute_rows();
  // drop dependent rows one at a time: pivots after a tiny one are unreliable
  for (;;) {
    solver.assemble(rows, inverse_mass, dropped);
    solver.factorize();
    const int r = solver.first_dependent_row(dropped);
    if (r < 0) break;
    dropped[static_cast<std::size_t>(r)] = 1;
  }
  // which kept rows each dropped row depends on: solve S c = D M^-1 D_r^T
  const auto m = static_cast<Eigen::Index>(rows.size());
  std::vector<std::string> dropped_names;
  std::set<std::string> joints_affected;
  for (Eigen::Index r = 0; r < m; ++r) {
    if (dropped[static_cast<std::size_t>(r)] == 0) continue;
    VecX column = VecX::Zero(m);
    const internal::RowBodies& rb = row_bodies[static_cast<std::size_t>(r)];
    const ConstraintRow& dr = rows[static_cast<std::size_t>(r)];
    for (Eigen::Index k = 0; k < m; ++k) {
      if (dropped[static_cast<std::size_t>(k)] != 0) continue;
      const internal::RowBodies& kb = row_bodies[static_cast<std::size_t>(k)];
      const ConstraintRow& kr = rows[static_cast<std::size_t>(k)];
      double s = 0.0;
      for (const auto& [body_r, j_r] : {std::pair{rb.base, &dr.J_base}, {rb.follower, &dr.J_follower}}) {
        if (body_r == kGround) continue;
        const internal::InverseMass& w = inverse_mass[static_cast<std::size_t>(body_r)];
        if (kb.base == body_r) s += kr.J_base.dot(internal::apply_inverse_mass(w, *j_r));
        if (kb.follower == body_r) s += kr.J_follower.dot(internal::apply_inverse_mass(w, *j_r));
      }
      column(k) = s;
    }
    solver.solve_in_place(column);
    const double scale = column.cwiseAbs().maxCoeff();
    std::vector<int> deps;
    std::vector<std::string> names;
    for (Eigen::Index k = 0; k < m; ++k)
      if (dropped[static_cast<std::size_t>(k)] == 0 && std::abs(column(k)) > 1e-8 * scale) {
        deps.push_back(static_cast<int>(k));
        names.push_back(row_name(static_cast<int>(k)));
        joints_affected.insert(
            model.joints()[static_cast<std::size_t>(
                               instances[static_cast<std::size_t>(
                                             row_info[static_cast<std::size_t>(k)].instance)]
                                   .joint)]
                .name);
      }
    joints_affected.insert(
        model.joints()[static_cast<std::size_t>(
                           instances[static_cast<std::size_t>(
                                         row_info[static_cast<std::size_t>(r)].instance)]
                               .joint)]
            .name);
    dependencies.push_back(deps);
    dropped_names.push_back(row_name(static_cast<int>(r)));
  }
  if (!dropped_names.empty())
    warnings.push_back(fmt::format(
        "redundant constraints: {} dependent row(s) eliminated ({}); the motion is unique but "
        "the reactions of joints {} are not (statically indeterminate)",
        dropped_names.size(), internal::join_names(dropped_names, 20),
        internal::join_names(std::vector<std::string>(joints_affected.begin(),
                                                      joints_affected.end()),
                             20)));
}

std::string System::Impl::row_name(int row) const {
  const RowInfo& ri = row_info[static_cast<std::size_t>(row)];
  const Instance& inst = instances[static_cast<std::size_t>(ri.instance)];
  if (inst.driver >= 0) return inst.label;
  const std::string& joint = model.joints()[static_cast<std::size_t>(inst.joint)].name;
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
  std::size_t d = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (dropped[r] == 0) continue;
    rep.redundant_rows.push_back(row_name(static_cast<int>(r)));
    std::vector<std::string> deps;
    auto joint_of = [&](std::size_t row) {
      return model.joints()[static_cast<std::size_t>(
                                instances[static_cast<std::size_t>(row_info[row].instance)].joint)]
          .name;
    };
    affected.insert(joint_of(r));
    if (d < dependencies.size())
      for (const int k : dependencies[d]) {
        deps.push_back(row_name(k));
        affected.insert(joint_of(static_cast<std::size_t>(k)));
      }
    rep.dependencies.push_back(std::move(deps));
    ++d;
  }
  rep.non_unique_reactions.assign(affected.begin(), affected.end());
  rep.condition_estimate = solver.pivot_spread(dropped);
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
