// Dense forms of M^-1, the rows and the loads (dense_rows.h).
#include "dense_rows.h"

#include "stabilised_target.h"

namespace ictus::internal {

VecX dense_row(const System::Impl& s, int r, double sign) {
  VecX out(6 * s.n);
  const RowBodies& rb = s.row_bodies[static_cast<std::size_t>(r)];
  scatter_row(s.rows[static_cast<std::size_t>(r)], rb.base, rb.follower, 1.0, out);
  if (sign != 1.0) out *= sign;  // as sign * row: the zeros take the sign too
  return out;
}

MatX dense_inverse_mass(const System::Impl& s) {
  const int nv = 6 * s.n;
  MatX Minv = MatX::Zero(nv, nv);
  for (int b = 0; b < s.n; ++b)
    for (int k = 0; k < 6; ++k)
      Minv.block<6, 1>(6 * b, 6 * b + k) =
          apply_inverse_mass(s.inverse_mass[static_cast<std::size_t>(b)], Vec6::Unit(k));
  return Minv;
}

VecX dense_loads(std::span<const BodyLoad> loads) {
  VecX out(6 * static_cast<Eigen::Index>(loads.size()));
  for (std::size_t b = 0; b < loads.size(); ++b)
    out.segment<6>(6 * static_cast<Eigen::Index>(b)) << loads[b].force_W, loads[b].torque_B;
  return out;
}

ConstraintRow slip_rate_row(const System::Impl& s, const System::Impl::FrictionJoint& fj) {
  const System::Impl::DriverRuntime& hold =
      s.drivers[static_cast<std::size_t>(s.hold_driver[static_cast<std::size_t>(fj.stick_slip)])];
  ConstraintRow row;
  const ConstraintContext ctx{s.kinematics(fj.base), s.kinematics(fj.follower), s.t,
                              MotionSample{}};
  s.instances[static_cast<std::size_t>(hold.instance)].constraint->evaluate(
      ctx, std::span<ConstraintRow>(&row, 1));
  return row;
}

double row_stabilised_target(const System::Impl& s, int r) {
  return stabilised_target(s.rows[static_cast<std::size_t>(r)], s.row_rate(r), s.stabilisation);
}

}  // namespace ictus::internal
