// The reactions of dependent contact rows (docs/theory/contact.md,
// "Dependent contact rows"). A body resting flat on several points (a box
// on its four corners) has more contact rows than the motions they stop:
// the structure drops the dependent ones (constraint_rank.h), and the
// particular multipliers the solve returns put zero on them and whatever
// balances on the rest. For a bilateral joint that is one valid choice of
// a statically indeterminate reaction. For a contact it is not harmless:
// the normal forces are the limits of friction, and the particular choice
// can leave a closed corner pulling (N < 0) while a distribution with all
// pressing exists, so that a slipping tangent there pulls the wrong way.
//
// Every self-stress mode s (multipliers e_r - sum_k c_k e_k with D^T s = 0,
// system_structure.cpp) can be added to the multipliers without changing
// the motion. On the modes wholly among contact rows (the normal rows of
// contact points between shapes and their tangents' hold rows, all forces),
// the multipliers are moved to the least-norm ones on the rows those modes
// touch:
//   l <- l - B B^+ l,   B the modes on those rows,
// the distribution that spreads the load evenly (all four corners of a box
// at rest carry m g / 4). The map is linear, so it is applied alike to the
// solve's multipliers and to the unit responses of the friction forces
// (system_joint_friction.cpp): the normal forces stay linear in the
// friction forces and the slip solve and the stick/slip decision see the
// same normal forces as the dynamics. Modes with a joint's row or a joint
// limit's (moments, drivers' loads) are left as they are: their reactions
// are reported as statically indeterminate. The modes are those of the
// redundancy analysis, exact while the points stay fixed in their bodies:
// for points of one body the dependence is affine (sum s_i = 0, sum s_i
// p_i = 0 for points on a plane), which a rigid motion keeps; a rank change
// redetects them. Each is checked on every solve (D^T s against the size of
// its terms): where one no longer holds, the multipliers of its group (the
// modes that share rows with it) are left as solved. A box on four rough
// corners, slipping, turns about the normal: the mode of its two stuck
// tangents across one edge no longer holds, and its normals' mode still
// does (it used to be dropped with the other, and a corner's normal jumped
// from 6.9 N to -5.7 N within one step).
#include <Eigen/Dense>
#include <algorithm>

#include "system_impl.h"
#include "union_find.h"

