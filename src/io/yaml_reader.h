// Typed, located access to YAML nodes for the model-file loader. Every
// accessor reports errors as ModelError with file:line:column and element.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

#include "../compiled_expression.h"
#include "ictus/error.h"
#include "ictus/expression.h"
#include "ictus/math.h"

namespace ictus::internal {

/// File name and resolved parameters shared by all readers of one file, or
/// of one instance of a `repeat` block or an `include` (docs/model-file.md).
struct FileContext {
  std::string file;
  ParameterValues parameters;
  /// In an instance: how to name it in messages ("repeat 'cyl' with i = 3");
  /// its names and formulas have `$name` and `$(formula)` replaced by values.
  std::string instance;

  SourceLocation at(const YAML::Node& node) const;
  /// Location of the first character of a scalar's text (after a quote).
  SourceLocation text_at(const YAML::Node& node) const;
  /// A scalar's text; in an instance with `$name` and `$(formula)` replaced
  /// by their values (shortest exact decimal form; `$$` is a `$`).
  std::string text(const YAML::Node& node) const;
};

/// A YAML mapping describing one element. Keys are looked up by name; keys
/// never looked up are reported by finish() as unknown.
class MapReader {
 public:
  /// `node` must be a mapping (else ModelError naming `element`).
  MapReader(const YAML::Node& node, const FileContext& ctx, std::string element);

  const std::string& element() const { return element_; }
  const FileContext& context() const { return ctx_; }
  SourceLocation where() const { return ctx_.at(node_); }
  bool has(const std::string& key) const;
  /// The value node of `key` (marks it used), or an undefined node.
  YAML::Node get(const std::string& key);
  YAML::Node required(const std::string& key, const std::string& expected);

  double number(const std::string& key, double fallback);
  double required_number(const std::string& key);
  std::optional<double> optional_number(const std::string& key);
  /// A number that must be > 0 (or >= 0 when `allow_zero`).
  double positive(const std::string& key, double fallback, bool allow_zero = false);
  bool boolean(const std::string& key, bool fallback);
  std::string string(const std::string& key, const std::string& fallback);
  std::string required_string(const std::string& key, const std::string& expected);
  Vec3 vec3(const std::string& key, const Vec3& fallback);
  Vec3 required_vec3(const std::string& key);
  /// A unit vector (|v| = 1 within 1e-9; zero and non-unit are errors).
  Vec3 unit_vec3(const std::string& key, const Vec3& fallback);
  Vec3 required_unit_vec3(const std::string& key);
  /// A formula kept as text (time- or state-dependent).
  Expression expression(const std::string& key);
  std::optional<Expression> optional_expression(const std::string& key);

  /// Throws for keys that were never looked up, naming the known ones.
  void finish(const std::vector<std::string>& also_known = {}) const;

 private:
  YAML::Node node_;
  const FileContext& ctx_;
  std::string element_;
  std::vector<std::string> used_;
};

/// Number from a scalar node: a literal or a formula in parameters.
double read_number(const YAML::Node& node, const FileContext& ctx, const std::string& element,
                   const std::string& what);
/// Three numbers from a sequence node.
Vec3 read_vec3(const YAML::Node& node, const FileContext& ctx, const std::string& element,
               const std::string& what);
/// Checks that v has unit length.
void check_unit(const Vec3& v, const YAML::Node& node, const FileContext& ctx,
                const std::string& element, const std::string& what);
/// An Expression from a scalar node, located at its first character.
Expression read_expression(const YAML::Node& node, const FileContext& ctx,
                           const std::string& element, const std::string& what);
/// A short description of a node's kind for messages ("a sequence").
std::string describe(const YAML::Node& node);

}  // namespace ictus::internal
