// The stepper registry: names, the option keys each reads, admissible ranges.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "explicit_runge_kutta.h"
#include "ictus/stepper.h"
#include "moreau_jean.h"
#include "structural_stepper.h"
#include "sundials_steppers.h"

namespace ictus {

namespace {

const std::map<std::string, std::vector<std::string>, std::less<>>& registry() {
  static const std::map<std::string, std::vector<std::string>, std::less<>> steppers = {
      {"rk4", {"step"}},
      {"dopri5", {"rtol", "atol", "max_step"}},
      {"rkf45", {"rtol", "atol", "max_step"}},
      {"cvode", {"rtol", "atol", "max_step", "linear_solver"}},
      {"ida", {"rtol", "atol", "max_step", "linear_solver"}},
      {"newmark", {"step", "beta", "gamma", "two_pass"}},
      {"wilson", {"step", "theta", "two_pass"}},
      {"hht", {"step", "alpha"}},
      {"generalized_alpha", {"step", "rho_inf"}},
      {"moreau_jean", {"step", "theta"}},
  };
  return steppers;
}

void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument(message);
}

}  // namespace

LinearSolverChoice parse_linear_solver(std::string_view text) {
  if (text == "auto") return LinearSolverChoice::kAuto;
  if (text == "dense") return LinearSolverChoice::kDense;
  if (text == "klu") return LinearSolverChoice::kKlu;
  throw std::invalid_argument(
      fmt::format("'linear_solver' must be dense, klu or auto (klu above {} unknowns, 13 per "
                  "body), got '{}'",
                  kSparseMinUnknowns, text));
}

std::string_view linear_solver_name(LinearSolverChoice choice) {
  switch (choice) {
    case LinearSolverChoice::kDense:
      return "dense";
    case LinearSolverChoice::kKlu:
      return "klu";
    case LinearSolverChoice::kAuto:
      break;
  }
  return "auto";
}

const std::vector<std::string>& stepper_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& [name, keys] : registry()) n.push_back(name);
    return n;
  }();
  return names;
}

bool stepper_handles_contacts(std::string_view name) {
  return name == "moreau_jean";
}

const std::vector<std::string>& stepper_option_keys(std::string_view name) {
  static const std::vector<std::string> none;
  const auto it = registry().find(name);
  return it == registry().end() ? none : it->second;
}

void validate_stepper_options(std::string_view name, const StepperOptions& o) {
  if (registry().find(name) == registry().end()) {
    std::string known;
    for (const std::string& n : stepper_names()) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument(fmt::format("unknown integrator '{}'; known: {}", name, known));
  }
  require(o.rtol > 0.0 && o.atol > 0.0, "tolerances 'rtol' and 'atol' must be positive");
  require(o.step > 0.0, "'step' must be positive");
  require(o.max_step >= 0.0, "'max_step' must be >= 0");
  if (name == "newmark") {
    // unconditionally stable for 2 beta >= gamma >= 1/2; gamma < 1/2 adds
    // negative damping (Hughes, The Finite Element Method, sec. 9.1.2)
    require(o.gamma >= 0.5 && o.gamma <= 1.0,
            fmt::format("newmark: 'gamma' ({}) must lie in [0.5, 1]; below 0.5 the scheme "
                        "amplifies every mode",
                        o.gamma));
    require(o.beta >= 0.25 * o.gamma && o.beta <= 0.5,
            fmt::format("newmark: 'beta' ({}) must lie in [gamma/4, 0.5] = [{}, 0.5] "
                        "(unconditionally stable for beta >= gamma/2 = {})",
                        o.beta, 0.25 * o.gamma, 0.5 * o.gamma));
  }
  if (name == "wilson")
    require(o.theta >= 1.0 && o.theta <= 2.0,
            fmt::format("wilson: 'theta' ({}) must lie in [1, 2] (unconditionally stable for "
                        "theta >= 1.37)",
                        o.theta));
  if (name == "moreau_jean")
    // theta < 1/2 amplifies (Acary & Brogliato 2008, sec. 10.1.3); 1/2 keeps
    // the energy of smooth linear motion, 1 dissipates most
    require(o.moreau_theta >= 0.5 && o.moreau_theta <= 1.0,
            fmt::format("moreau_jean: 'theta' ({}) must lie in [0.5, 1]", o.moreau_theta));
  if (name == "hht")
    require(o.alpha >= -1.0 / 3.0 && o.alpha <= 0.0,
            fmt::format("hht: 'alpha' ({}) must lie in [-1/3, 0]", o.alpha));
  if (name == "generalized_alpha")
    require(o.rho_inf >= 0.0 && o.rho_inf <= 1.0,
            fmt::format("generalized_alpha: 'rho_inf' ({}) must lie in [0, 1]", o.rho_inf));
  if (o.linear_solver != LinearSolverChoice::kAuto)
    require(name == "cvode" || name == "ida",
            fmt::format("{}: 'linear_solver' is an option of cvode and ida only", name));
  if (o.two_pass)
    require(name == "newmark" || name == "wilson",
            fmt::format("{}: 'two_pass' is an option of newmark and wilson only", name));
}

std::unique_ptr<Stepper> make_stepper(std::string_view name, MechanicalSystem& system,
                                      const StepperOptions& o) {
  validate_stepper_options(name, o);
  using Rk = ExplicitRungeKutta::Method;
  using Scheme = StructuralStepper::Scheme;
  if (name == "rk4") return std::make_unique<ExplicitRungeKutta>(Rk::kRk4, system, o);
  if (name == "dopri5") return std::make_unique<ExplicitRungeKutta>(Rk::kDopri5, system, o);
  if (name == "rkf45") return std::make_unique<ExplicitRungeKutta>(Rk::kRkf45, system, o);
  if (name == "newmark") return std::make_unique<StructuralStepper>(Scheme::kNewmark, system, o);
  if (name == "wilson") return std::make_unique<StructuralStepper>(Scheme::kWilson, system, o);
  if (name == "hht") return std::make_unique<StructuralStepper>(Scheme::kHht, system, o);
  if (name == "generalized_alpha")
    return std::make_unique<StructuralStepper>(Scheme::kGeneralizedAlpha, system, o);
  if (name == "moreau_jean") return std::make_unique<MoreauJeanStepper>(system, o);
  if (auto s = make_sundials_stepper(name, system, o)) return s;
  throw std::invalid_argument(fmt::format("integrator '{}' is not available in this build", name));
}

}  // namespace ictus