namespace ictus {

namespace {

// Is the mode set `modes` the one `cache` was built from?
bool same_modes(const System::Impl::DependentContacts& cache,
                const std::vector<std::vector<std::pair<int, double>>>& modes, int version,
                std::size_t row_count) {
  return cache.structure_version == version && cache.row_count == row_count && cache.modes == modes;
}

}  // namespace

void System::Impl::press_dependent_contacts(VecX& mult) {
  DependentContacts& dc = dependent_contacts;
  if (self_stress.empty() && dc.modes.empty()) return;
  // rebuilt when the structure changes (an event), not in the step loop
  if (!same_modes(dc, self_stress, structure_version, rows.size())) {
    dc.modes = self_stress;
    dc.structure_version = structure_version;
    const std::size_t m = rows.size();
    dc.row_count = m;
    std::vector<char> contact(m, 0);
    for (std::size_t k = 0; k < contact_sides.size(); ++k) {
      if (contact_sides[k].contact >= 0) continue;  // a joint's limit
      if (const int r = contact_row(static_cast<int>(k)); r >= 0)
        contact[static_cast<std::size_t>(r)] = 1;
    }
    for (const FrictionJoint& fj : friction_joints)
      if (fj.contact_side >= 0 && fj.stick_slip >= 0)
        if (const int r = hold_row(fj.stick_slip); r >= 0) contact[static_cast<std::size_t>(r)] = 1;
    std::vector<const std::vector<std::pair<int, double>>*> chosen;
    for (const auto& mode : self_stress)
      if (std::all_of(mode.begin(), mode.end(), [&](const auto& entry) {
            return contact[static_cast<std::size_t>(entry.first)] != 0;
          }))
        chosen.push_back(&mode);
    // groups: modes joined when they share a row (the first mode on each row)
    std::vector<int> parent(chosen.size()), first_on_row(m, -1);
    for (std::size_t j = 0; j < chosen.size(); ++j) parent[j] = static_cast<int>(j);
    for (std::size_t j = 0; j < chosen.size(); ++j)
      for (const auto& [row, coefficient] : *chosen[j]) {
        int& first = first_on_row[static_cast<std::size_t>(row)];
        if (first < 0) {
          first = static_cast<int>(j);
        } else {
          internal::union_find_join(parent, static_cast<int>(j), first);
        }
      }
    dc.groups.clear();
    dc.touched.assign(m, 0);
    std::vector<int> group_of(chosen.size(), -1);
    for (std::size_t j = 0; j < chosen.size(); ++j) {
      int& g = group_of[static_cast<std::size_t>(
          internal::union_find_root(parent, static_cast<int>(j)))];
      if (g < 0) {
        g = static_cast<int>(dc.groups.size());
        dc.groups.emplace_back();
      }
      group_of[j] = g;
    }
    for (std::size_t gi = 0; gi < dc.groups.size(); ++gi) {
      DependentContacts::Group& group = dc.groups[gi];
      std::vector<std::size_t> members;
      for (std::size_t j = 0; j < chosen.size(); ++j)
        if (group_of[j] == static_cast<int>(gi)) members.push_back(j);
      for (const std::size_t j : members)
        for (const auto& [row, coefficient] : *chosen[j])
          if (dc.touched[static_cast<std::size_t>(row)] == 0) {
            dc.touched[static_cast<std::size_t>(row)] = 1;
            group.rows.push_back(row);
          }
      const auto rows_n = static_cast<Eigen::Index>(group.rows.size());
      const auto modes_n = static_cast<Eigen::Index>(members.size());
      group.basis = MatX::Zero(rows_n, modes_n);
      for (Eigen::Index c = 0; c < modes_n; ++c)
        for (const auto& [row, coefficient] : *chosen[members[static_cast<std::size_t>(c)]]) {
          const auto at = std::find(group.rows.begin(), group.rows.end(), row) - group.rows.begin();
          group.basis(at, c) += coefficient;
        }
      group.pseudo_inverse =
          MatX(Eigen::CompleteOrthogonalDecomposition<MatX>(group.basis).pseudoInverse());
      group.values.resize(rows_n);
      group.amplitudes.resize(modes_n);
    }
    dc.residual.resize(6 * n);
  }
  for (DependentContacts::Group& group : dc.groups) {
    // each mode of the group still a self-stress of the rows at this configuration
    bool holds = true;
    for (Eigen::Index j = 0; j < group.basis.cols() && holds; ++j) {
      dc.residual.setZero();
      double size = 0.0;
      for (std::size_t i = 0; i < group.rows.size(); ++i) {
        const double s = group.basis(static_cast<Eigen::Index>(i), j);
        if (s == 0.0) continue;
        const ConstraintRow& row = rows[static_cast<std::size_t>(group.rows[i])];
        D.add_transpose(group.rows[i], s,
                        [&](BodyIndex b) { return dc.residual.segment<6>(6 * b); });
        size += std::abs(s) * (row.J_base.norm() + row.J_follower.norm());
      }
      holds = dc.residual.norm() <= 1e-8 * size;
    }
    if (!holds) continue;
    for (std::size_t i = 0; i < group.rows.size(); ++i)
      group.values(static_cast<Eigen::Index>(i)) = mult(group.rows[i]);
    group.amplitudes.noalias() = group.pseudo_inverse * group.values;
    group.values.noalias() -= group.basis * group.amplitudes;
    for (std::size_t i = 0; i < group.rows.size(); ++i)
      mult(group.rows[i]) = group.values(static_cast<Eigen::Index>(i));
  }
}

}  // namespace ictus
