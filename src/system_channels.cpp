// The channel table: every quantity that can be written to results.csv or
// used in a formula, with a stable name (docs/channels.md).
#include <fmt/format.h>

#include "ictus/forces/contact_friction.h"
#include "ictus/forces/joint_friction.h"
#include "system_impl.h"

namespace ictus {

namespace {
constexpr const char* kXyz[] = {"x", "y", "z"};
}

void System::Impl::register_channels() {
  constexpr Stage kKin = Stage::kKinematics;
  constexpr Stage kDyn = Stage::kDynamics;

  add_channel("t", "s", kKin, "time", [this] { return t; });

  // --- bodies -----------------------------------------------------------------
  for (int b = 0; b < n; ++b) {
    const std::string& name = model.bodies()[static_cast<std::size_t>(b)].name;
    const auto bi = static_cast<std::size_t>(b);
    for (int k = 0; k < 3; ++k) {
      add_channel(fmt::format("{}.{}", name, kXyz[k]), "m", kKin, "centre of mass position (world)",
                  [this, bi, k] { return kin[bi].p_W(k); });
    }
    for (int k = 0; k < 3; ++k) {
      add_channel(fmt::format("{}.v{}", name, kXyz[k]), "m/s", kKin,
                  "centre of mass velocity (world)", [this, bi, k] { return kin[bi].v_W(k); });
    }
    for (int k = 0; k < 3; ++k) {
      add_channel(fmt::format("{}.a{}", name, kXyz[k]), "m/s^2", kDyn,
                  "centre of mass acceleration (world)",
                  [this, bi, k] { return accelerations[bi](k); });
    }
    for (int k = 0; k < 3; ++k) {
      add_channel(fmt::format("{}.w{}", name, kXyz[k]), "rad/s", kKin,
                  "angular velocity (world axes)", [this, bi, k] { return kin[bi].w_W(k); });
    }
    for (int k = 0; k < 3; ++k) {
      add_channel(fmt::format("{}.w{}_B", name, kXyz[k]), "rad/s", kKin,
                  "angular velocity (body axes)", [this, bi, k] { return kin[bi].w_B(k); });
    }
    for (int k = 0; k < 3; ++k) {
      add_channel(fmt::format("{}.alpha{}", name, kXyz[k]), "rad/s^2", kDyn,
                  "angular acceleration (world axes)",
                  [this, bi, k] { return (kin[bi].R_WB * accelerations[bi].tail<3>())(k); });
    }
    constexpr const char* kQuat[] = {"qw", "qx", "qy", "qz"};
    for (int k = 0; k < 4; ++k) {
      add_channel(fmt::format("{}.{}", name, kQuat[k]), "1", kKin,
                  "orientation quaternion q_WB (w, x, y, z)", [this, b, k] {
                    const Quat q = Quat(kin[static_cast<std::size_t>(b)].R_WB);
                    const double sign = q.w() < 0.0 ? -1.0 : 1.0;  // w >= 0
                    const double c[] = {q.w(), q.x(), q.y(), q.z()};
                    return sign * c[k];
                  });
    }
    add_channel(fmt::format("{}.kinetic_energy", name), "J", kKin, "kinetic energy", [this, b] {
      const auto i = static_cast<std::size_t>(b);
      const Body& body = model.bodies()[i];
      return 0.5 * body.mass * kin[i].v_W.squaredNorm() +
             0.5 * kin[i].w_B.dot(body.inertia * kin[i].w_B);
    });
  }

  // --- joints -----------------------------------------------------------------
  const auto& joints = live_joints;
  for (std::size_t jj = 0; jj < joints.size(); ++jj) {
    const Joint& joint = joints[jj];
    const int j = static_cast<int>(jj);
    if (joint.has_angle) {
      add_channel(joint.name + ".angle", "rad", kKin, "joint angle about z (unwrapped)",
                  [this, j] { return joint_angle(j); });
      add_channel(joint.name + ".omega", "rad/s", kKin, "joint angular rate about z",
                  [this, j] { return joint_angle_rate(j); });
    }
    if (joint.has_translation) {
      add_channel(joint.name + ".x", "m", kKin, "joint translation along z",
                  [this, j] { return joint_translation(j); });
      add_channel(joint.name + ".v", "m/s", kKin, "joint translation rate along z",
                  [this, j] { return joint_translation_rate(j); });
    }
    for (int k = 0; k < 3; ++k) {
      add_channel(fmt::format("{}.F{}", joint.name, kXyz[k]), "N", kDyn,
                  "reaction force on the follower (world)",
                  [this, j, k] { return joint_reaction_force_W(j)(k); });
    }
    for (int k = 0; k < 3; ++k) {
      add_channel(fmt::format("{}.M{}", joint.name, kXyz[k]), "N m", kDyn,
                  "reaction moment on the follower about the joint point (world)",
                  [this, j, k] { return joint_reaction_moment_W(j)(k); });
    }
    for (int k = 0; k < 3; ++k) {
      add_channel(
          fmt::format("{}.impulse_F{}", joint.name, kXyz[k]), "N s", kKin,
          "impulse on the follower at an impact (world; at the impact instant only)",
          [this, jj, k] { return t == last_impact_time ? joint_impulse_force[jj](k) : 0.0; });
    }
    for (int k = 0; k < 3; ++k) {
      add_channel(
          fmt::format("{}.impulse_M{}", joint.name, kXyz[k]), "N m s", kKin,
          "angular impulse on the follower about the joint point at an impact (world)",
          [this, jj, k] { return t == last_impact_time ? joint_impulse_moment[jj](k) : 0.0; });
    }
    auto joint_axes_W = [this, j] {
      const Joint& jt = live_joints[static_cast<std::size_t>(j)];
      return Mat3(kinematics(jt.base).R_WB * jt.frame_base.axes);
    };
    for (int k = 0; k < 3; ++k) {
      add_channel(fmt::format("{}.F{}_J", joint.name, kXyz[k]), "N", kDyn,
                  "reaction force on the follower (base joint frame)", [this, j, k, joint_axes_W] {
                    return (joint_axes_W().transpose() * joint_reaction_force_W(j))(k);
                  });
    }
    for (int k = 0; k < 3; ++k) {
      add_channel(fmt::format("{}.M{}_J", joint.name, kXyz[k]), "N m", kDyn,
                  "reaction moment on the follower (base joint frame)", [this, j, k, joint_axes_W] {
                    return (joint_axes_W().transpose() * joint_reaction_moment_W(j))(k);
                  });
    }
  }

  // multipliers of the individual rows: "<joint>.<member>[.<row>]"
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const Instance& inst = instances[i];
    if (inst.driver >= 0) continue;  // drivers have their own channels
    const Joint& joint = joints[static_cast<std::size_t>(inst.joint)];
    const int rows_in = inst.constraint->row_count();
    for (int k = 0; k < rows_in; ++k) {
      const std::string name = rows_in == 1 ? fmt::format("{}.{}", joint.name, inst.label)
                                            : fmt::format("{}.{}.{}", joint.name, inst.label,
                                                          inst.constraint->row_label(k));
      const bool moments = inst.constraint->rows_are_moments();
      add_channel(name, moments ? "N m" : "N", kDyn,
                  fmt::format("multiplier of the {} row", inst.constraint->kind()), [this, i, k] {
                    const int first = instance_row[i];
                    return first < 0 ? 0.0 : multiplier(first + k);
                  });
      add_channel(name + ".impulse", moments ? "N m s" : "N s", kKin,
                  "impulse of the row at an impact (non-zero only at the impact instant)",
                  [this, i, k] { return impulse_now(static_cast<int>(i), k); });
    }
  }

