// Runtime form of an Expression: a muParser bytecode bound to parameter
// constants, the time slot and channel slots kept current by the System.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ictus/expression.h"

namespace mu {
class Parser;
}

namespace ictus::internal {

using ParameterValues = std::map<std::string, double, std::less<>>;

/// Resolves variable names used in formulas to value slots.
class VariableScope {
 public:
  virtual ~VariableScope() = default;
  /// Stable pointer to the slot holding `name`, or nullptr if no such name.
  virtual double* bind(const std::string& name) = 0;
  /// Names to suggest when a name is unknown.
  virtual std::vector<std::string> known_names() const = 0;
};

/// A compiled formula. Evaluation does not allocate.
class CompiledExpression {
 public:
  /// Compiles `text` (which starts `offset` characters after `expr.where`).
  /// Throws ModelError naming `element` on syntax errors and unknown names.
  CompiledExpression(const Expression& expr, const ParameterValues& parameters,
                     VariableScope& scope, const std::string& element);
  CompiledExpression(const std::string& text, const SourceLocation& where,
                     const ParameterValues& parameters, VariableScope& scope,
                     const std::string& element);
  ~CompiledExpression();
  CompiledExpression(CompiledExpression&&) noexcept;
  CompiledExpression& operator=(CompiledExpression&&) noexcept;

  double evaluate() const;
  /// Names of the variables (channels and `t`) the formula reads.
  const std::vector<std::string>& variables() const { return variables_; }
  const std::string& text() const { return text_; }

 private:
  std::unique_ptr<mu::Parser> parser_;
  std::vector<std::string> variables_;
  std::string text_;
};

/// Records, on this thread while it lives, the parameters that the formulas
/// compiled meanwhile name: which parameters reading a model file consumes as
/// constants (the numbers of its elements), unlike the parameters that only
/// its formulas of time and state read when a System compiles them. A study
/// shares one parsed Model among cases that change only the latter.
class ParameterUseRecorder {
 public:
  ParameterUseRecorder();
  ~ParameterUseRecorder();
  ParameterUseRecorder(const ParameterUseRecorder&) = delete;
  ParameterUseRecorder& operator=(const ParameterUseRecorder&) = delete;
  const std::set<std::string, std::less<>>& names() const { return names_; }
  void record(std::string_view name) { names_.emplace(name); }

 private:
  std::set<std::string, std::less<>> names_;
  ParameterUseRecorder* previous_;
};

/// Evaluates a constant formula (parameters only). Throws ModelError.
double evaluate_constant(const Expression& expr, const ParameterValues& parameters,
                         const std::string& element);

/// The longest name a formula can use (muParser's identifier limit).
inline constexpr std::size_t kMaxNameLength = 100;

/// Names reserved by the formula language: t, pi, deg, and muParser's
/// built-in functions.
bool is_reserved_name(const std::string& name);

}  // namespace ictus::internal
