#include "structural_stepper.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ictus/error.h"

namespace ictus {

StructuralStepper::StructuralStepper(Scheme scheme, MechanicalSystem& system,
                                     const StepperOptions& options)
    : scheme_(scheme), system_(system), options_(options) {
  switch (scheme) {
    case Scheme::kNewmark:
      beta_ = options.beta;
      gamma_ = options.gamma;
      break;
    case Scheme::kHht:
      am_ = 0.0;
      af_ = -options.alpha;
      gamma_ = 0.5 - options.alpha;
      beta_ = 0.25 * (1.0 - options.alpha) * (1.0 - options.alpha);
      break;
    case Scheme::kGeneralizedAlpha: {
      const double rho = options.rho_inf;
      am_ = (2.0 * rho - 1.0) / (rho + 1.0);
      af_ = rho / (rho + 1.0);
      gamma_ = 0.5 - am_ + af_;
      beta_ = 0.25 * (1.0 - am_ + af_) * (1.0 - am_ + af_);
      break;
    }
    case Scheme::kWilson:
      beta_ = 1.0 / 6.0;  // linear acceleration over the extended step
      gamma_ = 0.5;
      break;
  }
}

std::string_view StructuralStepper::name() const {
  switch (scheme_) {
    case Scheme::kNewmark:
      return "newmark";
    case Scheme::kHht:
      return "hht";
    case Scheme::kGeneralizedAlpha:
      return "generalized_alpha";
    case Scheme::kWilson:
      return "wilson";
  }
  return "";
}

void StructuralStepper::reset(double t, const VecX& y) {
  layout_ = system_.layout();
  nv_ = layout_.velocity_size();
  na_ = layout_.audit;
  const auto ny = static_cast<Eigen::Index>(layout_.size());
  for (VecX* v : {&y_, &y_new_, &y_frozen_, &previous_}) v->resize(ny);
  for (VecX* v :
       {&qdd_, &a_, &x_, &dx_, &a_new_, &v_new_, &increment_, &residual_, &load_extrapolation_,
        &v0_, &acc0_, &v1_, &acc1_, &increment_end_, &dense_increment_})
    v->resize(nv_);
  for (VecX* v : {&r_, &audit0_, &audit1_}) v->resize(na_);
  rates_.resize(nv_ + na_);
  // the Newton matrices and the Jacobian's work, sized outside the step loop
  system_.reserve_jacobian_work();
  A_q_.resize(nv_, nv_);
  A_v_.resize(nv_, nv_);
  if (iteration_matrix_.rows() != nv_) {
    iteration_matrix_.setIdentity(nv_, nv_);
    lu_.compute(iteration_matrix_);
  }
  t_ = t;
  t_previous_ = t;
  y_ = y;
  system_.accelerations(t, y_, rates_);
  ++stats_.evaluations;
  qdd_ = rates_.head(nv_);
  a_ = qdd_;  // the scheme's acceleration starts as the true one (Bathe)
  r_ = rates_.tail(na_);
  load_extrapolation_.setZero();
  jacobian_h_ = 0.0;  // the structure may have changed: a new iteration matrix
  previous_ = y_;
  increment_end_.setZero();
  v0_ = layout_.velocities(y_);
  v1_ = v0_;
  acc0_ = qdd_;
  acc1_ = qdd_;
  audit0_ = layout_.audit_entries(y_);
  audit1_ = audit0_;
}

void StructuralStepper::update(double tau, const VecX& x) {
  if (scheme_ == Scheme::kWilson) {
    a_new_ = x;
  } else {
    a_new_ = ((1.0 - af_) * x + af_ * qdd_ - am_ * a_) / (1.0 - am_);
  }
  const auto v_n = layout_.velocities(y_);
  v_new_ = v_n + tau * ((1.0 - gamma_) * a_ + gamma_ * a_new_);
  increment_ = tau * v_n + (tau * tau) * ((0.5 - beta_) * a_ + beta_ * a_new_);
  integrate_positions(layout_, layout_.positions(y_), increment_, layout_.positions(y_new_));
  layout_.velocities(y_new_) = v_new_;
  layout_.audit_entries(y_new_) = layout_.audit_entries(y_);
}

void StructuralStepper::refresh_jacobian(double t, double h) {
  const double tau = scheme_ == Scheme::kWilson ? options_.theta * h : h;
  const double c = scheme_ == Scheme::kWilson ? 1.0 : (1.0 - af_) / (1.0 - am_);
  system_.jacobian(t, y_new_, rates_, A_q_, A_v_);
  stats_.evaluations += 2 * nv_;
  ++stats_.jacobian_evaluations;
  iteration_matrix_.setIdentity();
  iteration_matrix_ -= (c * beta_ * tau * tau) * A_q_ + (c * gamma_ * tau) * A_v_;
  lu_.compute(iteration_matrix_);
  jacobian_h_ = h;
}

bool StructuralStepper::solve(double h) {
  const double tau = scheme_ == Scheme::kWilson ? options_.theta * h : h;
  const double t_eval = t_ + h;  // Wilson: loads extrapolated from t + h (load_extrapolation_)
  if (nv_ == 0) {  // a model without bodies: no unknowns (and no entries for maxCoeff)
    update(tau, x_);
    return true;
  }
  bool fresh = false;
  for (int it = 0; it < options_.newton_max_iterations; ++it) {
    update(tau, x_);
    system_.accelerations(t_eval, y_new_, rates_);
    ++stats_.evaluations;
    residual_ = x_ - rates_.head(nv_) - load_extrapolation_;
    if (!residual_.allFinite()) return false;
    // modified Newton: the iteration matrix is kept over steps of the same
    // size and rebuilt when convergence is slow
    if (jacobian_h_ != h || (it >= 4 && !fresh)) {
      refresh_jacobian(t_eval, h);
      fresh = true;
    }
    dx_ = lu_.solve(residual_);
    x_ -= dx_;
    ++stats_.newton_iterations;
    if (!x_.allFinite()) return false;
    const double scale = 1.0 + x_.cwiseAbs().maxCoeff();
    if (dx_.cwiseAbs().maxCoeff() <= options_.newton_tolerance * scale) {
      update(tau, x_);
      return true;
    }
  }
  return false;
}

void StructuralStepper::extrapolate_loads(double h) {
  if (scheme_ == Scheme::kWilson && options_.theta != 1.0) {
    // the loads' explicit time dependence over the extended step, linearly
    // extrapolated (Bathe 9.2.3): (theta - 1) (A(t + h, y_n) - A(t, y_n))
    system_.accelerations(t_ + h, y_, rates_);
    ++stats_.evaluations;
    load_extrapolation_ = (options_.theta - 1.0) * (rates_.head(nv_) - qdd_);
  }
}

void StructuralStepper::step(double t_limit) {
  const double limit_slack = 1e-12 * std::max(1.0, std::abs(t_limit));
  const bool last = t_ + options_.step >= t_limit - limit_slack;
  double h = last ? t_limit - t_ : options_.step;
  const bool two_pass = options_.two_pass && system_.has_nonlinear_forces();
  for (int attempt = 0;; ++attempt) {
    if (!(h > options_.min_step * std::max(1.0, std::abs(t_))))
      throw SimulationError(t_,
                            fmt::format("{}: step {:.3g} s is too small to advance", name(), h));
    extrapolate_loads(h);
    x_ = qdd_;  // predictor: the acceleration stays
    bool converged = false;
    if (two_pass) {
      // seed 003: nonlinear forces at t, then at the pass-1 state at t + h
      system_.freeze_nonlinear_forces(t_, &y_);
      converged = solve(h);
      if (converged) {
        if (scheme_ == Scheme::kWilson) {
          // the pass-1 state at t + h, from the extended-step acceleration
          const VecX& x_tau = x_;
          a_new_ = a_ + (x_tau - a_) / options_.theta;
          const auto v_n = layout_.velocities(y_);
          increment_ = h * v_n + (h * h / 6.0) * (2.0 * a_ + a_new_);
          integrate_positions(layout_, layout_.positions(y_), increment_,
                              layout_.positions(y_frozen_));
          layout_.velocities(y_frozen_) = v_n + (0.5 * h) * (a_ + a_new_);
          layout_.audit_entries(y_frozen_) = layout_.audit_entries(y_);
        } else {
          y_frozen_ = y_new_;
        }
        system_.freeze_nonlinear_forces(t_ + h, &y_frozen_);
        converged = solve(h);
      }
      system_.freeze_nonlinear_forces(t_, nullptr);
    } else {
      converged = solve(h);
    }
    if (converged) break;
    ++stats_.rejected;
    if (attempt >= 10)
      throw SimulationError(
          t_, fmt::format("{}: Newton did not converge in {} iterations even with step {:.3g} s",
                          name(), options_.newton_max_iterations, h));
    h *= 0.5;
    jacobian_h_ = 0.0;
  }
  // back from the extended step (Wilson), or the state is y_new_ already
  if (scheme_ == Scheme::kWilson) {
    a_new_ = a_ + (x_ - a_) / options_.theta;
    const auto v_n = layout_.velocities(y_);
    v_new_ = v_n + (0.5 * h) * (a_ + a_new_);
    increment_ = h * v_n + (h * h / 6.0) * (2.0 * a_ + a_new_);
    integrate_positions(layout_, layout_.positions(y_), increment_, layout_.positions(y_new_));
    layout_.velocities(y_new_) = v_new_;
  }
  // back onto the constraints (the index-1 form drifts by O(h^2) per step)
  const double t_new = h == t_limit - t_ ? t_limit : t_ + h;
  if (system_.project(t_new, y_new_))
    position_difference(layout_, layout_.positions(y_), layout_.positions(y_new_), increment_);
  // the true accelerations and audit rates at the new point: exact audit
  // quadratures, and the evaluation the event check reuses
  system_.accelerations(t_new, y_new_, rates_);
  ++stats_.evaluations;
  // dense output data over [t, t + h]
  previous_ = y_;
  v0_ = layout_.velocities(y_);
  acc0_ = qdd_;
  increment_end_ = increment_;
  v1_ = layout_.velocities(y_new_);
  acc1_ = rates_.head(nv_);
  audit0_ = layout_.audit_entries(y_);
  audit1_ = audit0_ + (0.5 * h) * (r_ + rates_.tail(na_));
  layout_.audit_entries(y_new_) = audit1_;
  // advance
  y_.swap(y_new_);
  if (scheme_ == Scheme::kWilson) {
    qdd_ = rates_.head(nv_);  // Wilson's own acceleration is not the true one
  } else {
    qdd_ = x_;  // (a conditional expression of the two would make a temporary)
  }
  a_ = a_new_;
  r_ = rates_.tail(na_);
  t_previous_ = t_;
  t_ = t_new;
  ++stats_.steps;
}

void StructuralStepper::interpolate(double tt, Eigen::Ref<VecX> out) const {
  const double h = t_ - t_previous_;
  if (h <= 0.0) {
    out = y_;
    return;
  }
  const double s = (tt - t_previous_) / h;
  const double s1 = 1.0 - s;
  const HermiteBasis b(s);
  dense_increment_ = (b.h10 * h) * v0_ + b.h01 * increment_end_ + (b.h11 * h) * v1_;
  integrate_positions(layout_, layout_.positions(previous_), dense_increment_,
                      out.head(layout_.position_size()));
  layout_.velocities(out) = b.h00 * v0_ + (b.h10 * h) * acc0_ + b.h01 * v1_ + (b.h11 * h) * acc1_;
  layout_.audit_entries(out) = s1 * audit0_ + s * audit1_;
}

}  // namespace ictus
