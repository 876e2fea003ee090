#include "sundials_steppers.h"

#include "cvode_stepper.h"
#include "ida_stepper.h"

namespace ictus {

std::unique_ptr<Stepper> make_sundials_stepper(std::string_view name, MechanicalSystem& system,
                                               const StepperOptions& options) {
  if (name == "cvode") return std::make_unique<CvodeStepper>(system, options);
  if (name == "ida") return std::make_unique<IdaStepper>(system, options);
  return nullptr;
}

}  // namespace ictus
