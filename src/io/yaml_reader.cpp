#include "yaml_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <unordered_set>

#include "../text_util.h"

namespace ictus::internal {

SourceLocation FileContext::at(const YAML::Node& node) const {
  const YAML::Mark mark = node.Mark();
  if (mark.line < 0) return {file, 0, 0};
  return {file, mark.line + 1, mark.column + 1};
}

SourceLocation FileContext::text_at(const YAML::Node& node) const {
  SourceLocation where = at(node);
  // quoted scalars carry the tag "!"; their text starts after the quote
  if (node.IsScalar() && node.Tag() == "!" && where.column > 0) ++where.column;
  return where;
}

namespace {

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

}  // namespace

std::string FileContext::text(const YAML::Node& node) const {
  const std::string& raw = node.Scalar();
  if (instance.empty() || raw.find('$') == std::string::npos) return raw;
  const SourceLocation where = text_at(node);
  auto located = [&](std::size_t pos) {
    SourceLocation w = where;
    if (w.column > 0) w.column += static_cast<int>(pos);
    return w;
  };
  const std::string element = fmt::format("'{}' in {}", raw, instance);
  std::string out;
  std::size_t i = 0;
  while (i < raw.size()) {
    if (raw[i] != '$') {
      out += raw[i++];
      continue;
    }
    if (i + 1 < raw.size() && raw[i + 1] == '$') {
      out += '$';
      i += 2;
      continue;
    }
    std::string formula;
    std::size_t end = i + 1;
    if (end < raw.size() && raw[end] == '(') {
      int depth = 0;
      for (; end < raw.size(); ++end) {
        if (raw[end] == '(') ++depth;
        if (raw[end] == ')' && --depth == 0) break;
      }
      if (end == raw.size()) throw ModelError(located(i), element, "'$(' without its closing ')'");
      formula = raw.substr(i + 2, end - i - 2);
      ++end;
    } else {
      while (end < raw.size() && is_name_char(raw[end])) ++end;
      formula = raw.substr(i + 1, end - i - 1);
      if (formula.empty() || !is_name_start(formula[0]))
        throw ModelError(located(i), element,
                         "'$' is followed by a parameter name or a formula in parentheses, "
                         "$name or $(formula); write $$ for a '$'");
    }
    const double value =
        evaluate_constant(Expression(formula, located(i + 1)), parameters, element);
    out += fmt::format("{}", value);
    i = end;
  }
  return out;
}

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
      return "nothing";
    case YAML::NodeType::Scalar:
      return fmt::format("'{}'", node.Scalar());
    case YAML::NodeType::Sequence:
      return fmt::format("a list of {}", node.size());
    case YAML::NodeType::Map:
      return "a mapping";
    default:
      return "nothing";
  }
}

double read_number(const YAML::Node& node, const FileContext& ctx, const std::string& element,
                   const std::string& what) {
  if (!node.IsScalar() || node.Scalar().empty())
    throw ModelError(
        ctx.at(node), element,
        fmt::format("'{}' must be a number or a formula, got {}", what, describe(node)));
  const std::string text = ctx.text(node);
  double value = 0.0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec == std::errc::result_out_of_range && ptr == end)
    throw ModelError(
        ctx.at(node), element,
        fmt::format("'{}' is {}, out of the range of floating-point numbers", what, text));
  if (ec == std::errc() && ptr == end) {
    if (!std::isfinite(value))
      throw ModelError(ctx.at(node), element, fmt::format("'{}' must be finite", what));
    return value;
  }
  try {
    return evaluate_constant(Expression(text, ctx.text_at(node)), ctx.parameters, element);
  } catch (const ModelError& e) {
    // say which key the formula belongs to
    throw ModelError(e.where(), e.element(), fmt::format("'{}': {}", what, e.detail()));
  }
}

Vec3 read_vec3(const YAML::Node& node, const FileContext& ctx, const std::string& element,
               const std::string& what) {
  if (!node.IsSequence() || node.size() != 3)
    throw ModelError(ctx.at(node), element,
                     fmt::format("'{}' must be a list of three numbers [x, y, z], got {}", what,
                                 describe(node)));
  Vec3 v;
  for (std::size_t k = 0; k < 3; ++k)
    v(static_cast<Eigen::Index>(k)) = read_number(node[k], ctx, element, what);
  return v;
}

void check_unit(const Vec3& v, const YAML::Node& node, const FileContext& ctx,
                const std::string& element, const std::string& what) {
  const double norm = v.norm();
  if (norm < 1e-12)
    throw ModelError(ctx.at(node), element,
                     fmt::format("'{}' is a zero vector; a unit direction is expected", what));
  if (std::abs(norm - 1.0) > 1e-9)
    throw ModelError(ctx.at(node), element,
                     fmt::format("'{}' must be a unit vector, its length is {:.12g}; write it "
                                 "normalised, e.g. [{:.6g}, {:.6g}, {:.6g}] or with formulas "
                                 "such as [cos(30*deg), 0, sin(30*deg)]",
                                 what, norm, v.x() / norm, v.y() / norm, v.z() / norm));
}

