// Internal: the root of an item in a disjoint-set forest (union-find), for
// the groups of dependent rows that share elements or rows and the groups
// of coupled bodies (System::coupling_groups).
#ifndef ICTUS_SRC_UNION_FIND_H_
#define ICTUS_SRC_UNION_FIND_H_

#include <cstddef>
#include <vector>

namespace ictus::internal {

/// The root of item k in the forest `parent` (parent[k] == k at a root),
/// halving the paths it walks.
inline int union_find_root(std::vector<int>& parent, int k) {
  while (parent[static_cast<std::size_t>(k)] != k) {
    const auto i = static_cast<std::size_t>(k);
    parent[i] = parent[static_cast<std::size_t>(parent[i])];
    k = parent[i];
  }
  return k;
}

/// Joins the sets of items a and b (b's root becomes a's root's parent).
inline void union_find_join(std::vector<int>& parent, int a, int b) {
  parent[static_cast<std::size_t>(union_find_root(parent, a))] = union_find_root(parent, b);
}

}  // namespace ictus::internal

#endif  // ICTUS_SRC_UNION_FIND_H_
