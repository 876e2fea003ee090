#include "ictus/expression.h"

#include <fmt/format.h>

#include <cctype>
#include <string_view>

namespace ictus {

Expression Expression::number(double value) {
  return Expression(fmt::format("{:.17g}", value));
}

namespace {

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.';
}

struct Piece {
  std::string text;
  int offset;
};

// Splits `text` at top-level (paren depth 0) occurrences of the symbol `sym`
// or of the word `word` (delimited by non-name characters).
std::vector<Piece> split_top_level(const std::string& text, int base_offset, std::string_view sym,
                                   std::string_view word) {
  std::vector<Piece> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth != 0) continue;
    std::size_t match = 0;
    if (text.compare(i, sym.size(), sym) == 0) {
      match = sym.size();
    } else if (text.compare(i, word.size(), word) == 0 && (i == 0 || !is_name_char(text[i - 1])) &&
               (i + word.size() >= text.size() || !is_name_char(text[i + word.size()]))) {
      match = word.size();
    }
    if (match > 0) {
      out.push_back({text.substr(start, i - start), base_offset + static_cast<int>(start)});
      start = i + match;
      i += match - 1;
    }
  }
  out.push_back({text.substr(start), base_offset + static_cast<int>(start)});
  return out;
}

ModelError condition_error(const Condition& c, int offset, const std::string& element,
                           const std::string& what) {
  SourceLocation where = c.expression.where;
  if (where.column > 0) where.column += offset;
  return ModelError(where, element, what);
}

bool blank(const std::string& s) {
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

SplitCondition split_condition(const Condition& condition, const std::string& element) {
  const std::string& text = condition.expression.text;
  SplitCondition out;
  for (const Piece& group : split_top_level(text, 0, "||", "or")) {
    std::vector<ComparisonTerm> terms;
    for (const Piece& piece : split_top_level(group.text, group.offset, "&&", "and")) {
      // find the single top-level comparison operator
      int depth = 0;
      int found = -1;
      std::size_t op_len = 0;
      bool greater = true;
      bool strict = true;
      for (std::size_t i = 0; i < piece.text.size(); ++i) {
        const char c = piece.text[i];
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if (depth != 0 || (c != '<' && c != '>' && c != '=' && c != '!')) continue;
        const bool eq_follows = i + 1 < piece.text.size() && piece.text[i + 1] == '=';
        if (c == '=' || c == '!') {
          if (eq_follows || c == '!')
            throw condition_error(condition, piece.offset + static_cast<int>(i), element,
                                  "a switching condition cannot test equality; use <, <=, > or "
                                  ">= so that the crossing can be located");
          continue;
        }
        if (found >= 0)
          throw condition_error(condition, piece.offset + static_cast<int>(i), element,
                                "expected one comparison per term, e.g. 'a < b && c > d'");
        found = static_cast<int>(i);
        op_len = eq_follows ? 2 : 1;
        greater = c == '>';
        strict = !eq_follows;
        i += op_len - 1;
      }
      if (found < 0)
        throw condition_error(condition, piece.offset, element,
                              fmt::format("expected a comparison such as 'guide.x >= 0.25' in "
                                          "condition '{}'",
                                          text));
      ComparisonTerm term;
      term.lhs = piece.text.substr(0, static_cast<std::size_t>(found));
      term.rhs = piece.text.substr(static_cast<std::size_t>(found) + op_len);
      term.greater = greater;
      term.strict = strict;
      term.lhs_offset = piece.offset;
      term.rhs_offset = piece.offset + found + static_cast<int>(op_len);
      if (blank(term.lhs) || blank(term.rhs))
        throw condition_error(condition, blank(term.lhs) ? term.lhs_offset : term.rhs_offset,
                              element, "comparison is missing an operand");
      terms.push_back(std::move(term));
    }
    out.any_of.push_back(std::move(terms));
  }
  return out;
}

}  // namespace ictus
