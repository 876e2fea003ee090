#include "decimation.h"

#include <algorithm>

namespace ictus::cli {

std::vector<char> event_rows(const std::vector<double>& t, const std::vector<double>& event_times) {
  std::vector<char> at(t.size(), 0);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (std::binary_search(event_times.begin(), event_times.end(), t[i])) at[i] = 1;
    if (i + 1 < t.size() && t[i] == t[i + 1]) at[i] = at[i + 1] = 1;
  }
  return at;
}

std::vector<std::size_t> plot_rows(const std::vector<double>& t,
                                   const std::vector<const std::vector<double>*>& columns,
                                   const std::vector<char>& at_event, std::size_t max_points) {
  const std::size_t n = t.size();
  std::vector<std::size_t> rows;
  if (n <= max_points) {
    rows.reserve(n);
    for (std::size_t i = 0; i < n; ++i) rows.push_back(i);
    return rows;
  }
  // each bucket gives up to 1 + 2 x columns rows
  const std::size_t per_bucket = 1 + 2 * columns.size();
  const std::size_t buckets = std::max<std::size_t>(100, max_points / per_bucket);
  const std::size_t width = (n + buckets - 1) / buckets;
  for (std::size_t start = 0; start < n; start += width) {
    const std::size_t end = std::min(n, start + width);
    rows.push_back(start);
    for (const std::vector<double>* c : columns) {
      const auto first = c->begin() + static_cast<std::ptrdiff_t>(start);
      const auto last = c->begin() + static_cast<std::ptrdiff_t>(end);
      const auto [lo, hi] = std::minmax_element(first, last);
      rows.push_back(static_cast<std::size_t>(lo - c->begin()));
      rows.push_back(static_cast<std::size_t>(hi - c->begin()));
    }
  }
  rows.push_back(n - 1);
  for (std::size_t i = 0; i < n; ++i)
    if (at_event[i] != 0) rows.push_back(i);
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

std::vector<std::size_t> animation_rows(std::size_t rows, std::size_t bodies,
                                        const std::vector<char>& at_event, std::size_t budget) {
  std::vector<std::size_t> kept;
  if (rows == 0) return kept;
  const std::size_t per_row = std::max<std::size_t>(1, bodies);
  const std::size_t stride = std::max<std::size_t>(1, (rows * per_row + budget - 1) / budget);
  for (std::size_t i = 0; i < rows; ++i)
    if (i % stride == 0 || i + 1 == rows || at_event[i] != 0) kept.push_back(i);
  return kept;
}

}  // namespace ictus::cli
