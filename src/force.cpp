#include "ictus/force.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ictus {

const BodyKinematics& ForceContext::body(BodyIndex b) const {
  static const BodyKinematics kGroundKinematics{};
  return b == kGround ? kGroundKinematics : bodies_[static_cast<std::size_t>(b)];
}

void LoadAccumulator::add_force_at(BodyIndex b, const BodyKinematics& kin, const Vec3& force_W,
                                   const Vec3& p_W) {
  if (b == kGround) return;
  BodyLoad& load = loads_[static_cast<std::size_t>(b)];
  load.force_W += force_W;
  load.torque_B += kin.R_WB.transpose() * (p_W - kin.p_W).cross(force_W);
}

void LoadAccumulator::add_torque_W(BodyIndex b, const BodyKinematics& kin, const Vec3& torque_W) {
  if (b == kGround) return;
  loads_[static_cast<std::size_t>(b)].torque_B += kin.R_WB.transpose() * torque_W;
}

const std::string& ForceElement::hold_joint() const {
  static const std::string kNone;
  return kNone;
}

ForceJacobian::Block& ForceJacobian::block(BodyIndex i, BodyIndex j) {
  for (std::size_t k = 0; k < size_; ++k)
    if (blocks_[k].load_body == i && blocks_[k].coordinate_body == j) return blocks_[k];
  if (size_ == blocks_.size()) blocks_.emplace_back();
  Block& b = blocks_[size_++];
  b.load_body = i;
  b.coordinate_body = j;
  b.position.setZero();
  b.velocity.setZero();
  return b;
}

void ForceJacobian::add_position(BodyIndex i, BodyIndex j, const Mat6& K) {
  if (i == kGround || j == kGround) return;
  block(i, j).position += K;
}

void ForceJacobian::add_velocity(BodyIndex i, BodyIndex j, const Mat6& C) {
  if (i == kGround || j == kGround) return;
  block(i, j).velocity += C;
}

namespace {

// Moves tangent coordinate c of one body by h: 0-2 dp_W, 3-5 dtheta_B
// (R_WB <- R_WB exp(dtheta_B), state_layout.h), 6-8 v_W, 9-11 w_B; the
// cached w_W follows as in System::Impl::compute_kinematics.
void perturb(BodyKinematics& k, int c, double h) {
  if (c < 3) {
    k.p_W(c) += h;
  } else if (c < 6) {
    Vec3 theta = Vec3::Zero();
    theta(c - 3) = h;
    k.R_WB = k.R_WB * quat_exp(theta).toRotationMatrix();
    k.w_W = k.R_WB * k.w_B;
  } else if (c < 9) {
    k.v_W(c - 6) += h;
  } else {
    k.w_B(c - 9) += h;
    k.w_W = k.R_WB * k.w_B;
  }
}

}  // namespace

void ForceElement::add_jacobian_fd(const ForceContext& ctx, ForceJacobian& J,
                                   ForcePart part) const {
  const std::span<const BodyKinematics> at = ctx.bodies();
  std::vector<BodyIndex> own;
  for (const BodyIndex b : jacobian_bodies())
    if (b != kGround && std::find(own.begin(), own.end(), b) == own.end()) own.push_back(b);
  if (own.empty()) return;
  J.perturbed.assign(at.begin(), at.end());
  J.loads_plus.resize(at.size());
  J.loads_minus.resize(at.size());
  auto evaluate = [&](std::vector<BodyLoad>& out) {
    if (J.probe != nullptr) {
      J.probe->element_loads(*this, J.perturbed, ctx.t(), part, out);
      J.probe_used = true;
      return;
    }
    std::fill(out.begin(), out.end(), BodyLoad{});
    const ForceContext perturbed(J.perturbed, ctx.t());
    LoadAccumulator accumulator(out);
    apply_part(perturbed, accumulator, part);
  };
  // central differences, step eps^(1/3) scaled to the coordinate (truncation
  // O(h^2) and round-off O(eps/h) balance there: relative error ~ 1e-10)
  const double root3_eps = std::cbrt(std::numeric_limits<double>::epsilon());
  std::vector<Mat6> K(own.size()), C(own.size());
  for (const BodyIndex j : own) {
    const auto sj = static_cast<std::size_t>(j);
    for (int c = 0; c < 12; ++c) {
      double x = 0.0;  // rotation increments are centred at 0
      if (c < 3) x = at[sj].p_W(c);
      if (c >= 6 && c < 9) x = at[sj].v_W(c - 6);
      if (c >= 9) x = at[sj].w_B(c - 9);
      const double h = root3_eps * std::max(std::abs(x), 1.0);
      perturb(J.perturbed[sj], c, h);
      evaluate(J.loads_plus);
      J.perturbed[sj] = at[sj];
      perturb(J.perturbed[sj], c, -h);
      evaluate(J.loads_minus);
      J.perturbed[sj] = at[sj];
      for (std::size_t k = 0; k < own.size(); ++k) {
        const auto si = static_cast<std::size_t>(own[k]);
        Vec6 column;
        column.head<3>() = J.loads_plus[si].force_W - J.loads_minus[si].force_W;
        column.tail<3>() = J.loads_plus[si].torque_B - J.loads_minus[si].torque_B;
        (c < 6 ? K[k].col(c) : C[k].col(c - 6)) = column / (2.0 * h);
      }
    }
    for (std::size_t k = 0; k < own.size(); ++k) {
      J.add_position(own[k], j, K[k]);
      J.add_velocity(own[k], j, C[k]);
    }
  }
}

std::string ForceElement::element_label() const {
  return fmt::format("force '{}'", name_);
}

}  // namespace ictus
