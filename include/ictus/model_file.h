// Model files (YAML): see docs/model-file.md for the format.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ictus/model.h"

namespace ictus {

/// Parameter values that replace those of the file ("--set name=value").
/// Values are numbers or formulas in the other parameters.
using ParameterOverrides = std::vector<std::pair<std::string, std::string>>;

/// Loads and validates a model file. Throws ModelError with file:line:column.
Model load_model(const std::string& path, const ParameterOverrides& overrides = {});

/// Same, from text; `source_name` is used in messages.
Model parse_model(const std::string& text, const std::string& source_name,
                  const ParameterOverrides& overrides = {});

}  // namespace ictus
