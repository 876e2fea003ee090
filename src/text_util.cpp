#include "text_util.h"

#include <algorithm>
#include <numeric>

namespace ictus::internal {

int edit_distance(std::string_view a, std::string_view b) {
  std::vector<int> prev(b.size() + 1);
  std::vector<int> cur(b.size() + 1);
  std::iota(prev.begin(), prev.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const int subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  int best_distance = 0;
  for (const std::string& c : candidates) {
    const int d = edit_distance(name, c);
    if (best == nullptr || d < best_distance) {
      best = &c;
      best_distance = d;
    }
  }
  // one edit in three characters, rounded up from two thirds ("bodys" -> "bodies")
  const int allowed = std::max<int>(1, (static_cast<int>(name.size()) + 1) / 3);
  if (best == nullptr || best_distance > allowed) return {};
  return " (did you mean '" + *best + "'?)";
}

std::string join_names(const std::vector<std::string>& names, std::size_t limit) {
  if (names.empty()) return "(none)";
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < limit; ++i) {
    if (i > 0) out += ", ";
    out += names[i];
  }
  if (names.size() > limit) out += ", ...";
  return out;
}

}  // namespace ictus::internal
