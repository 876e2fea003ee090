// Small helpers for user-facing messages.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ictus::internal {

/// Levenshtein distance between two strings.
int edit_distance(std::string_view a, std::string_view b);

/// " (did you mean 'x'?)" when a candidate is close to `name`, else "".
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

/// "a, b, c" (or "(none)"), truncated after `limit` names with ", ...".
std::string join_names(const std::vector<std::string>& names, std::size_t limit = 12);

}  // namespace ictus::internal
