#include "ictus/error.h"

#include <fmt/format.h>

namespace ictus {

std::string SourceLocation::str() const {
  if (line <= 0) return file;
  if (column <= 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

namespace {
std::string compose(const SourceLocation& where, const std::string& element,
                    const std::string& what) {
  std::string out;
  if (where.known()) out += where.str() + ": ";
  out += "error: ";
  if (!element.empty()) out += element + ": ";
  out += what;
  return out;
}
}  // namespace

ModelError::ModelError(SourceLocation where, std::string element, const std::string& what)
    : std::runtime_error(compose(where, element, what)),
      where_(std::move(where)),
      element_(std::move(element)),
      detail_(what) {}

SimulationError::SimulationError(double time, const std::string& what)
    : std::runtime_error(fmt::format("simulation failed at t = {:.9g} s: {}", time, what)),
      time_(time) {}

}  // namespace ictus
