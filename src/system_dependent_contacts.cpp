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
// the multipliers l are moved along them, l <- l + B a (B the modes on the
// rows they touch), to the least norm of the tangents' stuck forces and
// then, among the amplitudes that keep it, of the normal forces
// (least_tangent_then_normal): the distribution that spreads the load
// evenly (all four corners of a box at rest carry m g / 4) and puts on no
// tangent what a normal force can carry (a single least norm over both let
// a wall's vertical tangents hold part of the weight of a box resting flush
// against it, at zero normal force). The map is linear, so it is applied
// alike to the solve's multipliers and to the unit responses of the
// friction forces (system_joint_friction.cpp): the normal forces stay
// linear in the friction forces and the slip solve and the stick/slip
// decision see the same normal forces as the dynamics. Modes that join
// contact rows through a bilateral joint's rows (two boxes welded side by
// side on a floor) are moved too, the joint's rows following the contact
// rows' split (they take no part in the norms). Modes with a driver's row,
// another hold's or a joint limit's (moments, drivers' loads), or among a
// joint's rows alone, are left as they are: their reactions are reported
// as statically indeterminate. The modes are those of the
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

// The row kinds of `press_dependent_contacts`: a contact point's normal
// row, one of its tangents' hold rows, a bilateral joint's row (no driver,
// no hold, no limit), which follows the contact rows' split.
enum RowKind : char { kOther = 0, kNormal = 1, kTangentHold = 2, kJoint = 3 };

// The linear map A (modes x rows) that moves a group's multipliers l to
// l + B A l, B its modes on its rows: the least norm of the tangents' stuck
// forces first, then, over the amplitudes that keep it, the least norm of
// the normal forces (docs/theory/contact.md, "Dependent contact rows"):
//   a1 = -B_t^+ l_t,   a = a1 - Z (B_n Z)^+ (l_n + B_n a1),
// Z a basis of the null space of B_t. Where the modes hold one kind only
// (a box flat on a floor alone: its normals' modes and its tangents' share
// no row) this is the single least norm -B_c^+ l_c over the contact rows.
// A joint's rows take no part in either norm: they follow.
MatX least_tangent_then_normal(const MatX& B, const std::vector<int>& rows,
                               const std::vector<char>& kind) {
  const auto r = static_cast<Eigen::Index>(rows.size());
  MatX tangent = MatX::Zero(r, r), normal = MatX::Zero(r, r);  // row selections
  for (Eigen::Index i = 0; i < r; ++i) {
    const char k = kind[static_cast<std::size_t>(rows[static_cast<std::size_t>(i)])];
    if (k == kTangentHold) tangent(i, i) = 1.0;
    if (k == kNormal) normal(i, i) = 1.0;
  }
  const MatX B_t = tangent * B, B_n = normal * B;
  if (B_t.isZero(0.0) || B_n.isZero(0.0)) {  // one kind only: a single least norm
    const MatX contact = tangent + normal;
    return -MatX(Eigen::CompleteOrthogonalDecomposition<MatX>(MatX(contact * B)).pseudoInverse() *
                 contact);
  }
  Eigen::JacobiSVD<MatX> stage1(B_t, Eigen::ComputeFullU | Eigen::ComputeFullV);
  stage1.setThreshold(1e-10);
  const MatX a1 = -stage1.solve(tangent);  // min-norm least squares: the pseudo-inverse
  const MatX Z = stage1.matrixV().rightCols(B.cols() - stage1.rank());
  if (Z.cols() == 0) return a1;
  Eigen::JacobiSVD<MatX> stage2(MatX(B_n * Z), Eigen::ComputeFullU | Eigen::ComputeFullV);
  stage2.setThreshold(1e-10);
  return a1 - Z * stage2.solve(MatX(normal + B_n * a1));
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
    std::vector<char> contact(m, kOther);  // RowKind per row of D
    for (std::size_t k = 0; k < contact_sides.size(); ++k) {
      if (contact_sides[k].contact >= 0) continue;  // a joint's limit
      if (const int r = contact_row(static_cast<int>(k)); r >= 0)
        contact[static_cast<std::size_t>(r)] = kNormal;
    }
    for (const FrictionJoint& fj : friction_joints)
      if (fj.contact_side >= 0 && fj.stick_slip >= 0)
        if (const int r = hold_row(fj.stick_slip); r >= 0)
          contact[static_cast<std::size_t>(r)] = kTangentHold;
    // a joint's own rows (not a driver's, a hold's or a limit's)
    std::vector<char> limit(m, 0);
    for (std::size_t k = 0; k < contact_sides.size(); ++k)
      if (const int r = contact_row(static_cast<int>(k)); r >= 0 && contact_sides[k].contact < 0)
        limit[static_cast<std::size_t>(r)] = 1;
    for (std::size_t r = 0; r < m; ++r) {
      const Instance& inst = instances[static_cast<std::size_t>(row_info[r].instance)];
      if (contact[r] == kOther && limit[r] == 0 && inst.joint >= 0 && inst.driver < 0)
        contact[r] = kJoint;
    }
    // the modes among contact rows, and those that join contact rows through
    // joints (two boxes welded side by side on a floor: their eight normals
    // and the weld's rows), whose joint rows follow the contact rows' split
    std::vector<const std::vector<std::pair<int, double>>*> chosen;
    for (const auto& mode : self_stress)
      if (std::all_of(mode.begin(), mode.end(),
                      [&](const auto& entry) {
                        return contact[static_cast<std::size_t>(entry.first)] != kOther;
                      }) &&
          std::any_of(mode.begin(), mode.end(), [&](const auto& entry) {
            return contact[static_cast<std::size_t>(entry.first)] != kJoint;
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
      group.shift = least_tangent_then_normal(group.basis, group.rows, contact);
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
    group.amplitudes.noalias() = group.shift * group.values;
    group.values.noalias() += group.basis * group.amplitudes;
    for (std::size_t i = 0; i < group.rows.size(); ++i)
      mult(group.rows[i]) = group.values(static_cast<Eigen::Index>(i));
  }
}

}  // namespace ictus
