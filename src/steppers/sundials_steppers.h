// The factory hook for the SUNDIALS steppers, called by make_stepper().
#pragma once

#include <memory>
#include <string_view>

#include "ictus/stepper.h"

namespace ictus {

/// "cvode" (CvodeStepper) or "ida" (IdaStepper), with the Jacobian from
/// SUNDIALS' difference quotients; nullptr for any other name. Throws
/// std::invalid_argument for options the stepper cannot use.
std::unique_ptr<Stepper> make_sundials_stepper(std::string_view name, MechanicalSystem& system,
                                               const StepperOptions& options);

}  // namespace ictus