  // --- markers ----------------------------------------------------------------
  for (const Marker& marker : model.markers()) {
    const BodyIndex b = marker.body;
    const Vec3 p_B = marker.point_B;
    for (int k = 0; k < 3; ++k) {
      add_channel(fmt::format("{}.{}", marker.name, kXyz[k]), "m", kKin, "marker position (world)",
                  [this, b, p_B, k] { return kinematics(b).point(p_B)(k); });
    }
    for (int k = 0; k < 3; ++k) {
      add_channel(fmt::format("{}.v{}", marker.name, kXyz[k]), "m/s", kKin,
                  "marker velocity (world)",
                  [this, b, p_B, k] { return kinematics(b).point_velocity(p_B)(k); });
    }
  }

  // --- drivers ----------------------------------------------------------------
  for (std::size_t d = 0; d < model.drivers().size(); ++d) {
    const Driver& driver = model.drivers()[d];
    const bool angle = driver.coordinate == Driver::Coordinate::kAngle;
    add_channel(driver.name + ".load", angle ? "N m" : "N", kDyn,
                "actuator torque or force that the driver applies to the follower", [this, d] {
                  const int r = instance_row[static_cast<std::size_t>(drivers[d].instance)];
                  return r < 0 ? 0.0 : multiplier(r);
                });
    add_channel(driver.name + ".power", "W", kDyn, "actuator power", [this, d] {
      const int r = instance_row[static_cast<std::size_t>(drivers[d].instance)];
      return r < 0 ? 0.0 : multiplier(r) * row_rate(r);
    });
  }

