#include "ictus/model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "ictus/forces/gravity.h"
#include "point_mass_joints.h"
#include "text_util.h"

namespace ictus {

namespace {

// The integrator's name, the option keys given for it, and their ranges.
void validate_integrator(const IntegratorSettings& in) {
  const std::vector<std::string>& names = stepper_names();
  if (std::find(names.begin(), names.end(), in.name) == names.end())
    throw ModelError(
        in.where, "simulate",
        fmt::format("unknown integrator '{}'{}; known integrators: {}", in.name,
                    internal::did_you_mean(in.name, names), internal::join_names(names)));
  // a message about a given key points at that key
  auto where_of = [&in](const std::string& text) {
    for (std::size_t k = 0; k < in.given.size() && k < in.given_where.size(); ++k)
      if (text.find("'" + in.given[k] + "'") != std::string::npos) return in.given_where[k];
    return in.where;
  };
  const std::vector<std::string>& keys = stepper_option_keys(in.name);
  for (const std::string& key : in.given) {
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    std::string owners;
    for (const std::string& other : names) {
      const auto& k = stepper_option_keys(other);
      if (std::find(k.begin(), k.end(), key) != k.end())
        owners += (owners.empty() ? "" : ", ") + other;
    }
    const std::string message =
        fmt::format("'{}' is an option of {}, not of integrator '{}', which reads {}", key, owners,
                    in.name, internal::join_names(keys));
    throw ModelError(where_of(message), "simulate", message);
  }
  // a time-stepping scheme has no default step: its accuracy is the step's
  if (in.name == "moreau_jean" &&
      std::find(in.given.begin(), in.given.end(), "step") == in.given.end())
    throw ModelError(in.where, "simulate",
                     "integrator 'moreau_jean' needs a fixed 'step' (its accuracy is O(h); e.g. "
                     "step: 1e-3)");
  try {
    validate_stepper_options(in.name, in);
  } catch (const std::invalid_argument& e) {
    throw ModelError(where_of(e.what()), "simulate", e.what());
  }
}

bool has_key(const std::vector<std::string>& keys, const char* key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])) != 0) return false;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_') return false;
  return true;
}

}  // namespace

double implied_steps(const SimulationSettings& settings) {
  const IntegratorSettings& in = settings.integrator;
  const double span = settings.until - settings.start;
  const std::vector<std::string>& keys = stepper_option_keys(in.name);
  if (has_key(keys, "step")) return span / in.step;
  if (has_key(keys, "max_step") && in.max_step > 0.0) return span / in.max_step;
  return 0.0;
}

double default_energy_tolerance(const SimulationSettings& settings) {
  const IntegratorSettings& in = settings.integrator;
  if (has_key(stepper_option_keys(in.name), "rtol")) return std::max(1e-3, 1e4 * in.rtol);
  return 1e-3;
}

double energy_tolerance(const SimulationSettings& settings) {
  return settings.energy_tolerance > 0.0 ? settings.energy_tolerance
                                         : default_energy_tolerance(settings);
}

void check_implied_steps(const SimulationSettings& settings) {
  if (const double steps = implied_steps(settings); steps > settings.max_steps) {
    const IntegratorSettings& in = settings.integrator;
    const bool fixed = has_key(stepper_option_keys(in.name), "step");
    const std::string key = fixed ? "step" : "max_step";
    SourceLocation where = in.where;
    for (std::size_t k = 0; k < in.given.size() && k < in.given_where.size(); ++k)
      if (in.given[k] == key) where = in.given_where[k];
    throw ModelError(
        where, "simulate",
        fmt::format("'{}' {:g} s from 'start' {:g} s to 'until' {:g} s implies {:.3g} steps, "
                    "more than 'max_steps' ({:.3g}); make '{}' larger or the run shorter, or "
                    "raise 'max_steps' (or --max-steps) if the count is intended",
                    key, fixed ? in.step : in.max_step, settings.start, settings.until, steps,
                    settings.max_steps, key));
  }
}

Model::Model() = default;

