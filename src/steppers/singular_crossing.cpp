#include "singular_crossing.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ictus::internal {

SingularCrossing::SingularCrossing(std::span<const double> abscissae) {
  std::vector<double> c(abscissae.begin(), abscissae.end());
  c.push_back(0.0);
  c.push_back(1.0);
  std::sort(c.begin(), c.end());
  double widest = 0.0;
  for (std::size_t i = 1; i < c.size(); ++i)
    if (c[i] - c[i - 1] > widest) {
      widest = c[i] - c[i - 1];
      centre_ = 0.5 * (c[i] + c[i - 1]);
    }
}

void SingularCrossing::reset() {
  last_d_ = -1.0;
  crossing_ = -1.0;
  near_ = false;
  after_crossing_ = 0;
}

double SingularCrossing::next_step(double t, double d, double h) {
  const double previous_t = last_t_, previous_d = last_d_;
  last_t_ = t;
  last_d_ = d;
  crossing_ = -1.0;
  // approaching: d falls (linearly) to zero at the crossing. A distance that
  // stays small without falling (a mechanism kept near a singular
  // configuration) is no crossing.
  const bool close = d < kNear;
  const bool approaching = close && previous_d > (1.0 + kFall) * d && t > previous_t;
  // the stages are projected on the approach and in the step after it
  near_ = approaching || (close && after_crossing_ > 0);
  if (after_crossing_ > 0) --after_crossing_;
  if (!approaching) return h;
  after_crossing_ = 1;
  const double ahead = d / ((previous_d - d) / (t - previous_t));
  // pass it now with a step at most a quarter longer than the controller's
  const double passing = ahead / centre_;
  if (passing <= 1.25 * h) {
    // too late to place it (the crossing is at hand): leave the step alone
    if (passing < 0.2 * h) return h;
    crossing_ = t + ahead;
    return passing;
  }
  // or reach the point from which a step like this one passes it, in two
  // equal steps no longer than the controller's
  if (ahead <= (1.0 + centre_) * h) return ahead / (1.0 + centre_);
  return h;
}

double SingularCrossing::after_rejection(double t, double h, double h_retry) const {
  if (!(crossing_ > t && crossing_ < t + h)) return h_retry;
  // the retry ends short of the crossing by at least a quarter of itself
  return std::min(h_retry, (crossing_ - t) / 1.25);
}

}  // namespace ictus::internal
