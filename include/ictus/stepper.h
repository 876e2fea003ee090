// Time steppers behind one interface. A stepper advances a MechanicalSystem
// (mechanical_system.h) and offers dense output inside its last step, on
// which the Simulation locates events; it never sees bodies or joints.
//
// Families (docs/theory/steppers.md):
//   rk4, dopri5, rkf45         explicit Runge-Kutta in the Lie-group chart
//   newmark, wilson, hht,      implicit structural schemes in acceleration
//   generalized_alpha          form, Newton on the index-1 accelerations
//   cvode, ida                 SUNDIALS CVODE (BDF) and IDA, for stiff models
//   moreau_jean                Moreau-Jean time-stepping: a fixed step with
//                              the contacts' impulses inside (it handles
//                              the unilateral contacts itself)
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ictus/math.h"
#include "ictus/mechanical_system.h"

namespace ictus {

/// Counters for reports and benchmarks.
struct StepperStatistics {
  long steps = 0;                 ///< accepted steps
  long rejected = 0;              ///< rejected steps (error test or Newton failure)
  long evaluations = 0;           ///< calls of the accelerations (Jacobians included)
  long newton_iterations = 0;     ///< implicit steppers
  long jacobian_evaluations = 0;  ///< implicit steppers
  long error_test_failures = 0;   ///< adaptive steppers
};

/// Linear solver of the Newton iterations of cvode and ida (`linear_solver:`).
enum class LinearSolverChoice {
  kAuto,   ///< kKlu above kSparseMinUnknowns unknowns, else kDense
  kDense,  ///< SUNLinSol_Dense on a dense matrix
  kKlu,    ///< SUNLinSol_KLU on a CSC matrix with the bodies' coupling pattern
};
/// `auto` uses KLU above this many unknowns (13 per body). Measured
/// (docs/benchmarks.md): KLU wins from 65 unknowns on, even on one connected
/// chain whose velocity rows are dense, because SUNDIALS' dense LU has no
/// BLAS; below, the dense LU saves KLU's symbolic analysis.
inline constexpr int kSparseMinUnknowns = 60;
/// "dense", "klu" or "auto" to the choice; std::invalid_argument otherwise.
LinearSolverChoice parse_linear_solver(std::string_view text);
std::string_view linear_solver_name(LinearSolverChoice choice);

/// Settings of the steppers; each reads the ones that concern it
/// (stepper_options_for() names them).
struct StepperOptions {
  /// 1e-9: a parallelogram driven by gravity follows its one-degree-of-
  /// freedom motion to 1e-6 rad over 20 s and 50 singular passages (at 1e-8,
  /// 1.3e-5: the phase error of the energy drift; singular_passage_test.cpp)
  double rtol = 1e-9;
  double atol = 1e-10;
  double step = 1e-3;               ///< fixed step (rk4, newmark, wilson, hht, generalized_alpha)
  double max_step = 0.0;            ///< 0: unlimited (adaptive steppers)
  double min_step = 1e-14;          ///< relative to max(1, |t|): below this a step is an error
  double beta = 0.25;               ///< Newmark beta
  double gamma = 0.5;               ///< Newmark gamma
  double theta = 1.4;               ///< Wilson theta
  double moreau_theta = 0.5;        ///< Moreau-Jean theta, in [0.5, 1] (model file: theta)
  double alpha = -0.05;             ///< HHT alpha, in [-1/3, 0]
  double rho_inf = 0.8;             ///< generalized-alpha spectral radius at infinity, in [0, 1]
  bool two_pass = false;            ///< seed 003's modified scheme (newmark, wilson)
  double newton_tolerance = 1e-10;  ///< relative change of the accelerations
  int newton_max_iterations = 20;
  LinearSolverChoice linear_solver = LinearSolverChoice::kAuto;  ///< cvode, ida
};

class Stepper {
 public:
  virtual ~Stepper() = default;
  virtual std::string_view name() const = 0;

  /// Starts, or restarts after a discontinuity, at (t, y). Sizes the work
  /// vectors on the first call (later resets of the same size do not allocate).
  virtual void reset(double t, const VecX& y) = 0;
  /// Continues at (t, y) after a small correction of the state at the end
  /// of the last step (a projection onto the constraints): not a
  /// discontinuity, so a stepper may keep its step size and error history.
  /// By default a full reset.
  virtual void continue_corrected(double t, const VecX& y) { reset(t, y); }
  /// Advances by one accepted step that does not pass `t_limit`. Throws
  /// SimulationError when the step size underflows or Newton fails.
  virtual void step(double t_limit) = 0;
  /// State at tt within the last step [t_previous(), t()] (dense output).
  virtual void interpolate(double tt, Eigen::Ref<VecX> out) const = 0;

  /// The method's own accelerations at t() (6 per body), where it carries
  /// them as a state of the scheme (Newmark family, Wilson-theta: they are
  /// not the equilibrium accelerations at y()). False for other methods.
  virtual bool scheme_accelerations(Eigen::Ref<VecX> /*out*/) const { return false; }

  /// What the stepper carries across a reset (dopri5/rkf45: the last step,
  /// which caps the first step after a restart), so that a run continued
  /// from a saved state restarts exactly as the original (Simulation::save).
  virtual double restart_memory() const { return 0.0; }
  virtual void set_restart_memory(double /*value*/) {}

  double t() const { return t_; }
  double t_previous() const { return t_previous_; }
  /// Size of the last accepted step (0 before the first).
  double last_step() const { return t_ - t_previous_; }
  const VecX& y() const { return y_; }
  const StepperStatistics& statistics() const { return stats_; }

 protected:
  double t_ = 0.0;
  double t_previous_ = 0.0;
  VecX y_;
  StepperStatistics stats_;
};

/// Names of the steppers, for messages and --help.
const std::vector<std::string>& stepper_names();
/// Option keys of `simulate:` that stepper `name` reads (besides the common
/// ones), e.g. {"step", "beta", "gamma", "two_pass"} for newmark.
const std::vector<std::string>& stepper_option_keys(std::string_view name);

/// True for a stepper that imposes the unilateral contacts itself
/// (moreau_jean): the Simulation then leaves their switching to it.
bool stepper_handles_contacts(std::string_view name);

/// Checks a name and the options' admissible ranges; throws
/// std::invalid_argument with a message that says what is expected.
void validate_stepper_options(std::string_view name, const StepperOptions& options);

/// Builds a stepper. Throws std::invalid_argument for an unknown name or
/// options outside the method's admissible range (the message says which).
std::unique_ptr<Stepper> make_stepper(std::string_view name, MechanicalSystem& system,
                                      const StepperOptions& options);

}  // namespace ictus
