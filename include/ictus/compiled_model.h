// The immutable part of a mechanism, built once and shared by every System
// (one per thread) that simulates it: the validated Model, the state layout
// and the inverse masses. A System is then one thread's workspace (compiled
// formulas bound to its own slots, the constraint structure and its
// factorisation, the evaluation caches) plus the mode a run changes
// (System::ModeSnapshot); a state is (t, y) with that mode
// (Simulation::save). docs/architecture.md explains the split.
#pragma once

#include <memory>
#include <vector>

#include "ictus/math.h"
#include "ictus/model.h"
#include "ictus/state_layout.h"

namespace ictus {

class CompiledModel {
 public:
  /// Validates the model (throws ModelError) and derives its constants.
  explicit CompiledModel(Model model);
  /// Shared construction, the form System and Simulation take.
  static std::shared_ptr<const CompiledModel> make(Model model);

  const Model& model() const { return model_; }
  const StateLayout& layout() const { return layout_; }
  /// 1/m and J^-1 (body frame) of body b.
  double inverse_mass(int b) const { return inverse_mass_[static_cast<std::size_t>(b)]; }
  const Mat3& inverse_inertia(int b) const { return inverse_inertia_[static_cast<std::size_t>(b)]; }

 private:
  Model model_;
  StateLayout layout_;
  std::vector<double> inverse_mass_;
  std::vector<Mat3> inverse_inertia_;
};

}  // namespace ictus
