// The model file's `contacts:` mapping (docs/model-file.md, "Contacts").
#pragma once

#include <yaml-cpp/yaml.h>

#include "ictus/model.h"
#include "yaml_reader.h"

namespace ictus::internal {

/// Reads the shapes of `shapes:` onto their bodies (after the bodies).
void read_shapes(const YAML::Node& node, const FileContext& ctx, Model& model);
/// Reads every contact of `contacts:` into the model (after the joints).
void read_contacts(const YAML::Node& node, const FileContext& ctx, Model& model);

}  // namespace ictus::internal
