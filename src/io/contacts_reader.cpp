#include "contacts_reader.h"

#include <fmt/format.h>

#include "../text_util.h"

namespace ictus::internal {

namespace {

void read_joint_limit(MapReader& r, const std::string& name, Model& model) {
  JointLimitContact c;
  c.name = name;
  c.where = r.where();
  c.joint = r.required_string("joint", "a joint name");
  const std::string coordinate = r.string("coordinate", "");
  using Coordinate = JointLimitContact::Coordinate;
  if (coordinate == "translation") {
    c.coordinate = Coordinate::kTranslation;
  } else if (coordinate == "angle") {
    c.coordinate = Coordinate::kAngle;
  } else if (!coordinate.empty()) {
    throw ModelError(r.context().at(r.get("coordinate")), r.element(),
                     fmt::format("'coordinate' is 'translation' or 'angle', got '{}'", coordinate));
  }
  c.lower = r.optional_number("lower");
  c.upper = r.optional_number("upper");
  if (const YAML::Node e = r.get("restitution")) {
    c.restitution = read_number(e, r.context(), r.element(), "restitution");
    if (!(c.restitution >= 0.0 && c.restitution <= 1.0))
      throw ModelError(r.context().at(e), r.element(),
                       fmt::format("restitution must be in [0, 1], got {}", c.restitution));
  }
  c.accumulation_time = r.positive("accumulation_time", c.accumulation_time);
  const std::string law = r.string("law", "impulsive");
  if (law != "impulsive")
    throw ModelError(r.context().at(r.get("law")), r.element(),
                     fmt::format("'law' is 'impulsive' here, got '{}'", law));
  try {
    model.add_contact(std::move(c));
  } catch (const ModelError& e) {
    // an unknown or unsuitable joint: point at the joint's name
    if (e.detail().find("joint '") == 0 || e.detail().find("unknown joint") == 0)
      throw ModelError(r.context().at(r.get("joint")), e.element(), e.detail());
    throw;
  }
}

}  // namespace

void read_contacts(const YAML::Node& node, const FileContext& ctx, Model& model) {
  if (!node) return;
  const MapReader check(node, ctx, "contacts");
  const std::vector<std::string> types = {"joint_limit"};
  for (const auto& kv : node) {
    const std::string name = kv.first.as<std::string>();
    const std::string element = fmt::format("contact '{}'", name);
    MapReader r(kv.second, ctx, element);
    const std::string type = r.required_string("type", "a contact type");
    if (type == "joint_limit") {
      read_joint_limit(r, name, model);
    } else {
      throw ModelError(ctx.at(r.get("type")), element,
                       fmt::format("unknown contact type '{}'{}; known types: {}", type,
                                   did_you_mean(type, types), join_names(types)));
    }
    r.finish();
  }
}

}  // namespace ictus::internal
