#pragma once

#include <string>
#include <vector>

#include "ictus/model_file.h"

namespace ictus::cli {

/// --set name=value options to overrides; ModelError at --set for a malformed one.
ParameterOverrides parse_sets(const std::vector<std::string>& sets);

}  // namespace ictus::cli