  // --- force elements ---------------------------------------------------------
  int stick_slip_channels = 0;
  for (std::size_t f = 0; f < forces.size(); ++f) {
    const std::vector<std::string> names = forces[f]->channel_names();
    for (std::size_t k = 0; k < names.size(); ++k) {
      add_channel(fmt::format("{}.{}", forces[f]->name(), names[k]),
                  forces[f]->channel_unit(static_cast<int>(k)), kKin,
                  fmt::format("{} output", forces[f]->kind()), [this, f, k] {
                    if (force_enabled[f] == 0) return 0.0;
                    const ForceContext ctx(kin, t);
                    return forces[f]->channel_value(static_cast<int>(k), ctx);
                  });
      force_of_channel.back() = static_cast<int>(f);
    }
    if (const auto* friction = dynamic_cast<const JointFrictionElement*>(forces[f].get())) {
      // a joint's Coulomb friction (seed 004): under the joint's name
      ++stick_slip_channels;
      const char* unit = friction->hold_is_angle() ? "N m" : "N";
      const bool ball = friction->ball();
      add_channel(friction->joint() + ".friction", unit, kDyn,
                  ball ? "size of the ball's friction moment (mu r |N| opposing the relative "
                         "angular velocity; the holding moment's size while stuck)"
                       : "Coulomb friction on the follower along the joint coordinate (mu |N| "
                         "opposing the slip; the hold row's multiplier while stuck)",
                  [this, friction, f, ball] {
                    if (force_enabled[f] == 0) return 0.0;
                    return ball ? std::abs(friction->force()) : friction->force();
                  });
      add_channel(friction->joint() + ".normal", "N", kDyn,
                  ball ? "normal force of the ball friction: the joint's whole reaction |N|"
                       : "normal force of the joint friction: the transverse (radial) reaction |N|",
                  [this, friction, f] { return force_enabled[f] == 0 ? 0.0 : friction->normal(); });
      add_channel(friction->joint() + ".friction_mode", "", kKin,
                  ball ? "friction mode: +1 slipping (along the relative angular velocity), 0 stuck"
                       : "friction mode: +1 / -1 slipping with a positive / negative rate, 0 stuck",
                  [this, friction, f] {
                    return force_enabled[f] == 0 ? 0.0 : static_cast<double>(friction->mode());
                  });
      continue;
    }
    if (const auto* friction = dynamic_cast<const ContactFrictionElement*>(forces[f].get())) {
      // a contact point's Coulomb friction along one tangent of the plane
      ++stick_slip_channels;
      const char axis = friction->axis() == 0 ? 'x' : 'y';
      // time-stepping: the step's tangential impulse over h, the mode from it
      auto step_friction = [this, friction] {
        for (std::size_t k = 0; k < contact_sides.size(); ++k)
          if (contact_sides[k].name == friction->side()) {
            const std::size_t i =
                contact_sides.size() + 2 * k + static_cast<std::size_t>(friction->axis());
            return i < step_impulses.size() ? step_impulses[i] : 0.0;
          }
        return 0.0;
      };
      add_channel(friction->name(), "N", kDyn,
                  fmt::format("Coulomb friction on the follower along the plane's {} tangent (mu "
                              "N opposing the slip; the hold row's multiplier while stuck)",
                              axis),
                  [this, friction, f, step_friction] {
                    if (time_stepping) return step_friction() / time_step;
                    return force_enabled[f] == 0 ? 0.0 : friction->force();
                  });
      add_channel(fmt::format("{}.friction_mode_{}", friction->side(), axis), "", kKin,
                  "friction mode: +1 / -1 slipping with a positive / negative rate, 0 stuck",
                  [this, friction, f] {
                    if (time_stepping) {
                      // Moreau-Jean: slipping when the step ends with a slip rate
                      const ForceContext ctx(kin, t);
                      const double rate = friction->slip_rate(ctx);
                      return std::abs(rate) > 1e-9 ? (rate > 0.0 ? 1.0 : -1.0) : 0.0;
                    }
                    return force_enabled[f] == 0 ? 0.0 : static_cast<double>(friction->mode());
                  });
      add_channel(fmt::format("{}.slip_rate_{}", friction->side(), axis), "m/s", kKin,
                  fmt::format("slip rate of the contact point along the plane's {} tangent", axis),
                  [this, friction] {
                    const ForceContext ctx(kin, t);
                    return friction->slip_rate(ctx);
                  });
      continue;
    }
    if (forces[f]->has_stick_slip()) {
      // the friction force: -mode F_max slipping, the hold row's multiplier stuck
      const int k = stick_slip_channels++;  // same order as build_holds
      add_channel(fmt::format("{}.friction_force", forces[f]->name()),
                  forces[f]->hold_is_angle() ? "N m" : "N", kDyn,
                  "friction force on the follower along the coordinate (structural damping and "
                  "dry friction; the hold row's multiplier while stuck)",
                  [this, f, k] {
                    if (force_enabled[f] == 0) return 0.0;
                    const ForceElement& e = *forces[f];
                    const ForceContext ctx(kin, t);
                    if (e.mode() != kStick) return -e.mode() * e.slip_limit(ctx);
                    const int row = hold_row(k);
                    return row < 0 ? 0.0 : multiplier(row);
                  });
    }
  }