Model::Model(const Model& other)
    : name_(other.name_),
      bodies_(other.bodies_),
      joints_(other.joints_),
      drivers_(other.drivers_),
      contacts_(other.contacts_),
      shapes_(other.shapes_),
      shape_contacts_(other.shape_contacts_),
      events_(other.events_),
      given_(other.given_),
      initially_disabled_(other.initially_disabled_),
      markers_(other.markers_),
      parameters_(other.parameters_),
      names_(other.names_),
      gravity_(other.gravity_),
      settings_(other.settings_) {
  forces_.reserve(other.forces_.size());
  for (const auto& f : other.forces_) forces_.push_back(f->clone());
}

Model& Model::operator=(const Model& other) {
  if (this != &other) {
    Model copy(other);
    *this = std::move(copy);
  }
  return *this;
}

void Model::claim_name(const std::string& name, const std::string& element,
                       const SourceLocation& where) {
  if (!is_identifier(name))
    throw ModelError(where, element,
                     "names must start with a letter or '_' and contain only letters, digits "
                     "and '_' (they become channel names such as 'name.x')");
  if (name == "ground" || name == "energy" || name == "system" || name == "t")
    throw ModelError(where, element, fmt::format("'{}' is a reserved name", name));
  if (const auto it = names_.find(name); it != names_.end())
    throw ModelError(where, element,
                     fmt::format("the name '{}' is already used by a {}", name, it->second));
  names_.emplace(name, element.substr(0, element.find(' ')));
}

namespace {
// A name claimed for an element that is being added, released again if
// adding it throws (the element was invalid): a corrected element can then
// be added under the same name, as the Python API's users do after an error.
class PendingName {
 public:
  PendingName(std::map<std::string, std::string, std::less<>>& names, std::string name)
      : names_(names), name_(std::move(name)) {}
  PendingName(const PendingName&) = delete;
  PendingName& operator=(const PendingName&) = delete;
  ~PendingName() {
    if (!kept_) names_.erase(name_);
  }
  void keep() { kept_ = true; }

 private:
  std::map<std::string, std::string, std::less<>>& names_;
  std::string name_;
  bool kept_ = false;
};
}  // namespace

BodyIndex Model::add_body(Body body) {
  const std::string element = fmt::format("body '{}'", body.name);
  claim_name(body.name, element, body.where);
  PendingName pending(names_, body.name);
  body.validate();
  pending.keep();
  bodies_.push_back(std::move(body));
  return static_cast<BodyIndex>(bodies_.size() - 1);
}

int Model::add_joint(const std::string& name, const std::string& type, const std::string& base,
                     const std::string& follower, const JointPlacement& placement,
                     SourceLocation where) {
  Joint joint;
  joint.name = name;
  joint.type = type;
  joint.where = where;
  const std::string element = fmt::format("joint '{}'", name);
  joint.base = body_index(base, element, where);
  joint.follower = body_index(follower, element, where);
  place_joint(joint, placement, initial_position(joint.base), initial_orientation(joint.base),
              initial_position(joint.follower), initial_orientation(joint.follower));
  add_standard_constraints(joint);
  joint.angle_offset = placement.initial_angle;
  joint.translation_offset = placement.initial_position;
  return add_joint(std::move(joint));
}

namespace {
// Coulomb friction in a joint (docs/theory/friction.md): a slider's axis or a
// pin's radius gives the friction its direction and lever.
void validate_joint_friction(const Joint& joint) {
  const JointFriction& f = joint.friction;
  const std::string element = fmt::format("joint '{}'", joint.name);
  const SourceLocation& where = f.where.known() ? f.where : joint.where;
  if (!(f.mu >= 0.0) || !std::isfinite(f.mu))
    throw ModelError(
        where, element,
        fmt::format("friction coefficient 'mu' must be finite and >= 0, got {}", f.mu));
  if (f.mu_static >= 0.0 || !std::isfinite(f.mu_static)) {
    if (!std::isfinite(f.mu_static))
      throw ModelError(where, element,
                       fmt::format("'mu_static' must be finite, got {}", f.mu_static));
    if (f.mu_static < f.mu)
      throw ModelError(where, element,
                       fmt::format("the kinetic coefficient mu = {} exceeds the static one "
                                   "mu_static = {}; expected mu <= mu_static",
                                   f.mu, f.mu_static));
  }
  if (!(f.radius >= 0.0) || !std::isfinite(f.radius))
    throw ModelError(where, element,
                     fmt::format("friction 'radius' must be finite and >= 0, got {}", f.radius));
  const bool slider =
      joint.type == "prismatic" || joint.type == "cylindrical" || joint.type == "point_on_line";
  if (slider && f.radius > 0.0)
    throw ModelError(where, element,
                     fmt::format("a {} joint slides: its friction force is mu |N| along the "
                                 "axis, and 'radius' (the lever of a pin's friction moment) does "
                                 "not apply",
                                 joint.type));
  if (joint.type == "revolute" && !(f.radius > 0.0))
    throw ModelError(where, element,
                     "a revolute joint's friction moment is mu |N| r: give the pin 'radius' "
                     "(> 0) in 'friction: {mu: ..., radius: ...}'");
  if (joint.type == "spherical" && !(f.radius > 0.0))
    throw ModelError(where, element,
                     "a spherical joint's friction moment is mu |N| r, N its whole reaction "
                     "force: give the ball 'radius' (> 0) in 'friction: {mu: ..., radius: ...}'");
  if (!slider && joint.type != "revolute" && joint.type != "spherical")
    throw ModelError(where, element,
                     fmt::format("friction needs a sliding direction (prismatic, cylindrical, "
                                 "point_on_line) or a pin or ball radius (revolute, spherical); "
                                 "a {} joint has neither",
                                 joint.type));
}
}  // namespace

