#include <fmt/format.h>

#include <stdexcept>

#include "ictus/integrator.h"
#include "ictus/integrators/dopri5.h"
#include "ictus/integrators/rk4.h"

namespace ictus {

std::unique_ptr<Integrator> make_integrator(std::string_view name, OdeSystem& ode,
                                            const IntegratorOptions& options) {
  if (name == "dopri5") return std::make_unique<DormandPrince5>(ode, options);
  if (name == "rk4") return std::make_unique<RungeKutta4>(ode, options.step);
  throw std::invalid_argument(
      fmt::format("unknown integrator '{}'; known integrators: dopri5, rk4", name));
}

}  // namespace ictus
