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
// its terms): where one no longer holds, the multipliers are left as solved.
#include <Eigen/Dense>
#include <algorithm>

#include "system_impl.h"

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
    dc.touched.assign(m, 0);
    dc.rows.clear();
    for (const auto& mode : self_stress) {
      const bool among_contacts = std::all_of(mode.begin(), mode.end(), [&](const auto& entry) {
        return contact[static_cast<std::size_t>(entry.first)] != 0;
      });
      if (!among_contacts) continue;
      chosen.push_back(&mode);
      for (const auto& [row, coefficient] : mode)
        if (dc.touched[static_cast<std::size_t>(row)] == 0) {
          dc.touched[static_cast<std::size_t>(row)] = 1;
          dc.rows.push_back(row);
        }
    }
    const auto rows_n = static_cast<Eigen::Index>(dc.rows.size());
    const auto modes_n = static_cast<Eigen::Index>(chosen.size());
    dc.basis = MatX::Zero(rows_n, modes_n);
    for (Eigen::Index j = 0; j < modes_n; ++j)
      for (const auto& [row, coefficient] : *chosen[static_cast<std::size_t>(j)]) {
        const auto at = std::find(dc.rows.begin(), dc.rows.end(), row) - dc.rows.begin();
        dc.basis(at, j) += coefficient;
      }
    dc.pseudo_inverse =
        modes_n > 0 ? MatX(Eigen::CompleteOrthogonalDecomposition<MatX>(dc.basis).pseudoInverse())
                    : MatX(0, rows_n);
    dc.values.resize(rows_n);
    dc.amplitudes.resize(modes_n);
    dc.residual.resize(6 * n);
  }
  if (dc.rows.empty()) return;
  // each mode still a self-stress of the rows at this configuration
  for (Eigen::Index j = 0; j < dc.basis.cols(); ++j) {
    dc.residual.setZero();
    double size = 0.0;
    for (std::size_t i = 0; i < dc.rows.size(); ++i) {
      const double s = dc.basis(static_cast<Eigen::Index>(i), j);
      if (s == 0.0) continue;
      const ConstraintRow& row = rows[static_cast<std::size_t>(dc.rows[i])];
      D.add_transpose(dc.rows[i], s, [&](BodyIndex b) { return dc.residual.segment<6>(6 * b); });
      size += std::abs(s) * (row.J_base.norm() + row.J_follower.norm());
    }
    if (dc.residual.norm() > 1e-8 * size) return;
  }
  for (std::size_t i = 0; i < dc.rows.size(); ++i)
    dc.values(static_cast<Eigen::Index>(i)) = mult(dc.rows[i]);
  dc.amplitudes.noalias() = dc.pseudo_inverse * dc.values;
  dc.values.noalias() -= dc.basis * dc.amplitudes;
  for (std::size_t i = 0; i < dc.rows.size(); ++i)
    mult(dc.rows[i]) = dc.values(static_cast<Eigen::Index>(i));
}

}  // namespace ictus
