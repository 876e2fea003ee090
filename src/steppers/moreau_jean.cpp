#include "moreau_jean.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "../contact/friction_pyramid.h"
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
  const Eigen::Index nh = nc + rows_.T.rows();
  shape(B_, nv_, m);
  if (A_.rows() != m) {
    A_ = MatX::Identity(m, m);
    llt_.compute(A_);  // sizes its factor
  }
  shape(p_, m);
  shape(rhs_, m);
  shape(YP_, m);
  shape(H_, nh, nv_);
  shape(MinvHt_, nv_, nh);
  shape(HB_, nh, m);
  shape(Y_, m, nh);
  shape(W_, nh, nh);
  shape(q_, nh);
  if (Pi_.size() != nh) Pi_ = VecX::Zero(nh);
  shape(rate0_, nh);
  shape(rate1_, nh);
  index_set_.reserve(static_cast<std::size_t>(nc));
  // with friction: a normal impulse, four directions and a slack per side
  const Eigen::Index capacity = rows_.T.rows() > 0 ? 6 * nc : nc;
  shape(L_, capacity, capacity);
  shape(lq_, capacity);
  shape(lz_, capacity);
  friction_sides_.reserve(static_cast<std::size_t>(nc));
  friction_mu_.reserve(static_cast<std::size_t>(nc));
  lsubset_.resize(static_cast<std::size_t>(capacity));
  for (Eigen::Index i = 0; i < capacity; ++i)
    lsubset_[static_cast<std::size_t>(i)] = static_cast<int>(i);
  lcp_.reserve(static_cast<int>(capacity));
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
  Pi_.setZero();
  system_.record_contact_impulses(h_, Pi_);
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
  if (rows_.D.rows() != A_.rows() || rows_.G.rows() + rows_.T.rows() != W_.rows() ||
      B_.rows() != nv_)
    size_work();  // the structure changed (an event switched a joint)
  const Eigen::Index m = rows_.D.rows();
  const Eigen::Index nc = rows_.G.rows();
  const MatX& D = rows_.D;
  H_.topRows(nc) = rows_.G;
  if (rows_.T.rows() > 0) H_.bottomRows(rows_.T.rows()) = rows_.T;

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
  rate0_.noalias() = H_ * u0_;
  rate1_.noalias() = H_ * u_free_;
  index_set_.clear();
  for (Eigen::Index k = 0; k < nc; ++k) {
    const double round_off =
        rows_.resolution(k) + 1e-9 * h * (std::abs(rate0_(k)) + std::abs(rate1_(k) - rate0_(k)));
    if (rows_.gap(k) + 0.5 * h * rate0_(k) <= round_off) index_set_.push_back(static_cast<int>(k));
  }
  Pi_.setZero();
  if (!index_set_.empty()) {
    // Delassus matrix under the equality rows: W = H P_M H^T,
    // P_M = M^-1 - B A^-1 B^T (system_contacts.cpp, solve_condensed)
    MinvHt_.noalias() = Minv_ * H_.transpose();
    W_.noalias() = H_ * MinvHt_;
    if (m > 0) {
      HB_.noalias() = H_ * B_;
      Y_ = HB_.transpose();
      llt_.solveInPlace(Y_);
      W_.noalias() -= HB_ * Y_;
    }
    // Newton's law on the gap rates: G u1 + e min(G u0, 0) >= 0; the slip
    // rates T u1 (no tangential restitution)
    q_.noalias() = H_ * u1_;
    for (Eigen::Index k = 0; k < nc; ++k) q_(k) += rows_.restitution(k) * std::min(rate0_(k), 0.0);
    friction_sides_.clear();
    if (rows_.T.rows() > 0)
      for (const int k : index_set_)
        if (rows_.mu(k) > 0.0 || rows_.mu_static(k) > 0.0) friction_sides_.push_back(k);
    const bool solved =
        friction_sides_.empty() ? lcp_.solve(W_, q_, index_set_, Pi_) : solve_with_friction();
    if (!solved)
      throw SimulationError(
          t_ + h, fmt::format("moreau_jean: the contact problem of the step has no solution "
                              "(complementarity error {:.3g}){}",
                              lcp_.error(),
                              friction_sides_.empty()
                                  ? ""
                                  : "; with Coulomb friction this may be Painleve's paradox "
                                    "(no consistent contact forces): lower mu"));
    u1_.noalias() += MinvHt_ * Pi_;
    if (m > 0) {
      YP_.noalias() = Y_ * Pi_;
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
  rate1_.noalias() = H_ * u1_;
  // the normal impulses' work; the tangential impulses' (friction) is part
  // of what the balance lacks, booked as dissipated
  const double impact_loss = -0.5 * Pi_.head(nc).dot(rate0_.head(nc) + rate1_.head(nc));
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
  system_.record_contact_impulses(h, Pi_);
  ++stats_.steps;
}

// Coulomb friction in the step's complementarity problem, the friction
// pyramid of contact/friction_pyramid.h. mu is the static coefficient for a
// side at rest at the step's start (its slip rates below 1e-9 m/s), else the
// kinetic one.
bool MoreauJeanStepper::solve_with_friction() {
  const Eigen::Index nc = rows_.G.rows();
  const Eigen::Index n = static_cast<Eigen::Index>(index_set_.size() + 5 * friction_sides_.size());
  friction_mu_.clear();  // reserved for every side
  for (const int side : friction_sides_) {
    const bool at_rest =
        std::abs(rate0_(nc + 2 * side)) <= 1e-9 && std::abs(rate0_(nc + 2 * side + 1)) <= 1e-9;
    friction_mu_.push_back(at_rest ? rows_.mu_static(side) : rows_.mu(side));
  }
  internal::assemble_friction_pyramid(W_, q_, nc, index_set_, friction_sides_, friction_mu_, L_,
                                      lq_);
  // (the fallback for a degenerate problem, a box flat on rough corners, allocates)
  if (!lcp_.solve(L_, lq_, std::span<const int>(lsubset_.data(), static_cast<std::size_t>(n)), lz_,
                  false) &&
      !internal::solve_degenerate_friction_pyramid(L_, lq_, index_set_, friction_sides_, lz_))
    return false;
  internal::friction_pyramid_impulses(lz_, nc, index_set_, friction_sides_, Pi_);
  return true;
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
