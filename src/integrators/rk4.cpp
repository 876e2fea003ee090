#include "ictus/integrators/rk4.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "ictus/error.h"

namespace ictus {

RungeKutta4::RungeKutta4(OdeSystem& ode, double step) : ode_(ode), h_(step) {
  if (!(step > 0.0)) throw std::invalid_argument("rk4: the step must be positive");
}

void RungeKutta4::reset(double t, const VecX& y) {
  const Eigen::Index n = y.size();
  for (VecX* v : {&y_, &y_previous_, &f_previous_, &f_, &k2_, &k3_, &k4_, &tmp_}) v->resize(n);
  t_ = t;
  t_previous_ = t;
  y_ = y;
  y_previous_ = y;
  ode_.derivative(t_, y_, f_);
  f_previous_ = f_;
  ++stats_.evaluations;
}

void RungeKutta4::adjust_state(const VecX& y) {
  y_ = y;
}

void RungeKutta4::step(double t_limit) {
  // the last step lands on t_limit. A remainder within rounding of a full
  // step counts as the last one: t + h summed over many steps drifts by ulps
  // (ten steps of 0.1 end at 0.9999999999999999), which would otherwise leave
  // a sliver too small to advance (same rule as dopri5)
  const bool last = t_ + h_ >= t_limit - 1e-12 * std::max(1.0, std::abs(t_limit));
  const double h = last ? t_limit - t_ : h_;
  if (!(h > 1e-14 * std::max(1.0, std::abs(t_))))
    throw SimulationError(t_, fmt::format("rk4: step {:.3g} s is too small to advance", h));
  y_previous_ = y_;
  f_previous_ = f_;
  t_previous_ = t_;
  // k1 = f_ (the derivative at the start, kept from the previous step)
  tmp_ = y_ + (0.5 * h) * f_;
  ode_.derivative(t_ + 0.5 * h, tmp_, k2_);
  tmp_ = y_ + (0.5 * h) * k2_;
  ode_.derivative(t_ + 0.5 * h, tmp_, k3_);
  tmp_ = y_ + h * k3_;
  ode_.derivative(t_ + h, tmp_, k4_);
  y_ += (h / 6.0) * (f_ + 2.0 * k2_ + 2.0 * k3_ + k4_);
  t_ = last ? t_limit : t_ + h;
  ode_.derivative(t_, y_, f_);
  stats_.evaluations += 4;
  ++stats_.steps;
}

void RungeKutta4::interpolate(double tt, Eigen::Ref<VecX> out) const {
  const double h = t_ - t_previous_;
  if (h <= 0.0) {
    out = y_;
    return;
  }
  // cubic Hermite basis on theta in [0, 1]
  const double s = (tt - t_previous_) / h;
  const double h00 = (1.0 + 2.0 * s) * (1.0 - s) * (1.0 - s);
  const double h10 = s * (1.0 - s) * (1.0 - s);
  const double h01 = s * s * (3.0 - 2.0 * s);
  const double h11 = s * s * (s - 1.0);
  out = h00 * y_previous_ + (h10 * h) * f_previous_ + h01 * y_ + (h11 * h) * f_;
}

}  // namespace ictus
