// Switching conditions: each comparison a > b becomes g = a - b, 'and' is
// min and 'or' is max, so g is continuous and positive exactly where the
// condition holds; events locate its zero crossings.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "system_impl.h"

namespace ictus {

int System::add_condition(const Condition& condition, const std::string& element) {
  Impl& s = *impl_;
  const SplitCondition split = split_condition(condition, element);
  Impl::CompiledCondition compiled;
  compiled.element = element;
  compiled.text = condition.expression.text;
  auto side = [&](const std::string& text, int offset) {
    SourceLocation where = condition.expression.where;
    if (where.column > 0) where.column += offset;
    auto expr = s.compile(Expression(text, where), element, true);
    for (const std::string& v : expr->variables()) {
      const int k = find_channel(v);
      if (k >= 0 && s.channel_info[static_cast<std::size_t>(k)].stage == Stage::kDynamics)
        compiled.stage = Stage::kDynamics;
    }
    return expr;
  };
  for (const auto& group : split.any_of) {
    std::vector<Impl::ConditionTerm> terms;
    for (const ComparisonTerm& term : group)
      terms.push_back({side(term.lhs, term.lhs_offset), side(term.rhs, term.rhs_offset),
                       term.greater, term.strict});
    compiled.groups.push_back(std::move(terms));
  }
  s.conditions.push_back(std::move(compiled));
  return static_cast<int>(s.conditions.size() - 1);
}

Stage System::condition_stage(int handle) const {
  return impl_->conditions[static_cast<std::size_t>(handle)].stage;
}

double System::condition_value(int handle) {
  Impl& s = *impl_;
  const Impl::CompiledCondition& c = s.conditions[static_cast<std::size_t>(handle)];
  if (c.stage == Stage::kDynamics) s.ensure_dynamics();
  double any = -std::numeric_limits<double>::infinity();
  for (const auto& group : c.groups) {
    double all = std::numeric_limits<double>::infinity();
    for (const Impl::ConditionTerm& term : group) {
      const double a = term.lhs->evaluate();
      const double b = term.rhs->evaluate();
      all = std::min(all, term.greater ? a - b : b - a);
    }
    any = std::max(any, all);
  }
  if (!std::isfinite(any))
    throw SimulationError(
        s.t, fmt::format("{}: condition '{}' is not finite (NaN or inf)", c.element, c.text));
  return any;
}

bool System::condition_holds(int handle) {
  Impl& s = *impl_;
  const Impl::CompiledCondition& c = s.conditions[static_cast<std::size_t>(handle)];
  if (c.stage == Stage::kDynamics) s.ensure_dynamics();
  for (const auto& group : c.groups) {
    bool all = true;
    for (const Impl::ConditionTerm& term : group) {
      const double a = term.lhs->evaluate();
      const double b = term.rhs->evaluate();
      if (!std::isfinite(a) || !std::isfinite(b))
        throw SimulationError(
            s.t, fmt::format("{}: condition '{}' is not finite (NaN or inf)", c.element, c.text));
      const double g = term.greater ? a - b : b - a;
      all = all && (term.strict ? g > 0.0 : g >= 0.0);
    }
    if (all) return true;
  }
  return false;
}

}  // namespace ictus