int Model::add_joint(Joint joint) {
  const std::string element = fmt::format("joint '{}'", joint.name);
  claim_name(joint.name, element, joint.where);
  PendingName pending(names_, joint.name);
  if (joint.base == joint.follower)
    throw ModelError(
        joint.where, element,
        fmt::format("a joint needs two different bodies, got '{}' twice", body_name(joint.base)));
  if (joint.members.empty())
    throw ModelError(joint.where, element, "a joint needs at least one elementary constraint");
  if (joint.capture) {
    const auto types = standard_joint_types();
    if (std::find(types.begin(), types.end(), joint.type) == types.end())
      throw ModelError(joint.where, element,
                       fmt::format("'capture' applies to the standard joint types ({}), whose "
                                   "constraints are rebuilt from the frames when the joint "
                                   "closes; '{}' is not one",
                                   internal::join_names(types), joint.type));
  }
  for (const BodyIndex b : {joint.base, joint.follower})
    if (b != kGround && (b < 0 || b >= static_cast<BodyIndex>(bodies_.size())))
      throw ModelError(joint.where, element, fmt::format("body index {} does not exist", b));
  if (joint.friction.present) validate_joint_friction(joint);
  pending.keep();
  joints_.push_back(std::move(joint));
  return static_cast<int>(joints_.size() - 1);
}

void Model::add_force(std::unique_ptr<ForceElement> force) {
  claim_name(force->name(), force->element_label(), force->where());
  PendingName pending(names_, force->name());
  for (const BodyIndex b : force->bodies())
    if (b != kGround && (b < 0 || b >= static_cast<BodyIndex>(bodies_.size())))
      throw ModelError(force->where(), force->element_label(),
                       fmt::format("body index {} does not exist", b));
  pending.keep();
  forces_.push_back(std::move(force));
}

void Model::add_driver(Driver driver) {
  const std::string element = fmt::format("driver '{}'", driver.name);
  claim_name(driver.name, element, driver.where);
  PendingName pending(names_, driver.name);
  const int j = find_joint(driver.joint);
  if (j < 0) {
    std::vector<std::string> names;
    for (const Joint& jt : joints_) names.push_back(jt.name);
    throw ModelError(
        driver.where, element,
        fmt::format("unknown joint '{}'{}; known joints: {}", driver.joint,
                    internal::did_you_mean(driver.joint, names), internal::join_names(names)));
  }
  const Joint& joint = joints_[static_cast<std::size_t>(j)];
  if (joint.capture)
    throw ModelError(driver.where, element,
                     fmt::format("joint '{}' is a capture joint (its frame is taken when it "
                                 "closes); it cannot carry a driver",
                                 joint.name));
  if (driver.coordinate == Driver::Coordinate::kAngle && !joint.has_angle)
    throw ModelError(driver.where, element,
                     fmt::format("joint '{}' ({}) has no rotation coordinate to drive; an angle "
                                 "driver needs a revolute, cylindrical or planar joint",
                                 joint.name, joint.type));
  if (driver.coordinate == Driver::Coordinate::kTranslation && !joint.has_translation)
    throw ModelError(
        driver.where, element,
        fmt::format("joint '{}' ({}) has no translation coordinate to drive; a "
                    "position driver needs a prismatic, cylindrical or point_on_line joint",
                    joint.name, joint.type));
  pending.keep();
  drivers_.push_back(std::move(driver));
}

