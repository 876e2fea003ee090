// The SUNDIALS steppers (cvode, ida), built by make_stepper.
#pragma once

#include <memory>
#include <string_view>

#include "ictus/stepper.h"

namespace ictus {

/// A SUNDIALS stepper for `name`, or nullptr if `name` is not one of them.
std::unique_ptr<Stepper> make_sundials_stepper(std::string_view name, MechanicalSystem& system,
                                               const StepperOptions& options);

}  // namespace ictus
