#include "moreau_jean.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ictus/error.h"

namespace ictus {

MoreauJeanStepper::MoreauJeanStepper(MechanicalSystem& system, const StepperOptions& options)
    : system_(system), h_(options.step), theta_(options.moreau_theta) {}

namespace {
template <class M>
void shape(M& m, Eigen::Index rows, Eigen::Index cols) {
  if (m.rows() != rows || m.cols() != cols) m.resize(rows, cols);
}
void shape(VecX& v, Eigen::Index rows) {
  if (v.size() != rows) v.resize(rows);
}
}  // namespace

void MoreauJeanStepper::size_work() {
  const Eigen::Index m = rows_.D.rows();
  const Eigen::Index nc = rows_.G.rows();
  shape(B_, nv_, m);
  if (A_.rows() != m) {
    A_ = MatX::Identity(m, m);
    llt_.compute(A_);  // sizes its factor
  }
  shape(p_, m);
  shape(rhs_, m);
  shape(YP_, m);
  shape(MinvGt_, nv_, nc);
  shape(GB_, nc, m);
  shape(Y_, m, nc);
  shape(W_, nc, nc);
  shape(q_, nc);
  if (P_.size() != nc) P_ = VecX::Zero(nc);
  shape(rate0_, nc);
  shape(rate1_, nc);
  index_set_.reserve(static_cast<std::size_t>(nc));
  lcp_.reserve(static_cast<int>(nc));
}

void MoreauJeanStepper::reset(double t, const VecX& y) {
  if (!std::isfinite(origin_)) origin_ = t;  // the grid of the run
  t_ = t;
  t_previous_ = t;
  y_ = y;
  previous_ = y;
  if (nv_ != system_.layout().velocity_size() || Minv_.size() == 0) {
    layout_ = system_.layout();
    nv_ = layout_.velocity_size();
    // M is constant (body-axis angular velocities) and block diagonal
    Minv_ = MatX::Zero(nv_, nv_);
    MatX M = MatX::Zero(nv_, nv_);
    for (int j = 0; j < nv_; ++j) system_.add_mass_times(1.0, VecX::Unit(nv_, j), M.col(j));
    for (int b = 0; b < layout_.bodies; ++b)
      Minv_.block<6, 6>(6 * b, 6 * b) = M.block<6, 6>(6 * b, 6 * b).inverse();
    u0_.resize(nv_);
    u_free_.resize(nv_);
    u1_.resize(nv_);
    force_.resize(nv_);
    mean_ = VecX::Zero(nv_);
    dense_.resize(nv_);
  }
  mean_.setZero();
  y_pred_ = y;
  system_.time_stepping_rows(t, y, rows_);
  size_work();
  P_.setZero();
  system_.record_contact_impulses(h_, P_);
}

void MoreauJeanStepper::step(double t_limit) {
  // steps end on the grid origin + k h (exactly, without accumulating
  // round-off), so that output samples at multiples of the step are step
  // ends; after a reset off the grid (an event) the first step goes to the
  // next grid point, or the one after when that is nearer than h/2
  const double done = std::floor((t_ - origin_) / h_ + 1e-6);
  double t_next = origin_ + (done + 1.0) * h_;
  if (t_next - t_ < 0.5 * h_) t_next = origin_ + (done + 2.0) * h_;
  if (t_next > t_limit - 1e-9 * h_) t_next = t_limit;
  const double h = t_next - t_;
  if (!(h > 0.0)) throw SimulationError(t_, "moreau_jean: no time left to step");
  previous_ = y_;
  t_previous_ = t_;
  u0_ = layout_.velocities(y_);

  // the impulse of the forces over the step, theta-weighted (AB 10.16a);
  // their end value at the explicit prediction q (+) h u
  force_.setZero();
  system_.add_forces(t_, y_, 1.0 - theta_, force_);
  y_pred_ = y_;
  mean_ = h * u0_;
  integrate_positions(layout_, layout_.positions(previous_), mean_, layout_.positions(y_pred_));
  system_.add_forces(t_ + h, y_pred_, theta_, force_);
  stats_.evaluations += 2;
  u_free_.noalias() = Minv_ * force_;
  u_free_ = u0_ + h * u_free_;

  // the rows at q, the equality targets at t + h
  system_.time_stepping_rows(t_ + h, y_, rows_);
  if (rows_.D.rows() != A_.rows() || rows_.G.rows() != W_.rows() || B_.rows() != nv_)
    size_work();  // the structure changed (an event switched a joint)
  const Eigen::Index m = rows_.D.rows();
  const MatX& G = rows_.G;
  const MatX& D = rows_.D;

  // equality rows condensed out: u1 = u_free + M^-1 D^T p, D u1 = target
  u1_ = u_free_;
  if (m > 0) {
    B_.noalias() = Minv_ * D.transpose();
    A_.noalias() = D * B_;
    llt_.compute(A_);
    if (llt_.info() != Eigen::Success)
      throw SimulationError(t_ + h, "moreau_jean: the equality rows are singular in this step");
    p_ = rows_.target;
    p_.noalias() -= D * u_free_;
    llt_.solveInPlace(p_);
    u1_.noalias() += B_ * p_;
  }

  // the index set: sides whose gap, predicted half a step ahead, is closed
  // (AB 10.17; Siconos' MoreauJeanOSI with gamma = 1/2), to round-off: a
  // side held at rest has a gap of the coordinate's round-off and a gap
  // rate of the round-off of the step's velocity change, which add up over
  // the steps: 1e-9 of the gap the step's motion covers
  rate0_.noalias() = G * u0_;
  rate1_.noalias() = G * u_free_;
  index_set_.clear();
  for (Eigen::Index k = 0; k < G.rows(); ++k) {
    const double round_off =
        rows_.resolution(k) + 1e-9 * h * (std::abs(rate0_(k)) + std::abs(rate1_(k) - rate0_(k)));
    if (rows_.gap(k) + 0.5 * h * rate0_(k) <= round_off) index_set_.push_back(static_cast<int>(k));
  }
  P_.setZero();
  if (!index_set_.empty()) {
    // Delassus matrix under the equality rows: W = G P_M G^T,
    // P_M = M^-1 - B A^-1 B^T (system_contacts.cpp, solve_condensed)
    MinvGt_.noalias() = Minv_ * G.transpose();
    W_.noalias() = G * MinvGt_;
    if (m > 0) {
      GB_.noalias() = G * B_;
      Y_ = GB_.transpose();
      llt_.solveInPlace(Y_);
      W_.noalias() -= GB_ * Y_;
    }
    // Newton's law on the gap rates: G u1 + e min(G u0, 0) >= 0
    q_.noalias() = G * u1_;
    for (Eigen::Index k = 0; k < q_.size(); ++k)
      q_(k) += rows_.restitution(k) * std::min(rate0_(k), 0.0);
    if (!lcp_.solve(W_, q_, index_set_, P_))
      throw SimulationError(
          t_ + h, fmt::format("moreau_jean: the contact problem of the step has no solution "
                              "(complementarity error {:.3g})",
                              lcp_.error()));
    u1_.noalias() += MinvGt_ * P_;
    if (m > 0) {
      YP_.noalias() = Y_ * P_;
      u1_.noalias() -= B_ * YP_;
      p_ -= YP_;
    }
  }

  // positions along the theta-weighted velocity (AB 10.16b)
  mean_ = (h * theta_) * u1_ + (h * (1.0 - theta_)) * u0_;
  integrate_positions(layout_, layout_.positions(previous_), mean_, layout_.positions(y_));
  layout_.velocities(y_) = u1_;
  t_ = t_next;

  // energy: the contacts' work with the step's mean gap rates (<= 0 for
  // e <= 1: what the impacts took), the equality impulses' work
  rate1_.noalias() = G * u1_;
  const double impact_loss = -0.5 * P_.dot(rate0_ + rate1_);
  double constraint_work = 0.0;
  if (m > 0) {
    rhs_.noalias() = D * u0_;
    rhs_.noalias() += D * u1_;
    constraint_work = 0.5 * p_.dot(rhs_);
  }
  // the joints' drift (contacts are not projected); the dense output
  // follows the projected end
  if (system_.project(t_, y_))
    position_difference(layout_, layout_.positions(previous_), layout_.positions(y_), mean_);
  scheme_dissipation_ += system_.book_step_energy(t_previous_, previous_, t_, y_, theta_,
                                                  impact_loss, constraint_work);
  system_.record_contact_impulses(h, P_);
  ++stats_.steps;
}

void MoreauJeanStepper::interpolate(double tt, Eigen::Ref<VecX> out) const {
  const double h = t_ - t_previous_;
  if (h <= 0.0) {
    out = y_;
    return;
  }
  const double s = (tt - t_previous_) / h;
  dense_ = s * mean_;
  integrate_positions(layout_, layout_.positions(previous_), dense_,
                      out.head(layout_.position_size()));
  layout_.velocities(out) = (1.0 - s) * layout_.velocities(previous_) + s * layout_.velocities(y_);
  layout_.audit_entries(out) =
      (1.0 - s) * layout_.audit_entries(previous_) + s * layout_.audit_entries(y_);
}

}  // namespace ictus
