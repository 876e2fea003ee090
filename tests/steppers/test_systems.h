// Small mechanical systems with known solutions for the stepper tests: one
// body moving along x (every other coordinate at rest), x'' = f(t, x, x'),
// and a free rigid body spinning torque-free.
#pragma once

#include <functional>
#include <utility>

#include "ictus/mechanical_system.h"

namespace ictus::testing {

/// x'' = f(t, x, v) on body 0's x coordinate; the nonlinear part g (if any)
/// is added to f and can be frozen for the two-pass scheme.
class LineSystem final : public MechanicalSystem {
 public:
  using Law = std::function<double(double t, double x, double v)>;
  explicit LineSystem(Law f, Law nonlinear = {})
      : f_(std::move(f)), g_(std::move(nonlinear)), layout_{1, 1} {}

  const StateLayout& layout() const override { return layout_; }
  void accelerations(double t, const VecX& y, Eigen::Ref<VecX> rates) override {
    const double x = y(0), v = y(7);
    double a = f_(t, x, v);
    if (g_) a += frozen_ ? g_(frozen_t_, frozen_x_, frozen_v_) : g_(t, x, v);
    rates.setZero();
    rates(0) = a;
    rates(6) = v * v;  // an audit quadrature: the integral of v^2
    ++calls;
  }
  bool has_nonlinear_forces() const override { return static_cast<bool>(g_); }
  void freeze_nonlinear_forces(double t, const VecX* y) override {
    frozen_ = y != nullptr;
    if (frozen_) {
      frozen_t_ = t;
      frozen_x_ = (*y)(0);
      frozen_v_ = (*y)(7);
    }
  }

  /// A state at rest at the origin with x = x0, v = v0.
  static VecX state(double x0, double v0) {
    VecX y = VecX::Zero(14);
    y(3) = 1.0;  // identity quaternion
    y(0) = x0;
    y(7) = v0;
    return y;
  }

  long calls = 0;

 private:
  Law f_, g_;
  StateLayout layout_;
  bool frozen_ = false;
  double frozen_t_ = 0.0, frozen_x_ = 0.0, frozen_v_ = 0.0;
};

/// A free rigid body with principal inertia J (body frame), no loads:
/// Euler's equations J w' = (J w) x w.
class SpinningBody final : public MechanicalSystem {
 public:
  explicit SpinningBody(Vec3 inertia) : inertia_(std::move(inertia)), layout_{1, 0} {}
  const StateLayout& layout() const override { return layout_; }
  void accelerations(double /*t*/, const VecX& y, Eigen::Ref<VecX> rates) override {
    const Vec3 w = y.segment<3>(10);
    rates.setZero();
    rates.segment<3>(3) = (inertia_.cwiseProduct(w)).cross(w).cwiseQuotient(inertia_);
  }
  static VecX state(const Vec3& w_B) {
    VecX y = VecX::Zero(13);
    y(3) = 1.0;
    y.segment<3>(10) = w_B;
    return y;
  }
  /// Angular momentum in world axes, conserved.
  Vec3 momentum_W(const VecX& y) const {
    const Quat q(y(3), y(4), y(5), y(6));
    return q.toRotationMatrix() * inertia_.cwiseProduct(y.segment<3>(10));
  }

 private:
  Vec3 inertia_;
  StateLayout layout_;
};

}  // namespace ictus::testing