void Model::add_contact(JointLimitContact contact) {
  const std::string element = fmt::format("contact '{}'", contact.name);
  claim_name(contact.name, element, contact.where);
  PendingName pending(names_, contact.name);
  const int j = find_joint(contact.joint);
  if (j < 0) {
    std::vector<std::string> names;
    for (const Joint& jt : joints_) names.push_back(jt.name);
    throw ModelError(
        contact.where, element,
        fmt::format("unknown joint '{}'{}; known joints: {}", contact.joint,
                    internal::did_you_mean(contact.joint, names), internal::join_names(names)));
  }
  const Joint& joint = joints_[static_cast<std::size_t>(j)];
  using Coordinate = JointLimitContact::Coordinate;
  if (contact.coordinate == Coordinate::kAuto) {
    if (joint.has_translation && joint.has_angle)
      throw ModelError(contact.where, element,
                       fmt::format("joint '{}' ({}) has a translation and an angle: say which one "
                                   "is limited ('coordinate: translation' or 'coordinate: angle')",
                                   joint.name, joint.type));
    if (joint.has_translation) contact.coordinate = Coordinate::kTranslation;
    if (joint.has_angle) contact.coordinate = Coordinate::kAngle;
  }
  const bool angle = contact.coordinate == Coordinate::kAngle;
  if ((contact.coordinate == Coordinate::kAuto) || (angle && !joint.has_angle) ||
      (!angle && contact.coordinate == Coordinate::kTranslation && !joint.has_translation))
    throw ModelError(
        contact.where, element,
        fmt::format("joint '{}' ({}) has no {} coordinate to limit; a joint limit needs the "
                    "translation of a prismatic or cylindrical joint or the angle of a revolute "
                    "or cylindrical joint",
                    joint.name, joint.type,
                    contact.coordinate == Coordinate::kAuto ? "translation or angle"
                    : angle                                 ? "angle"
                                                            : "translation"));
  if (!contact.lower && !contact.upper)
    throw ModelError(contact.where, element, "a joint limit needs 'lower', 'upper' or both");
  if (contact.lower && contact.upper && !(*contact.lower <= *contact.upper))
    throw ModelError(
        contact.where, element,
        fmt::format("'lower' ({}) must not exceed 'upper' ({})", *contact.lower, *contact.upper));
  if (!(contact.restitution >= 0.0 && contact.restitution <= 1.0))
    throw ModelError(contact.where, element,
                     fmt::format("restitution must be in [0, 1], got {}", contact.restitution));
  if (!(contact.accumulation_time > 0.0))
    throw ModelError(
        contact.where, element,
        fmt::format("accumulation_time must be > 0, got {}", contact.accumulation_time));
  pending.keep();
  contacts_.push_back(std::move(contact));
}

const char* shape_type_name(Shape::Type type) {
  switch (type) {
    case Shape::Type::kSphere:
      return "sphere";
    case Shape::Type::kBox:
      return "box";
    case Shape::Type::kCapsule:
      return "capsule";
    case Shape::Type::kPlane:
      return "plane";
  }
  return "?";
}

void Model::add_shape(Shape shape) {
  const std::string element = fmt::format("shape '{}'", shape.name);
  claim_name(shape.name, element, shape.where);
  PendingName pending(names_, shape.name);
  if (shape.body != kGround &&
      (shape.body < 0 || shape.body >= static_cast<BodyIndex>(bodies_.size())))
    throw ModelError(shape.where, element, fmt::format("body index {} does not exist", shape.body));
  using Type = Shape::Type;
  if ((shape.type == Type::kSphere || shape.type == Type::kCapsule) && !(shape.radius > 0.0))
    throw ModelError(shape.where, element,
                     fmt::format("'radius' must be > 0, got {}", shape.radius));
  if (shape.type == Type::kBox && !(shape.half_extents.minCoeff() > 0.0))
    throw ModelError(shape.where, element,
                     fmt::format("every side of a box ('size') must be > 0, got [{}, {}, {}]",
                                 2 * shape.half_extents.x(), 2 * shape.half_extents.y(),
                                 2 * shape.half_extents.z()));
  if (shape.type == Type::kCapsule && !(shape.half_length > 0.0))
    throw ModelError(
        shape.where, element,
        fmt::format("a capsule's 'length' must be > 0, got {}", 2 * shape.half_length));
  pending.keep();
  shapes_.push_back(std::move(shape));
}

