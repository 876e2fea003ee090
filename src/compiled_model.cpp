#include "ictus/compiled_model.h"

#include "system_impl.h"  // kAuxCount: the System's energy-audit entries

namespace ictus {

CompiledModel::CompiledModel(Model model) : model_(std::move(model)) {
  model_.validate();
  const int n = static_cast<int>(model_.bodies().size());
  layout_ = StateLayout{n, kAuxCount};
  for (const Body& b : model_.bodies()) {
    inverse_mass_.push_back(1.0 / b.mass);
    // a point mass: the rotational block of M^-1 is zero, so no torque or
    // constraint moment ever turns it (its rotation carries no inertia)
    inverse_inertia_.push_back(b.point_mass ? Mat3::Zero() : Mat3(b.inertia.inverse()));
  }
}

std::shared_ptr<const CompiledModel> CompiledModel::make(Model model) {
  return std::make_shared<const CompiledModel>(std::move(model));
}

}  // namespace ictus
