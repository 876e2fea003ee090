#include "compiled_expression.h"

#include <fmt/format.h>
#include <muParser.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "text_util.h"

namespace ictus::internal {

namespace {

constexpr const char* kNameChars =
    "0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.";

// Raised from inside muParser's variable factory; carries the unknown name.
struct UnknownName {
  std::string name;
};

struct FactoryData {
  VariableScope* scope;
  std::vector<std::string>* variables;
};

double* variable_factory(const char* name, void* user_data) {
  auto* data = static_cast<FactoryData*>(user_data);
  double* slot = data->scope->bind(name);
  if (slot == nullptr) throw UnknownName{name};
  data->variables->emplace_back(name);
  return slot;
}

SourceLocation shifted(const SourceLocation& where, int offset) {
  SourceLocation out = where;
  if (out.column > 0) out.column += offset;
  return out;
}

class NoVariables final : public VariableScope {
 public:
  double* bind(const std::string&) override { return nullptr; }
  std::vector<std::string> known_names() const override { return {}; }
};

bool is_word_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// The recorder of this thread (ParameterUseRecorder), if one lives.
thread_local ParameterUseRecorder* parameter_use = nullptr;

// Defines as constants the parameters the text names, and only those: a model
// with thousands of parameters would otherwise pay for all of them in every
// formula. A word that is part of a longer name (a channel such as `arm.x`,
// the exponent of 2e3) may be defined needlessly, which is harmless.
void define_constants(mu::Parser& p, const std::string& text, const ParameterValues& parameters) {
  p.DefineNameChars(kNameChars);
  p.DefineConst("pi", std::numbers::pi);
  p.DefineConst("deg", std::numbers::pi / 180.0);
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_word_start(text[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && is_word_char(text[j])) ++j;
    if (const auto it = parameters.find(std::string_view(text).substr(i, j - i));
        it != parameters.end()) {
      p.DefineConst(it->first, it->second);
      if (parameter_use != nullptr) parameter_use->record(it->first);
    }
    i = j;
  }
}

}  // namespace

ParameterUseRecorder::ParameterUseRecorder() : previous_(parameter_use) {
  parameter_use = this;
}

ParameterUseRecorder::~ParameterUseRecorder() {
  parameter_use = previous_;
}

bool is_reserved_name(const std::string& name) {
  static const std::array<const char*, 26> kReserved = {
      "t",    "pi",   "deg",  "sin",   "cos",   "tan",   "asin", "acos",  "atan",
      "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "log2", "log10", "log",
      "ln",   "exp",  "sqrt", "sign",  "rint",  "abs",   "min",  "max"};
  return std::any_of(kReserved.begin(), kReserved.end(), [&](const char* r) { return name == r; });
}

CompiledExpression::CompiledExpression(const Expression& expr, const ParameterValues& parameters,
                                       VariableScope& scope, const std::string& element)
    : CompiledExpression(expr.text, expr.where, parameters, scope, element) {}

CompiledExpression::CompiledExpression(const std::string& text, const SourceLocation& where,
                                       const ParameterValues& parameters, VariableScope& scope,
                                       const std::string& element)
    : parser_(std::make_unique<mu::Parser>()), text_(text) {
  FactoryData data{&scope, &variables_};
  try {
    define_constants(*parser_, text, parameters);
    parser_->SetVarFactory(variable_factory, &data);
    parser_->SetExpr(text);
    (void)parser_->Eval();  // parses now so that errors surface at load time
  } catch (const UnknownName& unknown) {
    const std::size_t pos = text.find(unknown.name);
    const auto known = scope.known_names();
    // a misspelt parameter is the likeliest cause: suggest parameters too
    std::vector<std::string> names{"pi", "deg"};
    for (const auto& [name, value] : parameters) names.push_back(name);
    std::vector<std::string> candidates = known;
    candidates.insert(candidates.end(), names.begin(), names.end());
    throw ModelError(
        shifted(where, pos == std::string::npos ? 0 : static_cast<int>(pos)), element,
        fmt::format("unknown name '{}' in formula '{}'{}{}", unknown.name, text,
                    did_you_mean(unknown.name, candidates),
                    known.empty() ? fmt::format("; expected a number or a formula of {}",
                                                join_names(names, 20))
                                  : std::string()));
  } catch (const mu::Parser::exception_type& e) {
    const int pos = std::max(0, e.GetPos());
    throw ModelError(shifted(where, pos), element,
                     fmt::format("cannot parse formula '{}': {}", text, e.GetMsg()));
  }
  parser_->SetVarFactory(nullptr, nullptr);
}

CompiledExpression::~CompiledExpression() = default;
CompiledExpression::CompiledExpression(CompiledExpression&&) noexcept = default;
CompiledExpression& CompiledExpression::operator=(CompiledExpression&&) noexcept = default;

double CompiledExpression::evaluate() const {
  return parser_->Eval();
}

double evaluate_constant(const Expression& expr, const ParameterValues& parameters,
                         const std::string& element) {
  NoVariables none;
  const CompiledExpression compiled(expr, parameters, none, element);
  const double value = compiled.evaluate();
  if (!std::isfinite(value))
    throw ModelError(expr.where, element,
                     fmt::format("formula '{}' evaluates to {}", expr.text, value));
  return value;
}

}  // namespace ictus::internal