Expression read_expression(const YAML::Node& node, const FileContext& ctx,
                           const std::string& element, const std::string& what) {
  if (!node.IsScalar() || node.Scalar().empty())
    throw ModelError(ctx.at(node), element,
                     fmt::format("'{}' must be a formula, got {}", what, describe(node)));
  return Expression(ctx.text(node), ctx.text_at(node));
}

MapReader::MapReader(const YAML::Node& node, const FileContext& ctx, std::string element)
    : node_(node), ctx_(ctx), element_(std::move(element)) {
  if (!node.IsMap())
    throw ModelError(ctx.at(node), element_,
                     fmt::format("expected a mapping of keys to values, got {}", describe(node)));
  std::unordered_set<std::string> seen;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar())
      throw ModelError(ctx.at(kv.first), element_,
                       fmt::format("keys must be names, got {}", describe(kv.first)));
    const std::string key = kv.first.as<std::string>();
    if (!seen.insert(key).second)
      throw ModelError(ctx.at(kv.first), element_, fmt::format("key '{}' appears twice", key));
  }
}

bool MapReader::has(const std::string& key) const {
  return static_cast<bool>(node_[key]);
}

YAML::Node MapReader::get(const std::string& key) {
  used_.push_back(key);
  return node_[key];
}

YAML::Node MapReader::required(const std::string& key, const std::string& expected) {
  YAML::Node n = get(key);
  if (!n || n.IsNull())
    throw ModelError(where(), element_, fmt::format("missing key '{}' ({})", key, expected));
  return n;
}

double MapReader::number(const std::string& key, double fallback) {
  const YAML::Node n = get(key);
  return n ? read_number(n, ctx_, element_, key) : fallback;
}

double MapReader::required_number(const std::string& key) {
  return read_number(required(key, "a number"), ctx_, element_, key);
}

std::optional<double> MapReader::optional_number(const std::string& key) {
  const YAML::Node n = get(key);
  if (!n) return std::nullopt;
  return read_number(n, ctx_, element_, key);
}

double MapReader::positive(const std::string& key, double fallback, bool allow_zero) {
  const YAML::Node n = get(key);
  if (!n) return fallback;
  const double v = read_number(n, ctx_, element_, key);
  if (allow_zero ? v < 0.0 : v <= 0.0)
    throw ModelError(ctx_.at(n), element_,
                     fmt::format("'{}' must be {}, got {}", key,
                                 allow_zero ? "zero or positive" : "positive", v));
  return v;
}

bool MapReader::boolean(const std::string& key, bool fallback) {
  const YAML::Node n = get(key);
  if (!n) return fallback;
  if (n.IsScalar()) {
    const std::string& s = n.Scalar();
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
  }
  throw ModelError(ctx_.at(n), element_,
                   fmt::format("'{}' must be true or false, got {}", key, describe(n)));
}

std::string MapReader::string(const std::string& key, const std::string& fallback) {
  const YAML::Node n = get(key);
  if (!n) return fallback;
  if (!n.IsScalar())
    throw ModelError(ctx_.at(n), element_,
                     fmt::format("'{}' must be a name, got {}", key, describe(n)));
  return ctx_.text(n);
}

std::string MapReader::required_string(const std::string& key, const std::string& expected) {
  const YAML::Node n = required(key, expected);
  if (!n.IsScalar())
    throw ModelError(ctx_.at(n), element_,
                     fmt::format("'{}' must be {}, got {}", key, expected, describe(n)));
  return ctx_.text(n);
}

Vec3 MapReader::vec3(const std::string& key, const Vec3& fallback) {
  const YAML::Node n = get(key);
  return n ? read_vec3(n, ctx_, element_, key) : fallback;
}

Vec3 MapReader::required_vec3(const std::string& key) {
  return read_vec3(required(key, "[x, y, z]"), ctx_, element_, key);
}

Vec3 MapReader::unit_vec3(const std::string& key, const Vec3& fallback) {
  const YAML::Node n = get(key);
  if (!n) return fallback;
  const Vec3 v = read_vec3(n, ctx_, element_, key);
  check_unit(v, n, ctx_, element_, key);
  return v;
}

Vec3 MapReader::required_unit_vec3(const std::string& key) {
  const YAML::Node n = required(key, "a unit vector [x, y, z]");
  const Vec3 v = read_vec3(n, ctx_, element_, key);
  check_unit(v, n, ctx_, element_, key);
  return v;
}

Expression MapReader::expression(const std::string& key) {
  return read_expression(required(key, "a formula"), ctx_, element_, key);
}

std::optional<Expression> MapReader::optional_expression(const std::string& key) {
  const YAML::Node n = get(key);
  if (!n) return std::nullopt;
  return read_expression(n, ctx_, element_, key);
}

void MapReader::finish(const std::vector<std::string>& also_known) const {
  std::vector<std::string> known = used_;
  known.insert(known.end(), also_known.begin(), also_known.end());
  std::sort(known.begin(), known.end());
  known.erase(std::unique(known.begin(), known.end()), known.end());
  for (const auto& kv : node_) {
    const std::string key = kv.first.as<std::string>();
    if (std::find(known.begin(), known.end(), key) == known.end())
      throw ModelError(ctx_.at(kv.first), element_,
                       fmt::format("unknown key '{}'{}; known keys here: {}", key,
                                   did_you_mean(key, known), join_names(known, 30)));
  }
}

}  // namespace ictus::internal
