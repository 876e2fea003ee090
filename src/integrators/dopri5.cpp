#include "ictus/integrators/dopri5.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ictus/error.h"

namespace ictus {

namespace {
// Butcher tableau of DOPRI5 (Hairer, Norsett & Wanner, Table II.5.2)
constexpr double c2 = 1.0 / 5.0, c3 = 3.0 / 10.0, c4 = 4.0 / 5.0, c5 = 8.0 / 9.0;
constexpr double a21 = 1.0 / 5.0;
constexpr double a31 = 3.0 / 40.0, a32 = 9.0 / 40.0;
constexpr double a41 = 44.0 / 45.0, a42 = -56.0 / 15.0, a43 = 32.0 / 9.0;
constexpr double a51 = 19372.0 / 6561.0, a52 = -25360.0 / 2187.0, a53 = 64448.0 / 6561.0,
                 a54 = -212.0 / 729.0;
constexpr double a61 = 9017.0 / 3168.0, a62 = -355.0 / 33.0, a63 = 46732.0 / 5247.0,
                 a64 = 49.0 / 176.0, a65 = -5103.0 / 18656.0;
constexpr double a71 = 35.0 / 384.0, a73 = 500.0 / 1113.0, a74 = 125.0 / 192.0,
                 a75 = -2187.0 / 6784.0, a76 = 11.0 / 84.0;
// difference of the 5th- and 4th-order weights (error estimate)
constexpr double e1 = 71.0 / 57600.0, e3 = -71.0 / 16695.0, e4 = 71.0 / 1920.0,
                 e5 = -17253.0 / 339200.0, e6 = 22.0 / 525.0, e7 = -1.0 / 40.0;
// dense output (Hairer's CONTD5)
constexpr double d1 = -12715105075.0 / 11282082432.0, d3 = 87487479700.0 / 32700410799.0,
                 d4 = -10690763975.0 / 1880347072.0, d5 = 701980252875.0 / 199316789632.0,
                 d6 = -1453857185.0 / 822651844.0, d7 = 69997945.0 / 29380423.0;
// step-size control
constexpr double kSafety = 0.9, kBeta = 0.04;
constexpr double kMaxGrowth = 10.0, kMaxShrink = 5.0;
}  // namespace

DormandPrince5::DormandPrince5(OdeSystem& ode, const IntegratorOptions& options)
    : ode_(ode), options_(options) {}

void DormandPrince5::reset(double t, const VecX& y) {
  const Eigen::Index n = y.size();
  for (VecX* v : {&y_, &k1_, &k2_, &k3_, &k4_, &k5_, &k6_, &k7_, &y_new_, &y_stage_, &error_, &r1_,
                  &r2_, &r3_, &r4_, &r5_})
    v->resize(n);
  t_ = t;
  t_previous_ = t;
  y_ = y;
  ode_.derivative(t_, y_, k1_);
  ++stats_.evaluations;
  r1_ = y_;
  r2_.setZero();
  r3_.setZero();
  r4_.setZero();
  r5_.setZero();
  h_ = 0.0;  // chosen by initial_step at the next step...
  // ...but after a restart (an event) no longer than the last accepted step:
  // the initial guess knows nothing of what made the restart necessary
  // (a rebound, a release) and could step over the next event
  h_cap_ = h_last_;
  previous_error_ = 1e-4;
  rejected_last_ = false;
}

void DormandPrince5::adjust_state(const VecX& y) {
  y_ = y;
}

double DormandPrince5::error_norm() const {
  // RMS of the error relative to atol + rtol * max(|y|, |y_new|)
  double sum = 0.0;
  for (Eigen::Index i = 0; i < y_.size(); ++i) {
    const double scale =
        options_.atol + options_.rtol * std::max(std::abs(y_(i)), std::abs(y_new_(i)));
    const double e = error_(i) / scale;
    sum += e * e;
  }
  return std::sqrt(sum / static_cast<double>(std::max<Eigen::Index>(1, y_.size())));
}

// Hairer's HINIT: a step whose explicit Euler error is about the tolerance.
double DormandPrince5::initial_step(double t_limit) {
  const double span = t_limit - t_;
  double d0 = 0.0, d1n = 0.0;
  for (Eigen::Index i = 0; i < y_.size(); ++i) {
    const double sk = options_.atol + options_.rtol * std::abs(y_(i));
    d0 += (y_(i) / sk) * (y_(i) / sk);
    d1n += (k1_(i) / sk) * (k1_(i) / sk);
  }
  const double nrm = static_cast<double>(std::max<Eigen::Index>(1, y_.size()));
  d0 = std::sqrt(d0 / nrm);
  d1n = std::sqrt(d1n / nrm);
  double h0 = (d0 < 1e-10 || d1n < 1e-10) ? 1e-6 : 0.01 * d0 / d1n;
  h0 = std::min(h0, span);
  y_stage_ = y_ + h0 * k1_;
  ode_.derivative(t_ + h0, y_stage_, k2_);
  ++stats_.evaluations;
  double d2 = 0.0;
  for (Eigen::Index i = 0; i < y_.size(); ++i) {
    const double sk = options_.atol + options_.rtol * std::abs(y_(i));
    const double v = (k2_(i) - k1_(i)) / sk;
    d2 += v * v;
  }
  d2 = std::sqrt(d2 / nrm) / h0;
  const double dmax = std::max(d1n, d2);
  const double h1 = dmax <= 1e-15 ? std::max(1e-6, h0 * 1e-3) : std::pow(0.01 / dmax, 0.2);
  double h = std::min(100.0 * h0, h1);
  if (options_.max_step > 0.0) h = std::min(h, options_.max_step);
  return std::min(h, span);
}

void DormandPrince5::step(double t_limit) {
  if (h_ <= 0.0) {
    h_ = initial_step(t_limit);
    if (h_cap_ > 0.0) h_ = std::min(h_, h_cap_);
  }
  for (;;) {
    double h = h_;
    if (options_.max_step > 0.0) h = std::min(h, options_.max_step);
    const bool last = t_ + h >= t_limit - 1e-12 * std::max(1.0, std::abs(t_limit));
    if (last) h = t_limit - t_;
    if (!(h > options_.min_step * std::max(1.0, std::abs(t_))))
      throw SimulationError(t_, fmt::format("dopri5: step size {:.3g} s underflows; the problem "
                                            "may be stiff or discontinuous here",
                                            h));
    y_stage_ = y_ + (h * a21) * k1_;
    ode_.derivative(t_ + c2 * h, y_stage_, k2_);
    y_stage_ = y_ + h * (a31 * k1_ + a32 * k2_);
    ode_.derivative(t_ + c3 * h, y_stage_, k3_);
    y_stage_ = y_ + h * (a41 * k1_ + a42 * k2_ + a43 * k3_);
    ode_.derivative(t_ + c4 * h, y_stage_, k4_);
    y_stage_ = y_ + h * (a51 * k1_ + a52 * k2_ + a53 * k3_ + a54 * k4_);
    ode_.derivative(t_ + c5 * h, y_stage_, k5_);
    y_stage_ = y_ + h * (a61 * k1_ + a62 * k2_ + a63 * k3_ + a64 * k4_ + a65 * k5_);
    ode_.derivative(t_ + h, y_stage_, k6_);
    y_new_ = y_ + h * (a71 * k1_ + a73 * k3_ + a74 * k4_ + a75 * k5_ + a76 * k6_);
    ode_.derivative(t_ + h, y_new_, k7_);
    stats_.evaluations += 6;
    error_ = h * (e1 * k1_ + e3 * k3_ + e4 * k4_ + e5 * k5_ + e6 * k6_ + e7 * k7_);
    const double err = error_norm();

    // PI step-size controller (Hairer's DOPRI5, beta = 0.04)
    const double fac11 = std::pow(std::max(err, 1e-300), 0.2 - kBeta * 0.75);
    if (err <= 1.0 && std::isfinite(err)) {
      double fac = fac11 / std::pow(previous_error_, kBeta);
      fac = std::clamp(fac / kSafety, 1.0 / kMaxGrowth, kMaxShrink);
      double h_next = h / fac;
      if (rejected_last_) h_next = std::min(h_next, h);
      previous_error_ = std::max(err, 1e-4);
      rejected_last_ = false;
      // dense output coefficients for [t, t + h]
      r1_ = y_;
      r2_ = y_new_ - y_;
      r3_ = h * k1_ - r2_;
      r4_ = r2_ - h * k7_ - r3_;
      r5_ = h * (d1 * k1_ + d3 * k3_ + d4 * k4_ + d5 * k5_ + d6 * k6_ + d7 * k7_);
      t_previous_ = t_;
      t_ = last ? t_limit : t_ + h;
      y_.swap(y_new_);
      k1_.swap(k7_);  // first same as last
      h_last_ = h;
      h_ = h_next;
      ++stats_.steps;
      return;
    }
    ++stats_.rejected;
    rejected_last_ = true;
    h_ = std::isfinite(err) ? h / std::min(kMaxShrink, fac11 / kSafety) : 0.1 * h;
  }
}

void DormandPrince5::interpolate(double tt, Eigen::Ref<VecX> out) const {
  const double h = t_ - t_previous_;
  if (h <= 0.0) {
    out = y_;
    return;
  }
  const double s = (tt - t_previous_) / h;
  const double s1 = 1.0 - s;
  out = r1_ + s * (r2_ + s1 * (r3_ + s * (r4_ + s1 * r5_)));
}

}  // namespace ictus