void Model::add_shape_contact(ShapeContact contact) {
  check_shape_contact(contact);
  claim_name(contact.name, fmt::format("contact '{}'", contact.name), contact.where);
  shape_contacts_.push_back(std::move(contact));
}

void Model::check_shape_contact(const ShapeContact& contact) const {
  const std::string element = fmt::format("contact '{}'", contact.name);
  const BodyIndex a = body_index(contact.body_a, element, contact.where);
  const BodyIndex b = body_index(contact.body_b, element, contact.where);
  if (a == b)
    throw ModelError(
        contact.where, element,
        fmt::format("a contact needs two different bodies, got '{}' twice", contact.body_a));
  if (!(contact.restitution >= 0.0 && contact.restitution <= 1.0))
    throw ModelError(contact.where, element,
                     fmt::format("restitution must be in [0, 1], got {}", contact.restitution));
  using Type = Shape::Type;
  int pairs = 0;
  for (const Shape& sa : shapes_) {
    if (sa.body != a) continue;
    for (const Shape& sb : shapes_) {
      if (sb.body != b) continue;
      const bool plane_a = sa.type == Type::kPlane;
      const bool plane_b = sb.type == Type::kPlane;
      const bool spheres = sa.type == Type::kSphere && sb.type == Type::kSphere;
      if (spheres || plane_a != plane_b) {
        ++pairs;
        continue;
      }
      throw ModelError(
          contact.where, element,
          fmt::format("no contact between a {} ('{}') and a {} ('{}'): supported are "
                      "sphere-plane, sphere-sphere, box-plane and capsule-plane",
                      shape_type_name(sa.type), sa.name, shape_type_name(sb.type), sb.name));
    }
  }
  if (pairs == 0)
    throw ModelError(contact.where, element,
                     fmt::format("'{}' and '{}' need shapes (`shapes:`) to touch", contact.body_a,
                                 contact.body_b));
  if (contact.friction.present) check_contact_friction(contact, a, b);
}

// Coulomb friction at a contact (docs/theory/friction.md, "Friction at
// contacts"): its coefficients, and the pairs whose slip is a tangent row.
void Model::check_contact_friction(const ShapeContact& contact, BodyIndex a, BodyIndex b) const {
  const std::string element = fmt::format("contact '{}'", contact.name);
  const ContactFriction& f = contact.friction;
  const SourceLocation& where = f.where.known() ? f.where : contact.where;
  if (!(f.mu >= 0.0) || !std::isfinite(f.mu))
    throw ModelError(
        where, element,
        fmt::format("friction coefficient 'mu' must be finite and >= 0, got {}", f.mu));
  if (f.mu_static != -1.0) {
    if (!(f.mu_static >= 0.0) || !std::isfinite(f.mu_static))
      throw ModelError(where, element,
                       fmt::format("'mu_static' must be finite and >= 0, got {}", f.mu_static));
    if (f.mu_static < f.mu)
      throw ModelError(where, element,
                       fmt::format("the kinetic coefficient mu = {} exceeds the static one "
                                   "mu_static = {}; expected mu <= mu_static",
                                   f.mu, f.mu_static));
  }
  using Type = Shape::Type;
  for (const Shape& sa : shapes_) {
    if (sa.body != a) continue;
    for (const Shape& sb : shapes_) {
      if (sb.body != b) continue;
      if (sa.type == Type::kSphere && sb.type == Type::kSphere)
        throw ModelError(where, element,
                         "friction between two spheres is not built (contact friction needs a "
                         "plane: sphere, box or capsule on a plane)");
      // a rounded shape on a body that turns rolls: its contact point is
      // not a point of the body, and its slip is not a tangent row's rate
      const Shape& other = sa.type == Type::kPlane ? sb : sa;
      const bool rounded = other.type == Type::kSphere || other.type == Type::kCapsule;
      if (rounded && other.body != kGround &&
          !bodies_[static_cast<std::size_t>(other.body)].point_mass)
        throw ModelError(
            where, element,
            fmt::format("friction at a {} ('{}') on a body that turns is not built (it would "
                        "roll); make '{}' a point mass ('point_mass: true'), or use a box",
                        shape_type_name(other.type), other.name,
                        bodies_[static_cast<std::size_t>(other.body)].name));
    }
  }
}

