// Coulomb friction whose normal force is a reaction of the constraints:
// the common part of a joint's friction (seed 004, joint_friction.h) and of
// a contact point's (contact_friction.h), docs/theory/friction.md. The
// friction force F depends on the normal force N, which depends on the
// accelerations, which depend on F: the element cannot add its load from
// the kinematics alone. The System solves for F together with the
// reactions, without iteration (system_joint_friction.cpp), and stores F
// and N here. Stuck (mode 0) the element's coordinate is held by its
// stick/slip hold row, within mu_static |N|.
#pragma once

#include <string>

#include "ictus/force.h"

namespace ictus {

class ReactionFriction : public ForceElement {
 public:
  /// Adds nothing: the System adds the slip force it solved for.
  ForcePower apply(const ForceContext& /*ctx*/, LoadAccumulator& /*loads*/) const override {
    return {};
  }
  /// Adds the generalised load of a friction force F along the element's
  /// coordinate (on the follower; the opposite on the base).
  void add_slip_load(const ForceContext& ctx, LoadAccumulator& loads, double F) const override = 0;
  /// The rate along the load of add_slip_load (the slip rate, unless the load has
  /// a direction of its own: a ball's): F times it is the friction's power.
  virtual double load_rate(const ForceContext& ctx) const { return slip_rate(ctx); }
  /// The joint or contact point the friction acts in, for messages.
  virtual const std::string& site() const = 0;

  bool has_stick_slip() const override { return true; }
  /// The static limit mu_static |N| (times r for a pin), with N from the
  /// System's last solve.
  double slip_limit(const ForceContext& /*ctx*/) const override { return static_lever() * normal_; }

  /// mu (times r for a pin): the slip force per newton of normal force.
  double kinetic_lever() const { return lever_ * mu_; }
  /// mu_static (times r for a pin).
  double static_lever() const { return lever_ * mu_static_; }
  /// Values of the System's last solve: |N| and the friction force F.
  double normal() const { return normal_; }
  double force() const { return force_; }
  void set_solution(double normal, double force) {
    normal_ = normal;
    force_ = force;
  }

 protected:
  ReactionFriction(std::string name, SourceLocation where, double mu, double mu_static,
                   double lever)
      : ForceElement(std::move(name), std::move(where)),
        mu_(mu),
        mu_static_(mu_static),
        lever_(lever) {}

 private:
  double mu_ = 0.0;
  double mu_static_ = 0.0;
  double lever_ = 1.0;  // r for a pin, 1 for a slider or a contact
  double normal_ = 0.0;
  double force_ = 0.0;
};

}  // namespace ictus
