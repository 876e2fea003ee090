// Optimisation over the study's parameter ranges with NLopt: COBYLA (Powell
// 1994, local, derivative-free, with inequality constraints), ISRES
// (Runarsson and Yao 2005, global, with inequality constraints) or DIRECT-L
// (Gablonsky and Kelley 2001, global, bounds only). Every evaluation is a run of the
// model; the variables are scaled to [0, 1] so that the methods' steps are
// relative to the ranges.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <nlopt.hpp>
#include <thread>

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

// What the starts of an optimisation share: the count and the best
// evaluation, and the report of each evaluation (in the order they end).
struct SharedProgress {
  std::mutex mutex;
  int count = 0;
  std::optional<Evaluation> best;
  const std::function<void(const Evaluation&)>* report = nullptr;
  double sign = 1.0;  // -1: maximise
};

// The objective and constraints of one start (one NLopt run), each point run once.
class Objective {
 public:
  Objective(const StudyRunner& runner, SharedProgress& shared)
      : runner_(runner), study_(runner.study()), shared_(shared) {
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
    e.result = runner_.run({0, parameters(u)});
    e.feasible = e.result.ok && std::isfinite(e.result.metrics[objective_]);
    if (e.feasible) {
      e.objective = e.result.metrics[objective_];
      for (std::size_t c = 0; c < constrained_.size(); ++c)
        if (violation(e, c) > 0.0) e.feasible = false;
    }
    // a run whose energy audit failed keeps its objective in the history,
    // but is never the best, and the method sees it as a failed run
    if (!e.result.audit_passed) e.feasible = false;
    {
      const std::lock_guard<std::mutex> lock(shared_.mutex);
      e.number = ++shared_.count;
      e.result.index = e.number - 1;
      if (e.feasible &&
          (!shared_.best || shared_.sign * e.objective < shared_.sign * shared_.best->objective))
        shared_.best = e;
      if (*shared_.report) (*shared_.report)(e);
    }
    if (cache_.size() > 64) cache_.clear();
    return cache_.emplace(u, e).first->second;
  }

  double value(const std::vector<double>& u) {
    const Evaluation& e = at(u);
    const double f = usable(e) ? e.result.metrics[objective_] : std::nan("");
    return std::isfinite(f) ? shared_.sign * f : kFailedPenalty;
  }

  // Constraint c, scaled by its bound: <= 0 where satisfied.
  double violation(const Evaluation& e, std::size_t c) const {
    const MetricConstraint& mc = study_.optimize.constraints[c];
    const double v = usable(e) ? e.result.metrics[constrained_[c]] : std::nan("");
    if (!std::isfinite(v)) return kFailedPenalty;
    double g = -kFailedPenalty;
    if (mc.max) g = std::max(g, (v - *mc.max) / scale(*mc.max));
    if (mc.min) g = std::max(g, (*mc.min - v) / scale(*mc.min));
    return g;
  }
  double constraint(const std::vector<double>& u, std::size_t c) { return violation(at(u), c); }

  std::size_t constraints() const { return constrained_.size(); }

 private:
  static double scale(double bound) { return std::abs(bound) > 0.0 ? std::abs(bound) : 1.0; }
  // a run the method may learn from: it ran to its end and passed its audit
  static bool usable(const Evaluation& e) { return e.result.ok && e.result.audit_passed; }

  const StudyRunner& runner_;
  const Study& study_;
  SharedProgress& shared_;
  std::size_t objective_ = 0;
  std::vector<std::size_t> constrained_;
  std::map<std::vector<double>, Evaluation> cache_;
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

namespace {

// One NLopt run from u (scaled); returns its stop reason.
std::string optimize_from(const StudyRunner& runner, SharedProgress& shared,
                          std::vector<double> u) {
  const Optimization& o = runner.study().optimize;
  const std::size_t n = u.size();
  Objective objective(runner, shared);
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
  if (o.algorithm == "cobyla") opt.set_initial_step(std::vector<double>(n, 0.25));
  // ISRES draws from NLopt's generator: seeded, the same run every time
  if (o.algorithm == "isres") nlopt::srand(runner.study().seed);
  double f = 0.0;
  try {
    return result_name(opt.optimize(u, f));
  } catch (const nlopt::roundoff_limited&) {
    return "limited by roundoff";
  } catch (const std::runtime_error& e) {
    return fmt::format("NLopt failed: {}", e.what());
  }
}

// The starting points, scaled: the given start (or the middle of the
// ranges), then a Latin hypercube of the others (the study's seed).
std::vector<std::vector<double>> start_points(const Study& study) {
  const Optimization& o = study.optimize;
  const std::size_t n = study.parameters.size();
  std::vector<double> first(n, 0.5);
  for (std::size_t i = 0; i < n && i < o.start.size(); ++i)
    if (std::isfinite(o.start[i])) {
      const StudyParameter& p = study.parameters[i];
      first[i] = std::clamp((o.start[i] - p.low) / (p.high - p.low), 0.0, 1.0);
    }
  std::vector<std::vector<double>> points{first};
  if (o.starts > 1) {
    Study sampled = study;
    sampled.sampling = Sampling::kLatinHypercube;
    sampled.samples = o.starts - 1;
    for (const Case& c : study_cases(sampled)) {
      std::vector<double> u(n);
      for (std::size_t i = 0; i < n; ++i) {
        const StudyParameter& p = study.parameters[i];
        u[i] = (c.values[i] - p.low) / (p.high - p.low);
      }
      points.push_back(u);
    }
  }
  return points;
}

}  // namespace

OptimizationResult optimize_study(const StudyRunner& runner, int threads,
                                  const std::function<void(const Evaluation&)>& on_evaluation) {
  const Study& study = runner.study();
  const Optimization& o = study.optimize;
  if (o.algorithm == "direct" && !o.constraints.empty())
    throw ModelError(o.where, "optimize",
                     "DIRECT handles bounds only; with constraints use 'cobyla' or 'isres'");
  if (o.algorithm != "cobyla" && o.starts > 1)
    throw ModelError(o.where, "optimize",
                     "'starts' (a multi-start) is for the local method, cobyla; the global "
                     "methods search the whole ranges from one start");
  SharedProgress shared;
  shared.report = &on_evaluation;
  shared.sign = o.maximize ? -1.0 : 1.0;
  const std::vector<std::vector<double>> points = start_points(study);
  std::vector<std::string> reasons(points.size());
  // the starts are independent NLopt runs: one thread each, as many at once
  // as there are threads
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t k = next++; k < points.size(); k = next++)
      reasons[k] = optimize_from(runner, shared, points[k]);
  };
  const int pool_size =
      std::clamp(threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency()), 1,
                 static_cast<int>(points.size()));
  std::vector<std::thread> pool;
  for (int t = 1; t < pool_size; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();

  OptimizationResult result;
  result.evaluations = shared.count;
  result.stop_reason = reasons.front();
  for (std::size_t k = 1; k < reasons.size(); ++k)
    if (reasons[k] != reasons.front())
      result.stop_reason += "; start " + std::to_string(k + 1) + ": " + reasons[k];
  if (shared.best) {
    result.found = true;
    result.best = shared.best->result.parameters;
    result.objective = shared.best->objective;
    result.metrics = shared.best->result.metrics;
  }
  return result;
}

}  // namespace ictus::study
