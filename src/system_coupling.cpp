// Which bodies can influence each other's accelerations (System::coupling_groups),
// for the sparsity pattern of the SUNDIALS steppers' sparse Jacobian and for
// the friction elements decided together group by group
// (System::decide_friction_together, ElementSwitching).
#include <numeric>

#include "ictus/system.h"
#include "system_impl.h"
#include "union_find.h"

namespace ictus {

std::vector<int> System::coupling_groups() const {
  const int n = impl_->n;
  std::vector<int> parent(static_cast<std::size_t>(n));
  std::iota(parent.begin(), parent.end(), 0);
  auto join = [&parent](BodyIndex a, BodyIndex b) {
    if (a == kGround || b == kGround) return;  // the ground moves nobody
    internal::union_find_join(parent, a, b);
  };
  if (impl_->force_formulas_read_state) {
    // a formula may read any body's channels: assume everything is coupled
    for (int b = 1; b < n; ++b) join(0, b);
  } else {
    // every joint and row, enabled or not (switching must not invalidate the
    // pattern); drivers and stick/slip holds on joints add nothing
    for (const Joint& j : impl_->live_joints) join(j.base, j.follower);
    // rows of no joint: a contact point between two bodies, a dry-friction
    // hold between two points, a ball's stuck rotation
    for (const int i : impl_->free_instances) {
      const Impl::Instance& inst = impl_->instances[static_cast<std::size_t>(i)];
      join(inst.base, inst.follower);
    }
    for (const auto& f : impl_->forces) {
      const std::vector<BodyIndex> bodies = f->jacobian_bodies();
      for (std::size_t k = 1; k < bodies.size(); ++k) join(bodies[0], bodies[k]);
    }
  }
  // number the groups 0, 1, ... in the order of their first body
  std::vector<int> group(static_cast<std::size_t>(n), -1),
      id_of_root(static_cast<std::size_t>(n), -1);
  int groups = 0;
  for (int b = 0; b < n; ++b) {
    int& id = id_of_root[static_cast<std::size_t>(internal::union_find_root(parent, b))];
    if (id < 0) id = groups++;
    group[static_cast<std::size_t>(b)] = id;
  }
  return group;
}

}  // namespace ictus
