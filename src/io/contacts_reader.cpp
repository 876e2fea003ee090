#include "contacts_reader.h"

#include <fmt/format.h>

#include "../text_util.h"
#include "ictus/forces/compliant_joint_limit.h"
#include "ictus/forces/compliant_shape_contact.h"
#include "ictus/shape_contact_points.h"

namespace ictus::internal {

namespace {

// `law: compliant`, the law of a compliant contact (compliant_law.h): model,
// stiffness, and damping given or derived from the wanted `restitution` at
// an impact speed.
CompliantLaw read_compliant_law(MapReader& r, double restitution) {
  using Law = CompliantLaw::Law;
  CompliantLaw p;
  const std::string kind = r.string("model", "hunt_crossley");
  if (kind == "hunt_crossley") {
    p.law = Law::kHuntCrossley;
  } else if (kind == "hertz") {
    p.law = Law::kHertz;
  } else if (kind == "kelvin_voigt") {
    p.law = Law::kKelvinVoigt;
  } else {
    throw ModelError(
        r.context().at(r.get("model")), r.element(),
        fmt::format("'model' is 'hunt_crossley', 'hertz' or 'kelvin_voigt', got '{}'", kind));
  }
  if (!r.has("stiffness"))
    throw ModelError(r.where(), r.element(),
                     "a compliant contact needs 'stiffness' (k of N = k d ..., N/m or N/m^1.5)");
  p.stiffness = r.positive("stiffness", 0.0);
  p.clip = r.boolean("clip", true);
  const bool wanted = r.has("restitution");
  if (wanted && r.has("damping"))
    throw ModelError(r.context().at(r.get("damping")), r.element(),
                     "give 'damping' or a wanted 'restitution' (with 'impact_speed'), not both");
  p.impact_speed = r.positive("impact_speed", 0.0, true);
  if (wanted) {
    if (p.law == Law::kKelvinVoigt)
      throw ModelError(r.context().at(r.get("restitution")), r.element(),
                       "a Kelvin-Voigt contact needs its 'damping' [N s/m]; a wanted restitution "
                       "sets the damping of the Hunt-Crossley laws");
    if (!(p.impact_speed > 0.0))
      throw ModelError(
          r.context().at(r.get("restitution")), r.element(),
          "a wanted 'restitution' needs the 'impact_speed' [m/s or rad/s] it holds at");
    p.damping = CompliantLaw::hunt_crossley_damping(p.law, restitution, p.impact_speed);
  } else {
    p.damping = r.positive("damping", 0.0, true);
  }
  return p;
}

// A compliant stop: a force element on the same gap (compliant_joint_limit.h).
void read_compliant(MapReader& r, const JointLimitContact& c, Model& model) {
  CompliantJointLimit::Parameters p;
  static_cast<CompliantLaw&>(p) = read_compliant_law(r, c.restitution);
  p.lower = c.lower;
  p.upper = c.upper;
  using Coordinate = JointLimitContact::Coordinate;
  const int j = model.find_joint(c.joint);
  Coordinate coordinate = c.coordinate;
  if (coordinate == Coordinate::kAuto && j >= 0) {
    const Joint& joint = model.joints()[static_cast<std::size_t>(j)];
    if (joint.has_angle && joint.has_translation)
      throw ModelError(r.context().at(r.get("joint")), r.element(),
                       fmt::format("joint '{}' ({}) has a translation and an angle: say which one "
                                   "is limited ('coordinate: translation' or 'coordinate: angle')",
                                   joint.name, joint.type));
    coordinate =
        joint.has_angle && !joint.has_translation ? Coordinate::kAngle : Coordinate::kTranslation;
  }
  model.add_force(std::make_unique<CompliantJointLimit>(
      c.name, c.joint,
      coordinate == Coordinate::kAngle ? CompliantJointLimit::Coordinate::kAngle
                                       : CompliantJointLimit::Coordinate::kTranslation,
      p, c.where));
}

// friction: mu, or friction: {mu: ..., mu_static: ...} on a contact between
// shapes (docs/theory/friction.md); the values are checked by the Model.
ContactFriction read_contact_friction(MapReader& r) {
  const YAML::Node node = r.get("friction");
  ContactFriction f;
  f.present = true;
  f.where = r.context().at(node);
  if (!node.IsMap()) {
    f.mu = read_number(node, r.context(), r.element(), "friction");
    return f;
  }
  MapReader m(node, r.context(), r.element() + " friction");
  f.mu = m.required_number("mu");
  if (const auto s = m.optional_number("mu_static")) f.mu_static = *s;
  m.finish();
  return f;
}

void read_joint_limit(MapReader& r, const std::string& name, Model& model) {
  JointLimitContact c;
  c.name = name;
  c.where = r.where();
  if (r.has("friction"))
    throw ModelError(r.context().at(r.get("friction")), r.element(),
                     "a joint limit stops a joint coordinate and has no tangent to slide along: "
                     "give the joint its friction ('friction:' on the joint), or use a contact "
                     "between shapes ('type: shapes') for friction at a contact");
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
  const std::string law = r.string("law", "impulsive");
  if (law == "compliant") {
    read_compliant(r, c, model);
    return;
  }
  if (law != "impulsive")
    throw ModelError(r.context().at(r.get("law")), r.element(),
                     fmt::format("'law' is 'impulsive' or 'compliant', got '{}'", law));
  c.accumulation_time = r.positive("accumulation_time", c.accumulation_time);
  try {
    model.add_contact(std::move(c));
  } catch (const ModelError& e) {
    // an unknown or unsuitable joint: point at the joint's name
    if (e.detail().find("joint '") == 0 || e.detail().find("unknown joint") == 0)
      throw ModelError(r.context().at(r.get("joint")), e.element(), e.detail());
    throw;
  }
}

void read_shape_contact(MapReader& r, const std::string& name, Model& model) {
  ShapeContact c;
  c.name = name;
  c.where = r.where();
  const YAML::Node between = r.required("between", "two body names, [a, b]");
  if (!between.IsSequence() || between.size() != 2)
    throw ModelError(r.context().at(between), r.element(),
                     "'between' must be two body names, [a, b]");
  c.body_a = between[0].as<std::string>();
  c.body_b = between[1].as<std::string>();
  if (const YAML::Node e = r.get("restitution")) {
    c.restitution = read_number(e, r.context(), r.element(), "restitution");
    if (!(c.restitution >= 0.0 && c.restitution <= 1.0))
      throw ModelError(r.context().at(e), r.element(),
                       fmt::format("restitution must be in [0, 1], got {}", c.restitution));
  }
  const std::string law = r.string("law", "impulsive");
  if (law != "impulsive" && law != "compliant")
    throw ModelError(r.context().at(r.get("law")), r.element(),
                     fmt::format("'law' is 'impulsive' or 'compliant', got '{}'", law));
  // the bodies, their shapes or their pairing: errors point at 'between'
  // (the friction's at 'friction')
  auto at_between = [&](auto&& add) {
    try {
      add();
    } catch (const ModelError& e) {
      const bool friction =
          r.has("friction") && (e.detail().find("friction") != std::string::npos ||
                                e.detail().find("mu") != std::string::npos);
      throw ModelError(r.context().at(friction ? r.get("friction") : between), e.element(),
                       e.detail());
    }
  };
  if (r.has("friction")) {
    if (law == "compliant")
      throw ModelError(r.context().at(r.get("friction")), r.element(),
                       "friction at a compliant contact ('law: compliant') is not built; friction "
                       "is available with the impulsive law (the default)");
    c.friction = read_contact_friction(r);
  }
  if (law == "compliant") {
    // a force element on the impulsive contact's points and gaps
    at_between([&] { model.check_shape_contact(c); });
    const CompliantLaw compliant = read_compliant_law(r, c.restitution);
    model.add_force(std::make_unique<CompliantShapeContact>(
        c.name,
        shape_contact_points(model.shapes(), model.body_index(c.body_a),
                             model.body_index(c.body_b)),
        compliant, c.where));
    return;
  }
  c.accumulation_time = r.positive("accumulation_time", c.accumulation_time);
  at_between([&] { model.add_shape_contact(std::move(c)); });
}

}  // namespace

void read_shapes(const YAML::Node& node, const FileContext& ctx, Model& model) {
  if (!node) return;
  const MapReader check(node, ctx, "shapes");
  const std::vector<std::string> types = {"sphere", "box", "capsule", "plane"};
  for (const auto& kv : node) {
    Shape s;
    s.name = kv.first.as<std::string>();
    const std::string element = fmt::format("shape '{}'", s.name);
    MapReader r(kv.second, ctx, element);
    s.where = r.where();
    const std::string body = r.required_string("body", "a body name (or ground)");
    s.body = model.body_index(body, element, ctx.at(r.get("body")));
    const std::string type = r.required_string("type", "a shape type");
    s.center_B = r.vec3("at", Vec3::Zero());
    if (type == "sphere") {
      s.type = Shape::Type::kSphere;
      s.radius = r.required_number("radius");
    } else if (type == "box") {
      s.type = Shape::Type::kBox;
      s.half_extents = 0.5 * r.required_vec3("size");
    } else if (type == "capsule") {
      s.type = Shape::Type::kCapsule;
      s.radius = r.required_number("radius");
      s.half_length = 0.5 * r.required_number("length");
      s.axis_B = r.unit_vec3("axis", Vec3::UnitZ());
    } else if (type == "plane") {
      s.type = Shape::Type::kPlane;
      s.normal_B = r.required_unit_vec3("normal");
    } else {
      throw ModelError(ctx.at(r.get("type")), element,
                       fmt::format("unknown shape type '{}'{}; known types: {}", type,
                                   did_you_mean(type, types), join_names(types)));
    }
    r.finish();
    model.add_shape(std::move(s));
  }
}

void read_contacts(const YAML::Node& node, const FileContext& ctx, Model& model) {
  if (!node) return;
  const MapReader check(node, ctx, "contacts");
  const std::vector<std::string> types = {"joint_limit", "shapes"};
  for (const auto& kv : node) {
    const std::string name = kv.first.as<std::string>();
    const std::string element = fmt::format("contact '{}'", name);
    MapReader r(kv.second, ctx, element);
    const std::string type = r.required_string("type", "a contact type");
    if (type == "joint_limit") {
      read_joint_limit(r, name, model);
    } else if (type == "shapes") {
      read_shape_contact(r, name, model);
    } else {
      throw ModelError(ctx.at(r.get("type")), element,
                       fmt::format("unknown contact type '{}'{}; known types: {}", type,
                                   did_you_mean(type, types), join_names(types)));
    }
    r.finish();
  }
}

}  // namespace ictus::internal
