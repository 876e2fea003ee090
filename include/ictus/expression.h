// Formulas in model files: loads, prescribed motions and switching conditions.
//
// An Expression is the text a user wrote (muParser syntax) plus where it was
// written. It may use the model's parameters, the time `t`, the constants
// `pi` and `deg` (= pi/180), and named output channels such as `guide.x` or
// `pivot.omega` (docs/channels.md). It is compiled when a System is built.
#pragma once

#include <string>
#include <vector>

#include "ictus/error.h"

namespace ictus {

/// The text of a formula and where it came from. A plain number is an
/// Expression too.
struct Expression {
  std::string text = "0";
  SourceLocation where;  ///< location of the first character of `text`

  Expression() = default;
  Expression(std::string t, SourceLocation w = {}) : text(std::move(t)), where(std::move(w)) {}
  Expression(const char* t) : text(t) {}  // NOLINT: literal formulas read naturally
  /// An expression that is the number `value`, printed exactly.
  static Expression number(double value);
};

/// A prescribed motion s(t) with its derivatives. When `rate` or
/// `acceleration` are empty they are obtained by differentiating `value`
/// numerically (a 4th-order central difference; about 1e-10 relative).
struct Motion {
  Expression value;
  std::string rate_text;          ///< optional explicit s'(t)
  std::string acceleration_text;  ///< optional explicit s''(t)
};

/// A switching condition: comparisons such as `guide.x >= L/2`, joined by
/// `&&`/`and` and `||`/`or`. Internally it becomes a continuous function g
/// that is positive exactly where the condition holds (a comparison a > b is
/// g = a - b; `and` is min, `or` is max) so that its zero crossings can be
/// located by root finding.
struct Condition {
  Expression expression;
};

/// One comparison of a condition after splitting: `lhs op rhs`.
struct ComparisonTerm {
  std::string lhs;
  std::string rhs;
  bool greater = true;  ///< true for > and >=, false for < and <=
  bool strict = true;   ///< true for > and <: at equality the term does not hold
  int lhs_offset = 0;   ///< character offset of lhs in the condition text
  int rhs_offset = 0;
};

/// The split form of a condition: terms combined left to right by
/// `and` (min) / `or` (max), with `and` binding tighter.
struct SplitCondition {
  std::vector<std::vector<ComparisonTerm>> any_of;  ///< OR over groups of AND-ed terms
};

/// Splits a condition into comparisons. Throws ModelError (at the condition's
/// location, naming `element`) when the text is not of that form.
SplitCondition split_condition(const Condition& condition, const std::string& element);

}  // namespace ictus
