#include "parameter_overrides.h"

#include <fmt/format.h>

namespace ictus::cli {

ParameterOverrides parse_sets(const std::vector<std::string>& sets) {
  ParameterOverrides out;
  for (const std::string& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
      throw ModelError({"--set", 0, 0}, "", fmt::format("expected --set name=value, got '{}'", s));
    out.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  return out;
}

}  // namespace ictus::cli