void Model::add_event(Event event) {
  const auto dot = event.name.find('.');
  if (dot == std::string::npos) {
    claim_name(event.name, fmt::format("event '{}'", event.name), event.where);
  } else if (names_.find(event.name.substr(0, dot)) == names_.end()) {
    throw ModelError(event.where, fmt::format("event '{}'", event.name),
                     "a generated event must be named '<element>.<what>' after an existing "
                     "element");
  }
  events_.push_back(std::move(event));
}

void Model::set_initially_enabled(const std::string& element, bool on) {
  std::erase(initially_disabled_, element);
  if (!on) initially_disabled_.push_back(element);
}

void Model::add_given_velocity(GivenVelocity given) {
  given_.push_back(std::move(given));
}

void Model::add_marker(Marker marker) {
  const std::string element = fmt::format("marker '{}'", marker.name);
  claim_name(marker.name, element, marker.where);
  PendingName pending(names_, marker.name);
  if (marker.body != kGround &&
      (marker.body < 0 || marker.body >= static_cast<BodyIndex>(bodies_.size())))
    throw ModelError(marker.where, element,
                     fmt::format("body index {} does not exist", marker.body));
  if (!marker.point_B.allFinite()) throw ModelError(marker.where, element, "point must be finite");
  pending.keep();
  markers_.push_back(std::move(marker));
}

void Model::set_gravity(const Vec3& g, SourceLocation where) {
  if (!g.allFinite()) throw ModelError(where, "gravity", "gravity must be finite");
  gravity_ = g;
  for (auto& f : forces_)
    if (f->kind() == "gravity") {
      f = std::make_unique<Gravity>(g, where);
      return;
    }
  names_.emplace("gravity", "force");
  forces_.push_back(std::make_unique<Gravity>(g, where));
}

void Model::set_parameter(const std::string& name, double value) {
  if (!is_identifier(name))
    throw ModelError({}, fmt::format("parameter '{}'", name),
                     "parameter names must be identifiers");
  parameters_[name] = value;
}

BodyIndex Model::body_index(const std::string& name, const std::string& element,
                            const SourceLocation& where) const {
  if (name == "ground") return kGround;
  for (std::size_t i = 0; i < bodies_.size(); ++i)
    if (bodies_[i].name == name) return static_cast<BodyIndex>(i);
  std::vector<std::string> names{"ground"};
  for (const Body& b : bodies_) names.push_back(b.name);
  throw ModelError(where, element,
                   fmt::format("unknown body '{}'{}; known bodies: {}", name,
                               internal::did_you_mean(name, names), internal::join_names(names)));
}

int Model::find_joint(const std::string& name) const {
  for (std::size_t i = 0; i < joints_.size(); ++i)
    if (joints_[i].name == name) return static_cast<int>(i);
  return -1;
}

const std::string& Model::body_name(BodyIndex b) const {
  static const std::string kGroundName = "ground";
  return b == kGround ? kGroundName : bodies_[static_cast<std::size_t>(b)].name;
}

Vec3 Model::initial_position(BodyIndex b) const {
  return b == kGround ? Vec3::Zero() : bodies_[static_cast<std::size_t>(b)].position;
}

Quat Model::initial_orientation(BodyIndex b) const {
  return b == kGround ? Quat::Identity() : bodies_[static_cast<std::size_t>(b)].orientation;
}

