// Internal: an order of items in which each comes after the items it depends
// on (a topological order), for parameters that name each other and for force
// channels that read each other's values.
#ifndef ICTUS_SRC_DEPENDENCY_ORDER_H_
#define ICTUS_SRC_DEPENDENCY_ORDER_H_

#include <cstddef>
#include <span>
#include <vector>

namespace ictus::internal {

/// Returns the items 0..n-1 ordered so that every item follows the items in
/// `dependencies[i]`. A depth-first walk with an explicit stack: no recursion,
/// so any depth of dependency chain is safe, and time linear in items plus
/// dependencies. On a cycle, calls `on_cycle(chain)` with the items of the
/// cycle in the order they depend on each other (the last depends on the
/// first); `on_cycle` must throw.
template <typename OnCycle>
std::vector<std::size_t> dependency_order(const std::vector<std::vector<std::size_t>>& dependencies,
                                          OnCycle&& on_cycle) {
  enum class Mark : char { kNew, kOnStack, kDone };
  const std::size_t n = dependencies.size();
  std::vector<Mark> mark(n, Mark::kNew);
  std::vector<std::size_t> order;
  order.reserve(n);
  struct Visit {
    std::size_t item;
    std::size_t next;  // the next dependency of `item` to visit
  };
  std::vector<Visit> stack;
  std::vector<std::size_t> chain;
  for (std::size_t root = 0; root < n; ++root) {
    if (mark[root] != Mark::kNew) continue;
    mark[root] = Mark::kOnStack;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      Visit& top = stack.back();
      const std::vector<std::size_t>& deps = dependencies[top.item];
      if (top.next == deps.size()) {
        order.push_back(top.item);
        mark[top.item] = Mark::kDone;
        stack.pop_back();
        continue;
      }
      const std::size_t dep = deps[top.next++];
      if (mark[dep] == Mark::kOnStack) {
        std::size_t from = 0;
        while (stack[from].item != dep) ++from;
        for (std::size_t k = from; k < stack.size(); ++k) chain.push_back(stack[k].item);
        on_cycle(std::span<const std::size_t>(chain));
      }
      if (mark[dep] == Mark::kNew) {
        mark[dep] = Mark::kOnStack;
        stack.push_back({dep, 0});
      }
    }
  }
  return order;
}

}  // namespace ictus::internal

#endif  // ICTUS_SRC_DEPENDENCY_ORDER_H_