  // --- energy audit -----------------------------------------------------------
  const int aux = layout.audit_offset();
  add_channel("energy.kinetic", "J", kKin, "kinetic energy", [this] { return kinetic_energy(); });
  add_channel("energy.potential", "J", kKin, "potential energy (gravity, springs)",
              [this] { return potential_energy(); });
  add_channel("energy.work_applied", "J", kKin, "work done by applied loads",
              [this, aux] { return y(aux + kAuxAppliedWork); });
  add_channel("energy.work_drivers", "J", kKin, "work done by prescribed motions",
              [this, aux] { return y(aux + kAuxDriverWork); });
  add_channel("energy.work", "J", kKin, "work done by applied loads and drivers",
              [this, aux] { return y(aux + kAuxAppliedWork) + y(aux + kAuxDriverWork); });
  add_channel("energy.dissipated", "J", kKin,
              "energy removed by dampers, impacts and switched-off elements",
              [this, aux] { return y(aux + kAuxDissipated); });
  add_channel("energy.impacts", "J", kKin,
              "kinetic energy lost in impacts (part of energy.dissipated)",
              [this, aux] { return y(aux + kAuxImpactLoss); });
  add_channel("energy.switching", "J", kKin,
              "potential energy removed with switched elements (part of energy.dissipated; "
              "negative when they bring it)",
              [this, aux] { return y(aux + kAuxSwitching); });
  add_channel("energy.total", "J", kKin, "kinetic + potential energy",
              [this] { return kinetic_energy() + potential_energy(); });
  add_channel("energy.balance", "J", kKin,
              "kinetic + potential - work + dissipated, minus its initial value (ideally 0)",
              [this, aux] {
                return kinetic_energy() + potential_energy() - y(aux + kAuxAppliedWork) -
                       y(aux + kAuxDriverWork) + y(aux + kAuxDissipated) - energy_reference;
              });

  // --- whole system -----------------------------------------------------------
  auto momentum = [this] {
    Vec3 p = Vec3::Zero();
    for (int b = 0; b < n; ++b)
      p += model.bodies()[static_cast<std::size_t>(b)].mass * kin[static_cast<std::size_t>(b)].v_W;
    return p;
  };
  auto angular_momentum = [this] {
    Vec3 l = Vec3::Zero();
    for (int b = 0; b < n; ++b) {
      const auto i = static_cast<std::size_t>(b);
      const Body& body = model.bodies()[i];
      l += kin[i].p_W.cross(body.mass * kin[i].v_W) + kin[i].R_WB * (body.inertia * kin[i].w_B);
    }
    return l;
  };
  for (int k = 0; k < 3; ++k) {
    add_channel(fmt::format("system.p{}", kXyz[k]), "N s", kKin, "total linear momentum",
                [momentum, k] { return momentum()(k); });
  }
  for (int k = 0; k < 3; ++k) {
    add_channel(fmt::format("system.L{}", kXyz[k]), "N m s", kKin,
                "total angular momentum about the world origin",
                [angular_momentum, k] { return angular_momentum()(k); });
  }
  // the rows at this state suffice (position errors): computed without the
  // solve when the dynamics are not current (a probe of the dense output);
  // a solve that follows computes them again
  add_channel("system.violation", "m|rad", kDyn, "largest position-level constraint violation",
              [this] {
                if (!dynamics_valid) compute_rows();
                return max_position_error(nullptr, true);
              });
  channel_brings_own_stage.back() = 1;
  add_channel("system.velocity_violation", "m/s|rad/s", kDyn,
              "largest velocity-level constraint violation |D u - h|", [this] {
                double worst = 0.0;
                for (std::size_t r = 0; r < rows.size(); ++r)
                  if (dropped[r] == 0)
                    worst =
                        std::max(worst, std::abs(row_rate(static_cast<int>(r)) - rows[r].target));
                return worst;
              });

  // set by the Simulation after each accepted step (seeds 001 and 003 plot it)
  add_channel("integrator.step", "s", kKin,
              "size of the integrator's last accepted step (0 before the first)",
              [this] { return step_size; });

  register_orientation_channels();
}

void System::set_step_size(double h) {
  impl_->step_size = h;
}

}  // namespace ictus
