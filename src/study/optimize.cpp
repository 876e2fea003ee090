// Optimisation over the study's parameter ranges with NLopt: COBYLA (Powell
// 1994, local, derivative-free, with inequality constraints), ISRES
// (Runarsson and Yao 2005, global, with inequality constraints) or DIRECT
// (Jones et al. 1993, global, bounds only). Every evaluation is a run of the
// model; the variables are scaled to [0, 1] so that the methods' steps are
// relative to the ranges.
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <nlopt.hpp>

#include "ictus/study.h"

namespace ictus::study {

namespace {

// A failed run counts as far outside: NLopt's methods need finite values.
constexpr double kFailedPenalty = 1e10;

nlopt::algorithm algorithm_of(const std::string& name) {
  if (name == "isres") return nlopt::GN_ISRES;
  if (name == "direct") return nlopt::GN_DIRECT_L;
  return nlopt::LN_COBYLA;
}

class Objective {
 public:
  Objective(const StudyRunner& runner, const std::function<void(const Evaluation&)>& report)
      : runner_(runner), study_(runner.study()), report_(report) {
    for (std::size_t k = 0; k < study_.metrics.size(); ++k) {
      if (study_.metrics[k].name == study_.optimize.objective) objective_ = k;
      for (const MetricConstraint& c : study_.optimize.constraints)
        if (study_.metrics[k].name == c.metric) constrained_.push_back(k);
    }
  }

  std::vector<double> parameters(const std::vector<double>& u) const {
    std::vector<double> x(u.size());
    for (std::size_t i = 0; i < u.size(); ++i) {
      const StudyParameter& p = study_.parameters[i];
      x[i] = p.low + (p.high - p.low) * std::clamp(u[i], 0.0, 1.0);
    }
    return x;
  }

  // The run at u, once: NLopt asks for the objective and each constraint
  // separately at the same point.
  const Evaluation& at(const std::vector<double>& u) {
    auto it = cache_.find(u);
    if (it != cache_.end()) return it->second;
    Evaluation e;
    e.number = ++count_;
    e.result = runner_.run({e.number - 1, parameters(u)});
    e.feasible = e.result.ok && std::isfinite(e.result.metrics[objective_]);
    if (e.feasible) {
      e.objective = e.result.metrics[objective_];
      for (std::size_t c = 0; c < constrained_.size(); ++c)
        if (violation(e, c) > 0.0) e.feasible = false;
    }
    if (e.feasible && (!best_ || sign() * e.objective < sign() * best_->objective)) best_ = e;
    if (report_) report_(e);
    if (cache_.size() > 64) cache_.clear();
    return cache_.emplace(u, e).first->second;
  }

  double value(const std::vector<double>& u) {
    const Evaluation& e = at(u);
    const double f = e.result.ok ? e.result.metrics[objective_] : std::nan("");
    return std::isfinite(f) ? sign() * f : kFailedPenalty;
  }

  // Constraint c, scaled by its bound: <= 0 where satisfied.
  double violation(const Evaluation& e, std::size_t c) const {
    const MetricConstraint& mc = study_.optimize.constraints[c];
    const double v = e.result.ok ? e.result.metrics[constrained_[c]] : std::nan("");
    if (!std::isfinite(v)) return kFailedPenalty;
    double g = -kFailedPenalty;
    if (mc.max) g = std::max(g, (v - *mc.max) / scale(*mc.max));
    if (mc.min) g = std::max(g, (*mc.min - v) / scale(*mc.min));
    return g;
  }
  double constraint(const std::vector<double>& u, std::size_t c) { return violation(at(u), c); }

  std::size_t constraints() const { return constrained_.size(); }
  const std::optional<Evaluation>& best() const { return best_; }
  int count() const { return count_; }

 private:
  double sign() const { return study_.optimize.maximize ? -1.0 : 1.0; }
  static double scale(double bound) { return std::abs(bound) > 0.0 ? std::abs(bound) : 1.0; }

  const StudyRunner& runner_;
  const Study& study_;
  const std::function<void(const Evaluation&)>& report_;
  std::size_t objective_ = 0;
  std::vector<std::size_t> constrained_;
  std::map<std::vector<double>, Evaluation> cache_;
  std::optional<Evaluation> best_;
  int count_ = 0;
};

struct ConstraintData {
  Objective* objective;
  std::size_t index;
};

double objective_function(const std::vector<double>& u, std::vector<double>& /*grad*/, void* data) {
  return static_cast<Objective*>(data)->value(u);
}

double constraint_function(const std::vector<double>& u, std::vector<double>& /*grad*/,
                           void* data) {
  auto* c = static_cast<ConstraintData*>(data);
  return c->objective->constraint(u, c->index);
}

std::string result_name(nlopt::result r) {
  switch (r) {
    case nlopt::SUCCESS:
      return "success";
    case nlopt::STOPVAL_REACHED:
      return "stopval reached";
    case nlopt::FTOL_REACHED:
      return "ftol reached";
    case nlopt::XTOL_REACHED:
      return "xtol reached (the parameters changed by less than xtol_rel)";
    case nlopt::MAXEVAL_REACHED:
      return "max_evaluations reached";
    case nlopt::MAXTIME_REACHED:
      return "maximum time reached";
    default:
      return fmt::format("NLopt result {}", static_cast<int>(r));
  }
}

}  // namespace

OptimizationResult optimize_study(const StudyRunner& runner, int /*threads*/,
                                  const std::function<void(const Evaluation&)>& on_evaluation) {
  const Study& study = runner.study();
  const Optimization& o = study.optimize;
  const std::size_t n = study.parameters.size();
  if (o.algorithm == "direct" && !o.constraints.empty())
    throw ModelError(o.where, "optimize",
                     "DIRECT handles bounds only; with constraints use 'cobyla' or 'isres'");
  Objective objective(runner, on_evaluation);
  nlopt::opt opt(algorithm_of(o.algorithm), static_cast<unsigned>(n));
  opt.set_lower_bounds(std::vector<double>(n, 0.0));
  opt.set_upper_bounds(std::vector<double>(n, 1.0));
  opt.set_min_objective(objective_function, &objective);
  std::vector<ConstraintData> data(objective.constraints());
  for (std::size_t c = 0; c < data.size(); ++c) {
    data[c] = {&objective, c};
    opt.add_inequality_constraint(constraint_function, &data[c], 0.0);
  }
  opt.set_xtol_rel(o.xtol_rel);
  opt.set_maxeval(o.max_evaluations);
  if (o.population > 0) opt.set_population(static_cast<unsigned>(o.population));
  std::vector<double> u(n, 0.5);
  for (std::size_t i = 0; i < n && i < o.start.size(); ++i)
    if (std::isfinite(o.start[i])) {
      const StudyParameter& p = study.parameters[i];
      u[i] = std::clamp((o.start[i] - p.low) / (p.high - p.low), 0.0, 1.0);
    }
  if (o.algorithm == "cobyla") opt.set_initial_step(std::vector<double>(n, 0.25));
  OptimizationResult result;
  double f = 0.0;
  try {
    result.stop_reason = result_name(opt.optimize(u, f));
  } catch (const nlopt::roundoff_limited&) {
    result.stop_reason = "limited by roundoff";
  } catch (const std::runtime_error& e) {
    result.stop_reason = fmt::format("NLopt failed: {}", e.what());
  }
  result.evaluations = objective.count();
  if (const auto& best = objective.best()) {
    result.found = true;
    result.best = best->result.parameters;
    result.objective = best->objective;
    result.metrics = best->result.metrics;
  }
  return result;
}

}  // namespace ictus::study
