#include "explicit_runge_kutta.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>

#include "ictus/error.h"

namespace ictus {

namespace {
// dense output of dopri5 (Hairer's CONTD5)
constexpr double d1 = -12715105075.0 / 11282082432.0, d3 = 87487479700.0 / 32700410799.0,
                 d4 = -10690763975.0 / 1880347072.0, d5 = 701980252875.0 / 199316789632.0,
                 d6 = -1453857185.0 / 822651844.0, d7 = 69997945.0 / 29380423.0;
// step-size control of dopri5 (Hairer's PI controller, beta = 0.04)
constexpr double kSafety = 0.9, kBeta = 0.04;
constexpr double kMaxGrowth = 10.0, kMaxShrink = 5.0;
// stages near a singular configuration are projected to round-off
constexpr double kStageTolerance = 1e-12;
}  // namespace

ExplicitRungeKutta::Tableau ExplicitRungeKutta::tableau(Method method) {
  Tableau t;
  switch (method) {
    case Method::kRk4:
      t.stages = 4;
      t.c = {0.0, 0.5, 0.5, 1.0};
      t.a[1][0] = 0.5;
      t.a[2][1] = 0.5;
      t.a[3][2] = 1.0;
      t.b = {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0};
      break;
    case Method::kDopri5:
      // Hairer, Norsett & Wanner, Table II.5.2; stage 7 is the FSAL stage
      t.stages = 7;
      t.adaptive = true;
      t.fsal = true;
      t.c = {0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0};
      t.a[1] = {1.0 / 5.0};
      t.a[2] = {3.0 / 40.0, 9.0 / 40.0};
      t.a[3] = {44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0};
      t.a[4] = {19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0};
      t.a[5] = {9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0};
      t.a[6] = {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0};
      t.b = t.a[6];
      t.e = {71.0 / 57600.0,      0.0,          -71.0 / 16695.0, 71.0 / 1920.0,
             -17253.0 / 339200.0, 22.0 / 525.0, -1.0 / 40.0};
      break;
    case Method::kRkf45:
      // Fehlberg (NASA TR R-315, 1969), coefficients as in FMM's RKF45
      t.stages = 6;
      t.adaptive = true;
      t.c = {0.0, 1.0 / 4.0, 3.0 / 8.0, 12.0 / 13.0, 1.0, 1.0 / 2.0};
      t.a[1] = {1.0 / 4.0};
      t.a[2] = {3.0 / 32.0, 9.0 / 32.0};
      t.a[3] = {1932.0 / 2197.0, -7200.0 / 2197.0, 7296.0 / 2197.0};
      t.a[4] = {439.0 / 216.0, -8.0, 3680.0 / 513.0, -845.0 / 4104.0};
      t.a[5] = {-8.0 / 27.0, 2.0, -3544.0 / 2565.0, 1859.0 / 4104.0, -11.0 / 40.0};
      // fifth-order weights (carried), and fifth minus fourth (error)
      t.b = {16.0 / 135.0, 0.0, 6656.0 / 12825.0, 28561.0 / 56430.0, -9.0 / 50.0, 2.0 / 55.0};
      t.e = {1.0 / 360.0, 0.0, -128.0 / 4275.0, -2197.0 / 75240.0, 1.0 / 50.0, 2.0 / 55.0};
      break;
  }
  return t;
}

ExplicitRungeKutta::ExplicitRungeKutta(Method method, MechanicalSystem& system,
                                       const StepperOptions& options)
    : method_(method),
      system_(system),
      options_(options),
      tab_(tableau(method)),
      crossing_(std::span<const double>(tab_.c.data(), static_cast<std::size_t>(tab_.stages))) {}

std::string_view ExplicitRungeKutta::name() const {
  switch (method_) {
    case Method::kRk4:
      return "rk4";
    case Method::kDopri5:
      return "dopri5";
    case Method::kRkf45:
      return "rkf45";
  }
  return "";
}

void ExplicitRungeKutta::to_state(const VecX& base, const VecX& z, Eigen::Ref<VecX> y) const {
  integrate_positions(layout_, layout_.positions(base), z.head(nv_),
                      y.head(layout_.position_size()));
  y.tail(nv_ + layout_.audit) = z.tail(nv_ + layout_.audit);
}

void ExplicitRungeKutta::rates(double t, const VecX& z, VecX& k) {
  to_state(base_, z, y_stage_);
  // near a singular configuration the stage is put onto the constraints:
  // the rates are those of the projected state (singular_crossing.h)
  if (crossing_.near() && system_.project_to(t, y_stage_, kStageTolerance)) {
    system_.accelerations(t, y_stage_, k.tail(nv_ + layout_.audit));
    v_stage_ = layout_.velocities(y_stage_);
    increment_rate(layout_, z.head(nv_), v_stage_, k.head(nv_));
  } else {
    system_.accelerations(t, y_stage_, k.tail(nv_ + layout_.audit));
    increment_rate(layout_, z.head(nv_), z.segment(nv_, nv_), k.head(nv_));
  }
  ++stats_.evaluations;
}

void ExplicitRungeKutta::reset(double t, const VecX& y) {
  layout_ = system_.layout();
  nv_ = layout_.velocity_size();
  nz_ = 2 * nv_ + layout_.audit;
  const auto ny = static_cast<Eigen::Index>(layout_.size());
  for (VecX* v : {&y_, &base_, &previous_, &y_stage_, &state_work_}) v->resize(ny);
  v_stage_.resize(layout_.velocity_size());
  crossing_.reset();
  for (VecX* v :
       {&z0_, &z_stage_, &z_new_, &error_, &k_end_, &d0_, &d1_, &d2_, &d3_, &d4_, &z_dense_})
    v->resize(nz_);
  for (VecX& k : k_) k.resize(nz_);
  t_ = t;
  t_previous_ = t;
  y_ = y;
  base_ = y;
  previous_ = y;
  z0_.head(nv_).setZero();
  z0_.tail(nv_ + layout_.audit) = y.tail(nv_ + layout_.audit);
  rates(t_, z0_, k_[0]);
  // no step yet: the dense output is the point itself
  d0_ = z0_;
  for (VecX* v : {&d1_, &d2_, &d3_, &d4_}) v->setZero();
  d2_ = z0_;
  h_ = 0.0;
  // after a restart (an event) the first step is no longer than the last
  // accepted one: the initial guess knows nothing of what made the restart
  // necessary (a rebound, a release) and could step over the next event
  h_cap_ = h_last_;
  previous_error_ = 1e-4;
  rejected_last_ = false;
}

// A projection moved y by about the tolerance of the constraints: the last
// step's size and error history still describe the solution, so the next
// step keeps them (a reset would restart from Hairer's initial guess, far
// shorter than a fifth-order step, at every projection). Only the first
// stage is evaluated again at the corrected state; the dense output of the
// last step is kept (it interpolates the uncorrected solution, within the
// correction).
void ExplicitRungeKutta::continue_corrected(double t, const VecX& y) {
  if (y.size() != y_.size() || t != t_) {
    reset(t, y);
    return;
  }
  y_ = y;
  base_ = y;
  z0_.head(nv_).setZero();
  z0_.tail(nv_ + layout_.audit) = y.tail(nv_ + layout_.audit);
  rates(t_, z0_, k_[0]);
}

double ExplicitRungeKutta::error_norm(double h) const {
  // dopri5: RMS, rkf45: max norm, of the error over the positions and
  // velocities relative to atol + rtol * |value|; the audit entries are
  // quadratures of the solution and are not controlled
  double sum = 0.0, largest = 0.0;
  for (int i = 0; i < 2 * nv_; ++i) {
    double value = 0.0;
    if (i >= nv_) {
      value = std::max(std::abs(z0_(i)), std::abs(z_new_(i)));
    } else if (i % 6 < 3) {
      const int coordinate = 7 * (i / 6) + i % 6;
      value = std::max(std::abs(base_(coordinate)), std::abs(base_(coordinate) + z_new_(i)));
    } else {
      value = 1.0;  // a rotation, measured like a quaternion component
    }
    double e = 0.0;
    for (int j = 0; j < tab_.stages; ++j)
      if (tab_.e[static_cast<std::size_t>(j)] != 0.0)
        e += tab_.e[static_cast<std::size_t>(j)] * k_[static_cast<std::size_t>(j)](i);
    e = h * e / (options_.atol + options_.rtol * value);
    sum += e * e;
    largest = std::max(largest, std::abs(e));
  }
  if (method_ == Method::kRkf45) return largest;
  return std::sqrt(sum / static_cast<double>(std::max(1, 2 * nv_)));
}

// Hairer's HINIT: a step whose explicit Euler error is about the tolerance.
double ExplicitRungeKutta::initial_step(double t_limit) {
  const double span = t_limit - t_;
  const int n = 2 * nv_;
  double d0 = 0.0, d1n = 0.0;
  for (int i = 0; i < n; ++i) {
    const double value = i >= nv_ ? z0_(i) : (i % 6 < 3 ? base_(7 * (i / 6) + i % 6) : 1.0);
    const double sk = options_.atol + options_.rtol * std::abs(value);
    d0 += (value / sk) * (value / sk);
    d1n += (k_[0](i) / sk) * (k_[0](i) / sk);
  }
  const double nrm = static_cast<double>(std::max(1, n));
  d0 = std::sqrt(d0 / nrm);
  d1n = std::sqrt(d1n / nrm);
  double h0 = (d0 < 1e-10 || d1n < 1e-10) ? 1e-6 : 0.01 * d0 / d1n;
  h0 = std::min(h0, span);
  z_stage_ = z0_ + h0 * k_[0];
  rates(t_ + h0, z_stage_, k_[1]);
  double d2 = 0.0;
  for (int i = 0; i < n; ++i) {
    const double value = i >= nv_ ? z0_(i) : (i % 6 < 3 ? base_(7 * (i / 6) + i % 6) : 1.0);
    const double sk = options_.atol + options_.rtol * std::abs(value);
    const double v = (k_[1](i) - k_[0](i)) / sk;
    d2 += v * v;
  }
  d2 = std::sqrt(d2 / nrm) / h0;
  const double dmax = std::max(d1n, d2);
  const double h1 = dmax <= 1e-15 ? std::max(1e-6, h0 * 1e-3) : std::pow(0.01 / dmax, 0.2);
  double h = std::min(100.0 * h0, h1);
  if (options_.max_step > 0.0) h = std::min(h, options_.max_step);
  return std::min(h, span);
}

void ExplicitRungeKutta::step(double t_limit) {
  const double limit_slack = 1e-12 * std::max(1.0, std::abs(t_limit));
  if (tab_.adaptive && h_ <= 0.0) {
    h_ = initial_step(t_limit);
    if (h_cap_ > 0.0) h_ = std::min(h_, h_cap_);
  }
  for (;;) {
    // the last step lands on t_limit. A remainder within rounding of a full
    // step counts as the last one: t + h summed over many steps drifts by
    // ulps (ten steps of 0.1 end at 0.9999999999999999)
    double h = tab_.adaptive || h_ > 0.0 ? h_ : options_.step;
    if (tab_.adaptive && options_.max_step > 0.0) h = std::min(h, options_.max_step);
    const bool last = t_ + h >= t_limit - limit_slack;
    if (last) h = t_limit - t_;
    if (!(h > options_.min_step * std::max(1.0, std::abs(t_))))
      throw SimulationError(
          t_, tab_.adaptive ? fmt::format("{}: step size {:.3g} s underflows; the problem may be "
                                          "stiff or discontinuous here",
                                          name(), h)
                            : fmt::format("{}: step {:.3g} s is too small to advance", name(), h));
    for (int i = 1; i < tab_.stages; ++i) {
      const auto si = static_cast<std::size_t>(i);
      z_stage_ = z0_;
      for (int j = 0; j < i; ++j) {
        const double aij = tab_.a[si][static_cast<std::size_t>(j)];
        if (aij != 0.0) z_stage_ += (h * aij) * k_[static_cast<std::size_t>(j)];
      }
      rates(t_ + tab_.c[si] * h, z_stage_, k_[si]);
    }
    if (tab_.fsal) {
      z_new_ = z_stage_;  // the last stage sits at the new point
    } else {
      z_new_ = z0_;
      for (int j = 0; j < tab_.stages; ++j) {
        const double bj = tab_.b[static_cast<std::size_t>(j)];
        if (bj != 0.0) z_new_ += (h * bj) * k_[static_cast<std::size_t>(j)];
      }
    }
    if (!tab_.adaptive) {
      accept(h, last, t_limit);
      // a fixed step too is placed across a singular configuration, and
      // its stages projected near one (rk4 at h = 1e-3 s stepped over a
      // passage of a parallelogram with every row kept and turned onto the
      // other branch); the step is the user's elsewhere
      h_ = options_.step;
      after_accepted_step();
      return;
    }
    const double err = error_norm(h);
    if (err <= 1.0 && std::isfinite(err)) {
      double h_next = h;
      if (method_ == Method::kDopri5) {
        // PI step-size controller (Hairer's DOPRI5)
        const double fac11 = std::pow(std::max(err, 1e-300), 0.2 - kBeta * 0.75);
        double fac = fac11 / std::pow(previous_error_, kBeta);
        fac = std::clamp(fac / kSafety, 1.0 / kMaxGrowth, kMaxShrink);
        h_next = h / fac;
        previous_error_ = std::max(err, 1e-4);
      } else {
        // RKF45: 0.9 err^(-1/5), at most 5x
        h_next = h * std::min(5.0, 0.9 * std::pow(std::max(err, 1e-300), -0.2));
      }
      if (rejected_last_) h_next = std::min(h_next, h);
      rejected_last_ = false;
      accept(h, last, t_limit);
      h_ = h_next;
      after_accepted_step();
      return;
    }
    ++stats_.rejected;
    ++stats_.error_test_failures;
    rejected_last_ = true;
    if (!std::isfinite(err)) {
      h_ = 0.1 * h;
    } else if (method_ == Method::kDopri5) {
      const double fac11 = std::pow(err, 0.2 - kBeta * 0.75);
      h_ = h / std::min(kMaxShrink, fac11 / kSafety);
    } else {
      h_ = h * std::max(0.1, 0.9 * std::pow(err, -0.2));
    }
    h_ = crossing_.after_rejection(t_, h, h_);
  }
}

void ExplicitRungeKutta::after_accepted_step() {
  const double distance = system_.singularity_distance();  // of the last stage, at t_
  // a passage inside the step that no stage came near enough to drop a row
  // (the step placed across it, or a long step that passed it whole) is
  // found on the dense output and logged from the state at its crossing
  if (crossing_.step_was_near(distance)) {
    const auto at = [this](double tt) {
      interpolate(tt, state_work_);
      return system_.singularity_distance_at(tt, state_work_);
    };
    if (const std::optional<double> crossed = internal::find_passage(t_previous_, t_, at)) {
      interpolate(*crossed, state_work_);
      system_.note_singular_passage(*crossed, state_work_);
    }
  }
  h_ = crossing_.next_step(t_, distance, h_);
  // near it the accepted state too is put onto the constraints, so that the
  // projected stages of the next step start from it
  if (crossing_.near()) {
    state_work_ = y_;
    if (system_.project_to(t_, state_work_, kStageTolerance)) continue_corrected(t_, state_work_);
  }
}

void ExplicitRungeKutta::accept(double h, bool last, double t_limit) {
  const double t_new = last ? t_limit : t_ + h;
  // derivative at the new point in the chart of this step: the FSAL stage,
  // or the first stage of the next step, needed anyway
  if (tab_.fsal) {
    k_end_ = k_[static_cast<std::size_t>(tab_.stages - 1)];
  } else {
    rates(t_new, z_new_, k_end_);
  }
  // dense output on z over [t, t + h], in this step's chart
  if (method_ == Method::kDopri5) {
    d0_ = z0_;
    d1_ = z_new_ - z0_;
    d2_ = h * k_[0] - d1_;
    d3_ = d1_ - h * k_end_ - d2_;
    d4_ = h * (d1 * k_[0] + d3 * k_[2] + d4 * k_[3] + d5 * k_[4] + d6 * k_[5] + d7 * k_end_);
  } else {
    d0_ = z0_;
    d1_ = h * k_[0];
    d2_ = z_new_;
    d3_ = h * k_end_;
  }
  previous_ = base_;
  to_state(base_, z_new_, y_);
  base_ = y_;
  t_previous_ = t_;
  t_ = t_new;
  // the next chart is centred at the new point: the increment is zero there,
  // so its rate is the twist itself; accelerations and audit rates carry over
  z0_.head(nv_).setZero();
  z0_.tail(nv_ + layout_.audit) = z_new_.tail(nv_ + layout_.audit);
  k_[0].tail(nv_ + layout_.audit) = k_end_.tail(nv_ + layout_.audit);
  k_[0].head(nv_) = z0_.segment(nv_, nv_);
  h_last_ = h;
  ++stats_.steps;
}

void ExplicitRungeKutta::interpolate(double tt, Eigen::Ref<VecX> out) const {
  const double h = t_ - t_previous_;
  if (h <= 0.0) {
    out = y_;
    return;
  }
  const double s = (tt - t_previous_) / h;
  const double s1 = 1.0 - s;
  if (method_ == Method::kDopri5) {
    z_dense_ = d0_ + s * (d1_ + s1 * (d2_ + s * (d3_ + s1 * d4_)));
  } else {
    const HermiteBasis b(s);
    z_dense_ = b.h00 * d0_ + b.h10 * d1_ + b.h01 * d2_ + b.h11 * d3_;
  }
  to_state(previous_, z_dense_, out);
}

}  // namespace ictus
