// Errors in three tiers (see docs/architecture.md):
//  * internal invariants: assert;
//  * bad user input: ModelError, raised while a model is built or loaded, naming
//    the place (file:line:column when it came from a file) and the element;
//  * numerical trouble during a run: SimulationError, carrying the time.
#pragma once

#include <stdexcept>
#include <string>

namespace ictus {

/// Where a model element was written. Empty file means "built in C++".
struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based; 0 when unknown

  bool known() const { return !file.empty() || line > 0; }
  /// "file:line:column" (or the parts that are known).
  std::string str() const;
};

/// A model that cannot be accepted: malformed file, impossible parameters,
/// unknown names, inconsistent constraints.
class ModelError : public std::runtime_error {
 public:
  /// `element` is e.g. "joint 'pivot'"; `what` says what is wrong and what is expected.
  ModelError(SourceLocation where, std::string element, const std::string& what);

  const SourceLocation& where() const { return where_; }
  const std::string& element() const { return element_; }
  /// The message without the location prefix.
  const std::string& detail() const { return detail_; }

 private:
  SourceLocation where_;
  std::string element_;
  std::string detail_;
};

/// A run that could not continue (singular constraint set, step size underflow,
/// an event condition that cannot be evaluated, a NaN in the state).
class SimulationError : public std::runtime_error {
 public:
  SimulationError(double time, const std::string& what);
  double time() const { return time_; }

 private:
  double time_;
};

}  // namespace ictus