void Model::validate() const {
  internal::check_point_mass_joints(*this);
  // event targets: forces, drivers, joints, or "<joint>.<member label>"
  std::vector<std::string> targets;
  for (const auto& f : forces_) targets.push_back(f->name());
  for (const Driver& d : drivers_) targets.push_back(d.name);
  for (const Joint& j : joints_) {
    targets.push_back(j.name);
    for (const JointMember& m : j.members) targets.push_back(j.name + "." + m.label);
  }
  for (const Joint& j : joints_)
    for (const JointMember& m : j.members)
      if (!(m.restitution >= 0.0 && m.restitution <= 1.0))
        throw ModelError(
            j.where, fmt::format("joint '{}'", j.name),
            fmt::format("restitution of '{}' must be in [0, 1], got {}", m.label, m.restitution));
  for (const std::string& name : initially_disabled_)
    if (std::find(targets.begin(), targets.end(), name) == targets.end())
      throw ModelError({}, fmt::format("element '{}'", name),
                       fmt::format("cannot be switched off: no such switchable element{}",
                                   internal::did_you_mean(name, targets)));
  for (const Event& e : events_)
    for (const auto* list : {&e.on_true, &e.on_false})
      for (const Action& a : *list) {
        if (a.kind == Action::Kind::kStop) continue;
        if (a.kind == Action::Kind::kImpulse) {
          (void)body_index(a.target, fmt::format("event '{}'", e.name),
                           a.where.known() ? a.where : e.where);
          if (!a.linear_impulse.allFinite() || !a.angular_impulse.allFinite() ||
              !a.point_B.allFinite())
            throw ModelError(a.where.known() ? a.where : e.where, fmt::format("event '{}'", e.name),
                             "impulses must be finite");
          continue;
        }
        if (std::find(targets.begin(), targets.end(), a.target) == targets.end())
          throw ModelError(a.where.known() ? a.where : e.where, fmt::format("event '{}'", e.name),
                           fmt::format("unknown element '{}'{}; switchable elements: {}", a.target,
                                       internal::did_you_mean(a.target, targets),
                                       internal::join_names(targets)));
      }
  if (!(settings_.until > settings_.start))
    throw ModelError(settings_.where, "simulate",
                     fmt::format("'until' ({}) must be later than 'start' ({})", settings_.until,
                                 settings_.start));
  if (!(settings_.output_step > 0.0))
    throw ModelError(settings_.where, "simulate", "'output_step' must be positive");
  // a typo such as 1e-300 or until: 1e300 would write samples until the disk is full
  constexpr double kMaxSamples = 1e8;
  const double samples = (settings_.until - settings_.start) / settings_.output_step;
  if (!(samples <= kMaxSamples))
    throw ModelError(
        settings_.where, "simulate",
        fmt::format("'output_step' {:g} s from 'start' {:g} s to 'until' {:g} s "
                    "would write {:.3g} samples, more than the limit of {:g}; make "
                    "'output_step' larger or the run shorter",
                    settings_.output_step, settings_.start, settings_.until, samples, kMaxSamples));
  const IntegratorSettings& in = settings_.integrator;
  validate_integrator(in);
  // SUNDIALS' solvers need a mechanical state to integrate (found by the
  // fuzzer: a model whose bodies were all lost to a comment stopped with an
  // internal error)
  if ((in.name == "cvode" || in.name == "ida") && bodies_.empty())
    throw ModelError(in.where, "simulate",
                     fmt::format("integrator '{}' needs at least one body, and the model has "
                                 "none; add bodies, or use dopri5",
                                 in.name));
  // settings that cannot finish in any reasonable number of steps (issue 9:
  // max_step 1e-12 s was accepted and needed 10^12 steps)
  if (!(settings_.max_steps >= 1.0))
    throw ModelError(
        settings_.max_steps_where.known() ? settings_.max_steps_where : settings_.where, "simulate",
        fmt::format("'max_steps' ({}) must be >= 1", settings_.max_steps));
  if (!(settings_.energy_tolerance >= 0.0))
    throw ModelError(settings_.energy_tolerance_where.known() ? settings_.energy_tolerance_where
                                                              : settings_.where,
                     "simulate",
                     fmt::format("'energy_tolerance' ({}) must be positive (a fraction of the "
                                 "largest kinetic + potential energy)",
                                 settings_.energy_tolerance));
  const StabilisationSettings& st = settings_.stabilisation;
  if (!(st.baumgarte_position >= 0.0) || !(st.baumgarte_velocity >= 0.0))
    throw ModelError(settings_.where, "stabilisation", "Baumgarte gains must be >= 0");
}

}  // namespace ictus
