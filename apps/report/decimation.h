// Which rows of a large run go into the report: the page stays quick to open
// (issue 12: 10^5 samples and 100 bodies in a few seconds) while the peaks of
// every plotted channel and the samples at events stay exact.
#pragma once

#include <cstddef>
#include <vector>

namespace ictus::cli {

/// True for the rows at an event: a time of `event_times` (sorted), or a time
/// written twice (the samples just before and after an event).
std::vector<char> event_rows(const std::vector<double>& t, const std::vector<double>& event_times);

/// Rows of a plot of `columns`: all of them when there are at most
/// `max_points`; else, per bucket of consecutive rows, its first row and the
/// rows of the minimum and maximum of each column (so no peak is lost), with
/// as many buckets as keep the count near `max_points`; plus the last row and
/// every event row. Ascending.
std::vector<std::size_t> plot_rows(const std::vector<double>& t,
                                   const std::vector<const std::vector<double>*>& columns,
                                   const std::vector<char>& at_event, std::size_t max_points);

/// Rows of the animation: every k-th row with k the smallest stride that keeps
/// rows x bodies within `budget`, the last row and every event row. Ascending.
std::vector<std::size_t> animation_rows(std::size_t rows, std::size_t bodies,
                                        const std::vector<char>& at_event, std::size_t budget);

}  // namespace ictus::cli
