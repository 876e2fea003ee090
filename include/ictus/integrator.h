// Time integrators behind one interface. An integrator sees only an
// OdeSystem (sizes and y' = F(t, y)), never bodies or joints.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "ictus/math.h"

namespace ictus {

/// The first-order system y' = F(t, y) an integrator advances.
class OdeSystem {
 public:
  virtual ~OdeSystem() = default;
  virtual int size() const = 0;
  virtual void derivative(double t, const VecX& y, Eigen::Ref<VecX> dy) = 0;
};

/// Counters for reports and benchmarks.
struct IntegratorStatistics {
  long steps = 0;        ///< accepted steps
  long rejected = 0;     ///< rejected steps (adaptive methods)
  long evaluations = 0;  ///< calls of F
};

class Integrator {
 public:
  virtual ~Integrator() = default;
  virtual std::string_view name() const = 0;

  /// Starts, or restarts after a discontinuity, at (t, y). Allocates the
  /// work vectors if the size changed.
  virtual void reset(double t, const VecX& y) = 0;
  /// Advances by one (accepted) step that does not pass `t_limit`.
  /// Throws SimulationError when the step size underflows.
  virtual void step(double t_limit) = 0;
  /// State at time tt within the last step [t_previous(), t()] (dense output).
  virtual void interpolate(double tt, Eigen::Ref<VecX> out) const = 0;
  /// The current state was changed slightly by the caller (quaternion
  /// normalisation): continue from it without a full restart.
  virtual void adjust_state(const VecX& y) = 0;

  double t() const { return t_; }
  double t_previous() const { return t_previous_; }
  const VecX& y() const { return y_; }
  const IntegratorStatistics& statistics() const { return stats_; }

 protected:
  double t_ = 0.0;
  double t_previous_ = 0.0;
  VecX y_;
  IntegratorStatistics stats_;
};

/// Settings shared by the integrators.
struct IntegratorOptions {
  double rtol = 1e-8;
  double atol = 1e-10;
  double step = 1e-3;       ///< fixed step (rk4); dopri5 chooses its first step itself
  double max_step = 0.0;    ///< 0: unlimited
  double min_step = 1e-14;  ///< relative to max(1, |t|): below this a step is an error
};

/// "dopri5" or "rk4". Throws std::invalid_argument for an unknown name.
std::unique_ptr<Integrator> make_integrator(std::string_view name, OdeSystem& ode,
                                            const IntegratorOptions& options);

}  // namespace ictus
