// The model-file loader: YAML -> Model. docs/model-file.md is the reference
// of the format; every key read here is documented there.
#include "ictus/model_file.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <unordered_map>

#include "../dependency_order.h"
#include "../text_util.h"
#include "contacts_reader.h"
#include "ictus/constraints/distance.h"
#include "ictus/constraints/perpendicular.h"
#include "ictus/constraints/point_coincidence.h"
#include "ictus/constraints/point_on_plane.h"
#include "ictus/constraints/rotation_lock.h"
#include "ictus/forces/joint_spring_damper.h"
#include "ictus/forces/point_load.h"
#include "ictus/forces/spring_damper.h"
#include "ictus/orientation_angles.h"
#include "yaml_reader.h"

namespace ictus {

using internal::FileContext;
using internal::MapReader;

namespace {

// ---------------------------------------------------------------------------
// parameters

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

bool is_identifier(const std::string& s) {
  return !s.empty() && is_name_start(s[0]) && std::all_of(s.begin(), s.end(), is_name_char);
}

// The names in a formula (parameters, functions); the exponent of a number
// such as 2e-3 is not a name.
std::vector<std::string> identifiers_in(const std::string& text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_name_start(text[i])) {
      ++i;
      continue;
    }
    const char before = i > 0 ? text[i - 1] : ' ';
    const bool exponent = std::isdigit(static_cast<unsigned char>(before)) != 0 || before == '.';
    std::size_t j = i;
    while (j < text.size() && is_name_char(text[j])) ++j;
    if (!exponent) out.push_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

struct ParameterText {
  std::string text;
  SourceLocation where;
};

// Resolves parameters that refer to each other: a depth-first walk with an
// explicit stack (no recursion, so any depth of reference chain is safe) that
// evaluates each parameter after the ones its formula names, in time linear in
// the total length of the formulas.
class ParameterResolver {
 public:
  /// `outer`: values the formulas may also name (the model's parameters and
  /// the index, for the parameters of an instance).
  explicit ParameterResolver(std::vector<std::pair<std::string, ParameterText>> texts,
                             const internal::ParameterValues* outer = nullptr)
      : texts_(std::move(texts)), outer_(outer) {
    index_.reserve(texts_.size());
    for (std::size_t i = 0; i < texts_.size(); ++i) index_.emplace(texts_[i].first, i);
    dependencies_.resize(texts_.size());
    for (std::size_t i = 0; i < texts_.size(); ++i)
      for (const std::string& word : identifiers_in(texts_[i].second.text))
        if (const auto it = index_.find(word); it != index_.end())
          dependencies_[i].push_back(it->second);  // a self-reference is a cycle
  }

  internal::ParameterValues resolve() {
    std::vector<double> values(texts_.size(), 0.0);
    for (const std::size_t i : internal::dependency_order(
             dependencies_, [&](std::span<const std::size_t> chain) { throw_cycle(chain); }))
      values[i] = evaluate(i, values);
    internal::ParameterValues out;
    for (std::size_t i = 0; i < texts_.size(); ++i)
      out.emplace_hint(out.end(), texts_[i].first, values[i]);
    return out;
  }

 private:
  // `chain`: parameters each naming the next, the last naming the first.
  [[noreturn]] void throw_cycle(std::span<const std::size_t> chain) const {
    std::string names;
    for (const std::size_t k : chain) names += texts_[k].first + " -> ";
    const auto& [name, text] = texts_[chain.front()];
    throw ModelError(text.where, fmt::format("parameter '{}'", name),
                     fmt::format("parameters refer to each other in a cycle: {}{}", names, name));
  }

  // Evaluates parameter i with the values of the parameters it names (all
  // resolved by now), so each formula sees only what it mentions.
  double evaluate(std::size_t i, const std::vector<double>& values) const {
    const auto& [name, text] = texts_[i];
    const std::string element = fmt::format("parameter '{}'", name);
    internal::ParameterValues known;
    for (const std::size_t dep : dependencies_[i]) known.emplace(texts_[dep].first, values[dep]);
    if (outer_ != nullptr)
      for (const std::string& word : identifiers_in(text.text))
        if (const auto it = outer_->find(word); it != outer_->end()) known.emplace(*it);
    try {
      return internal::evaluate_constant(Expression(text.text, text.where), known, element);
    } catch (const ModelError&) {
      // the other parameters stand in for suggestions ("did you mean") only
      for (const auto& [n, t] : texts_) known.emplace(n, std::numeric_limits<double>::quiet_NaN());
      if (outer_ != nullptr) known.insert(outer_->begin(), outer_->end());
      (void)internal::evaluate_constant(Expression(text.text, text.where), known, element);
      throw;
    }
  }

  std::vector<std::pair<std::string, ParameterText>> texts_;
  const internal::ParameterValues* outer_;
  std::unordered_map<std::string, std::size_t> index_;
  std::vector<std::vector<std::size_t>> dependencies_;
};

using ParameterTexts = std::vector<std::pair<std::string, ParameterText>>;

// The names and formulas of a `parameters` mapping, checked.
ParameterTexts read_parameter_texts(const YAML::Node& node, const FileContext& ctx) {
  ParameterTexts texts;
  if (node) {
    const MapReader check(node, ctx, "parameters");  // validates the mapping
    for (const auto& kv : node) {
      const std::string name = kv.first.Scalar();
      const std::string element = fmt::format("parameter '{}'", name);
      if (!is_identifier(name))
        throw ModelError(ctx.at(kv.first), element,
                         "parameter names must start with a letter or '_' and contain only "
                         "letters, digits and '_'");
      if (name.size() > internal::kMaxNameLength)
        throw ModelError(ctx.at(kv.first), fmt::format("parameter '{}...'", name.substr(0, 20)),
                         fmt::format("a parameter name has at most {} characters, this one has {}",
                                     internal::kMaxNameLength, name.size()));
      if (internal::is_reserved_name(name))
        throw ModelError(ctx.at(kv.first), element,
                         fmt::format("'{}' is reserved (time, constants and functions)", name));
      if (!kv.second.IsScalar() || kv.second.Scalar().empty())
        throw ModelError(
            ctx.at(kv.second), element,
            fmt::format("expected a number or a formula, got {}", internal::describe(kv.second)));
      texts.push_back({name, {kv.second.Scalar(), ctx.text_at(kv.second)}});
    }
  }
  return texts;
}

void read_parameters(const YAML::Node& node, const ParameterOverrides& overrides, FileContext& ctx,
                     Model& model) {
  ParameterTexts texts = read_parameter_texts(node, ctx);
  for (const auto& [name, value] : overrides) {
    auto it = std::find_if(texts.begin(), texts.end(),
                           [&name = name](const auto& p) { return p.first == name; });
    if (it == texts.end()) {
      std::vector<std::string> names;
      for (const auto& p : texts) names.push_back(p.first);
      throw ModelError(
          {"--set", 0, 0}, fmt::format("parameter '{}'", name),
          fmt::format("the model has no parameter '{}'{}; its parameters are: {}", name,
                      internal::did_you_mean(name, names), internal::join_names(names, 40)));
    }
    it->second = {value, {fmt::format("--set {}={}", name, value), 0, 0}};
  }
  ctx.parameters = ParameterResolver(std::move(texts)).resolve();
  for (const auto& [name, value] : ctx.parameters) model.set_parameter(name, value);
}

// ---------------------------------------------------------------------------
// bodies

Mat3 read_inertia(const YAML::Node& node, const FileContext& ctx, const std::string& element) {
  auto num = [&](const YAML::Node& n) { return internal::read_number(n, ctx, element, "inertia"); };
  Mat3 j = Mat3::Zero();
  if (node.IsSequence() && node.size() == 3 && node[0].IsSequence()) {
    for (std::size_t r = 0; r < 3; ++r) {
      if (!node[r].IsSequence() || node[r].size() != 3)
        throw ModelError(ctx.at(node[r]), element, "inertia matrix rows must have three numbers");
      for (std::size_t c = 0; c < 3; ++c)
        j(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = num(node[r][c]);
    }
    return j;
  }
  if (node.IsSequence() && node.size() == 3) {
    // each number read before it is stored: an Eigen comma initializer left
    // unfinished by an exception asserts
    for (std::size_t k = 0; k < 3; ++k)
      j(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(k)) = num(node[k]);
    return j;
  }
  if (node.IsSequence() && node.size() == 6) {
    j(0, 0) = num(node[0]);
    j(1, 1) = num(node[1]);
    j(2, 2) = num(node[2]);
    j(0, 1) = j(1, 0) = num(node[3]);
    j(0, 2) = j(2, 0) = num(node[4]);
    j(1, 2) = j(2, 1) = num(node[5]);
    return j;
  }
  throw ModelError(ctx.at(node), element,
                   fmt::format("'inertia' must be [Jxx, Jyy, Jzz], [Jxx, Jyy, Jzz, Jxy, Jxz, Jyz] "
                               "(tensor entries) or a 3x3 matrix, got {}",
                               internal::describe(node)));
}

// orientation: {bryant: [a, b, c]} (R = Rx Ry Rz) or {euler: [phi, theta, psi]}
// (R = Rz Rx Rz), angles in rad (formulas: 30*deg); docs/model-file.md. Three
// angles under another name (cardan, xyz, zyz, ...) are a convention ictus
// does not guess.
std::optional<Quat> read_orientation_angles(const YAML::Node& node, const FileContext& ctx,
                                            const std::string& element) {
  if (node.IsMap())
    for (const auto& kv : node) {
      const std::string key = kv.first.as<std::string>();
      if (key == "bryant" || key == "euler") {
        const Vec3 angles = internal::read_vec3(kv.second, ctx, element, key);
        if (node.size() != 1)
          throw ModelError(ctx.at(kv.first), element,
                           fmt::format("orientation: give '{}' alone (no other key)", key));
        return key == "bryant" ? quat_from_bryant(angles) : quat_from_euler_zxz(angles);
      }
      if (key != "axis" && key != "matrix" && kv.second.IsSequence() && kv.second.size() == 3)
        throw ModelError(ctx.at(kv.first), element,
                         fmt::format("orientation: '{}' is not an angle convention; give "
                                     "'bryant: [a, b, c]' (x-y-z, R = Rx(a) Ry(b) Rz(c)) or "
                                     "'euler: [phi, theta, psi]' (z-x-z, R = Rz Rx Rz), in rad",
                                     key));
    }
  return std::nullopt;
}

Quat read_orientation(const YAML::Node& node, const FileContext& ctx, const std::string& element) {
  if (const std::optional<Quat> q = read_orientation_angles(node, ctx, element)) return *q;
  MapReader r(node, ctx, element + " orientation");
  if (r.has("quaternion")) {
    const YAML::Node q = r.get("quaternion");
    if (!q.IsSequence() || q.size() != 4)
      throw ModelError(ctx.at(q), element, "'quaternion' must be [w, x, y, z]");
    double c[4];
    for (std::size_t k = 0; k < 4; ++k)
      c[k] = internal::read_number(q[k], ctx, element, "quaternion");
    const Quat quat(c[0], c[1], c[2], c[3]);
    if (std::abs(quat.norm() - 1.0) > 1e-9)
      throw ModelError(
          ctx.at(q), element,
          fmt::format("'quaternion' must have unit norm, its norm is {:.12g}", quat.norm()));
    r.finish();
    return quat;
  }
  if (r.has("matrix")) {
    const YAML::Node m = r.get("matrix");
    Mat3 rot;
    if (!m.IsSequence() || m.size() != 3)
      throw ModelError(ctx.at(m), element, "'matrix' must be three rows of three numbers");
    for (std::size_t i = 0; i < 3; ++i)
      rot.row(static_cast<Eigen::Index>(i)) =
          internal::read_vec3(m[i], ctx, element, "matrix row").transpose();
    if ((rot.transpose() * rot - Mat3::Identity()).norm() > 1e-9 || rot.determinant() < 0.0)
      throw ModelError(ctx.at(m), element,
                       "'matrix' must be a rotation matrix (orthonormal, determinant +1)");
    r.finish();
    return Quat(rot);
  }
  const Vec3 axis = r.required_unit_vec3("axis");
  double angle = 0.0;
  if (r.has("angle_deg") && r.has("angle"))
    throw ModelError(r.where(), element, "give 'angle' [rad] or 'angle_deg', not both");
  if (r.has("angle_deg")) {
    angle = r.required_number("angle_deg") * kPi / 180.0;
  } else {
    angle = r.required_number("angle");
  }
  r.finish({"quaternion", "matrix", "angle", "angle_deg", "bryant", "euler"});
  return quat_from_axis_angle(axis, angle);
}

void read_bodies(const YAML::Node& node, const FileContext& ctx, Model& model) {
  if (!node) return;
  const MapReader check(node, ctx, "bodies");
  for (const auto& kv : node) {
    const std::string name = ctx.text(kv.first);
    const std::string element = fmt::format("body '{}'", name);
    MapReader r(kv.second, ctx, element);
    Body b;
    b.name = name;
    b.where = ctx.at(kv.first);
    const YAML::Node mass_node = r.required("mass", "a positive number [kg]");
    b.mass = internal::read_number(mass_node, ctx, element, "mass");
    b.point_mass = r.boolean("point_mass", false);
    YAML::Node inertia_node;
    if (b.point_mass) {
      if (r.has("inertia"))
        throw ModelError(ctx.at(r.get("inertia")), element,
                         "a point mass (point_mass: true) has no inertia; remove 'inertia'");
      if (r.has("angular_velocity"))
        throw ModelError(ctx.at(r.get("angular_velocity")), element,
                         "a point mass (point_mass: true) does not rotate; remove "
                         "'angular_velocity'");
      b.inertia = Mat3::Zero();
    } else {
      inertia_node = r.required("inertia", "[Jxx, Jyy, Jzz] [kg m^2], or point_mass: true");
      b.inertia = read_inertia(inertia_node, ctx, element);
    }
    b.position = r.vec3("position", Vec3::Zero());
    if (const YAML::Node o = r.get("orientation"))
      b.orientation = read_orientation(o, ctx, element);
    b.velocity = r.vec3("velocity", Vec3::Zero());
    b.angular_velocity = r.vec3("angular_velocity", Vec3::Zero());
    r.finish();
    try {
      model.add_body(b);
    } catch (const ModelError& e) {
      // point at the offending key rather than at the body
      if (e.detail().find("mass") == 0)
        throw ModelError(ctx.at(mass_node), e.element(), e.detail());
      if (inertia_node && e.detail().find("inertia") != std::string::npos)
        throw ModelError(ctx.at(inertia_node), e.element(), e.detail());
      throw;
    }
  }
}

// ---------------------------------------------------------------------------
// switching keys shared by joints, drivers and forces

void read_switching(MapReader& r, const std::string& name, Model& model,
                    std::vector<Event>& generated) {
  if (!r.boolean("enabled", true)) model.set_initially_enabled(name, false);
  auto condition = [&](const char* key) -> std::optional<Condition> {
    const auto e = r.optional_expression(key);
    if (!e) return std::nullopt;
    Condition c{*e};
    (void)split_condition(c, r.element());  // syntax errors now, with location
    return c;
  };
  auto action = [&](Action::Kind kind) {
    Action a;
    a.kind = kind;
    a.target = name;
    return a;
  };
  auto make = [&](const char* what, Condition c, std::vector<Action> on_true,
                  std::vector<Action> on_false, bool once) {
    Event e;
    e.name = name + "." + what;
    e.condition = std::move(c);
    e.on_true = std::move(on_true);
    e.on_false = std::move(on_false);
    e.once = once;
    e.where = r.where();
    generated.push_back(std::move(e));
  };
  using K = Action::Kind;
  if (auto c = condition("active_when"))
    make("active_when", *c, {action(K::kEnable)}, {action(K::kDisable)}, false);
  if (auto c = condition("until")) make("until", *c, {action(K::kDisable)}, {}, true);
  if (auto c = condition("after")) {
    model.set_initially_enabled(name, false);
    make("after", *c, {action(K::kEnable)}, {}, true);
  }
}

const std::vector<std::string> kSwitchingKeys = {"enabled", "active_when", "until", "after"};

// ---------------------------------------------------------------------------
// joints

std::pair<std::string, std::string> read_pair(MapReader& r, const std::string& key,
                                              const std::string& expected) {
  const YAML::Node n = r.required(key, expected);
  if (!n.IsSequence() || n.size() != 2 || !n[0].IsScalar() || !n[1].IsScalar())
    throw ModelError(r.context().at(n), r.element(),
                     fmt::format("'{}' must be {}, got {}", key, expected, internal::describe(n)));
  return {r.context().text(n[0]), r.context().text(n[1])};
}

// Builds the elementary constraints of a 'custom' joint (world geometry at t0).
void read_custom_members(const YAML::Node& list, const FileContext& ctx, const std::string& element,
                         const Model& model, Joint& joint, std::set<std::string>& restitution_set) {
  if (!list.IsSequence() || list.size() == 0)
    throw ModelError(ctx.at(list), element,
                     "'constraints' must be a list of elementary constraints");
  const Vec3 pb = model.initial_position(joint.base);
  const Mat3 Rb = model.initial_orientation(joint.base).toRotationMatrix();
  const Vec3 pf = model.initial_position(joint.follower);
  const Mat3 Rf = model.initial_orientation(joint.follower).toRotationMatrix();
  const Vec3 at = Rb * joint.frame_base.origin + pb;
  auto in_base = [&](const Vec3& p_W) -> Vec3 { return Rb.transpose() * (p_W - pb); };
  auto in_follower = [&](const Vec3& p_W) -> Vec3 { return Rf.transpose() * (p_W - pf); };
  static const std::vector<std::string> kTypes = {"point_on_plane", "rotation_lock",
                                                  "point_coincidence", "distance", "perpendicular"};
  for (std::size_t i = 0; i < list.size(); ++i) {
    MapReader r(list[i], ctx, fmt::format("{} constraint {}", element, i + 1));
    const std::string type = r.required_string("type", "an elementary constraint type");
    const std::string label = r.string("label", fmt::format("{}_{}", type, i));
    if (!is_identifier(label))
      throw ModelError(r.where(), r.element(), "'label' must be an identifier");
    std::shared_ptr<const ElementaryConstraint> c;
    if (type == "point_on_plane") {
      const Vec3 normal = r.required_unit_vec3("normal");
      const Vec3 point = r.vec3("point", at);
      const Vec3 plane_point = r.vec3("plane_point", point);
      c = std::make_shared<PointOnPlane>(in_base(plane_point), Rb.transpose() * normal,
                                         in_follower(point));
    } else if (type == "rotation_lock") {
      const Vec3 axis = r.required_unit_vec3("axis");
      c = std::make_shared<RotationLock>(Rb.transpose() * axis, Rf.transpose() * axis);
    } else if (type == "point_coincidence") {
      const Vec3 point = r.vec3("point", at);
      c = std::make_shared<PointCoincidence>(in_base(point), in_follower(point));
    } else if (type == "distance") {
      const YAML::Node pts = r.required("points", "[[base point], [follower point]]");
      if (!pts.IsSequence() || pts.size() != 2)
        throw ModelError(ctx.at(pts), r.element(), "'points' must be two points");
      const Vec3 a = internal::read_vec3(pts[0], ctx, r.element(), "points");
      const Vec3 b = internal::read_vec3(pts[1], ctx, r.element(), "points");
      const double length = r.positive("length", (b - a).norm());
      if ((b - a).norm() < 1e-12 && !r.has("length"))
        throw ModelError(ctx.at(pts), r.element(), "the two points of a distance coincide");
      c = std::make_shared<Distance>(in_base(a), in_follower(b), length);
    } else if (type == "perpendicular") {
      const Vec3 a = r.required_unit_vec3("axis");
      const Vec3 b = r.required_unit_vec3("follower_axis");
      if (std::abs(a.dot(b)) > 1e-9)
        throw ModelError(r.where(), r.element(),
                         "'axis' and 'follower_axis' must be perpendicular initially");
      c = std::make_shared<Perpendicular>(Rb.transpose() * a, Rf.transpose() * b);
    } else {
      throw ModelError(
          ctx.at(r.get("type")), r.element(),
          fmt::format("unknown elementary constraint '{}'{}; known: {}", type,
                      internal::did_you_mean(type, kTypes), internal::join_names(kTypes)));
    }
    double restitution = 0.0;
    if (const auto k = r.optional_number("restitution")) {
      if (!(*k >= 0.0 && *k <= 1.0))
        throw ModelError(ctx.at(r.get("restitution")), r.element(),
                         fmt::format("'restitution' must be in [0, 1], got {}", *k));
      restitution = *k;
      restitution_set.insert(label);
    }
    r.finish();  // keys of the other constraint types would be ignored: unknown here
    for (const JointMember& m : joint.members)
      if (m.label == label)
        throw ModelError(r.where(), r.element(), fmt::format("label '{}' is used twice", label));
    joint.members.push_back({c, label, restitution});
  }
}

// friction: mu, or friction: {mu: ..., mu_static: ..., radius: ...}
// (docs/theory/friction.md); the values are checked by Model::add_joint.
JointFriction read_joint_friction(const YAML::Node& node, const FileContext& ctx,
                                  const std::string& element) {
  JointFriction f;
  f.present = true;
  f.where = ctx.at(node);
  if (!node.IsMap()) {
    f.mu = internal::read_number(node, ctx, element, "friction");
    return f;
  }
  MapReader r(node, ctx, element + " friction");
  f.mu = r.required_number("mu");
  if (const auto s = r.optional_number("mu_static")) {
    if (*s < 0.0)
      throw ModelError(ctx.at(r.get("mu_static")), element,
                       fmt::format("'mu_static' must be >= 0, got {}", *s));
    f.mu_static = *s;
  }
  f.radius = r.number("radius", 0.0);
  if (r.has("radius") && !(f.radius > 0.0))
    throw ModelError(ctx.at(r.get("radius")), element,
                     fmt::format("friction 'radius' must be > 0, got {}", f.radius));
  r.finish();
  return f;
}

void read_joints(const YAML::Node& node, const FileContext& ctx, Model& model,
                 std::vector<Event>& generated) {
  if (!node) return;
  const MapReader check(node, ctx, "joints");
  static const std::set<std::string> kNeedAxis = {"revolute", "prismatic", "cylindrical",
                                                  "planar",   "universal", "point_on_line"};
  for (const auto& kv : node) {
    const std::string name = ctx.text(kv.first);
    const std::string element = fmt::format("joint '{}'", name);
    MapReader r(kv.second, ctx, element);
    Joint joint;
    std::set<std::string> member_restitution_set;  // members with their own restitution
    joint.name = name;
    joint.where = ctx.at(kv.first);
    const YAML::Node type_node = r.required("type", "a joint type");
    joint.type = r.required_string("type", "a joint type");
    const auto [base, follower] = read_pair(r, "between", "[base, follower] body names");
    joint.base = model.body_index(base, element, ctx.at(r.get("between")));
    joint.follower = model.body_index(follower, element, ctx.at(r.get("between")));
    if (joint.base == joint.follower)
      throw ModelError(ctx.at(r.get("between")), element,
                       fmt::format("a joint needs two different bodies, got '{}' twice", base));
    JointPlacement place;
    place.origin_W = r.required_vec3("at");
    const bool needs_axis = kNeedAxis.count(joint.type) != 0;
    const Vec3 axis =
        needs_axis ? r.required_unit_vec3("axis") : r.unit_vec3("axis", Vec3::UnitZ());
    Vec3 reference = r.vec3("reference", Vec3::Zero());
    if (r.has("reference") && reference.cross(axis).norm() < 1e-9 * std::max(1.0, reference.norm()))
      throw ModelError(ctx.at(r.get("reference")), element,
                       "'reference' must not be parallel to 'axis'");
    if (joint.type == "universal") {
      if (r.has("reference"))
        throw ModelError(ctx.at(r.get("reference")), element,
                         "a universal joint's frame is set by 'axis' and 'second_axis'; "
                         "'reference' does not apply");
      // x = the base's pin (axis), y = the follower's pin (second_axis)
      const Vec3 second = r.required_unit_vec3("second_axis");
      if (std::abs(second.dot(axis)) > 1e-9)
        throw ModelError(ctx.at(r.get("second_axis")), element,
                         "'second_axis' must be perpendicular to 'axis'");
      place.axes_W.col(0) = axis;
      place.axes_W.col(1) = second;
      place.axes_W.col(2) = axis.cross(second);
    } else {
      place.axes_W = frame_from_z(axis, reference);
    }
    place_joint(joint, place, model.initial_position(joint.base),
                model.initial_orientation(joint.base), model.initial_position(joint.follower),
                model.initial_orientation(joint.follower));
    if (r.has("initial_angle_deg")) {
      joint.angle_offset = r.required_number("initial_angle_deg") * kPi / 180.0;
    } else {
      joint.angle_offset = r.number("initial_angle", 0.0);
    }
    joint.translation_offset = r.number("initial_position", 0.0);
    if (joint.type == "custom") {
      read_custom_members(r.required("constraints", "a list of elementary constraints"), ctx,
                          element, model, joint, member_restitution_set);
    } else if (joint.type == "distance") {
      const YAML::Node pts = r.required("points", "[[base point], [follower point]]");
      if (!pts.IsSequence() || pts.size() != 2)
        throw ModelError(ctx.at(pts), element, "'points' must be two points [[x,y,z], [x,y,z]]");
      const Vec3 a = internal::read_vec3(pts[0], ctx, element, "points");
      const Vec3 b = internal::read_vec3(pts[1], ctx, element, "points");
      if ((b - a).norm() < 1e-12)
        throw ModelError(ctx.at(pts), element, "the two points of a distance joint coincide");
      const Mat3 Rb = model.initial_orientation(joint.base).toRotationMatrix();
      const Mat3 Rf = model.initial_orientation(joint.follower).toRotationMatrix();
      joint.members.push_back(
          {std::make_shared<Distance>(Rb.transpose() * (a - model.initial_position(joint.base)),
                                      Rf.transpose() * (b - model.initial_position(joint.follower)),
                                      (b - a).norm()),
           "distance"});
    } else {
      try {
        add_standard_constraints(joint);
      } catch (const ModelError& e) {
        throw ModelError(ctx.at(type_node), e.element(), e.detail());
      }
    }
    // offsets of coordinates the joint does not have would be silently ignored
    for (const char* key : {"initial_angle", "initial_angle_deg"})
      if (r.has(key) && !joint.has_angle)
        throw ModelError(ctx.at(r.get(key)), element,
                         fmt::format("a {} joint has no rotation coordinate; '{}' applies to "
                                     "revolute, cylindrical and planar joints",
                                     joint.type, key));
    if (r.has("initial_position") && !joint.has_translation)
      throw ModelError(ctx.at(r.get("initial_position")), element,
                       fmt::format("a {} joint has no translation coordinate; 'initial_position' "
                                   "applies to prismatic, cylindrical and point_on_line joints",
                                   joint.type));
    if (r.has("initial_angle") && r.has("initial_angle_deg"))
      throw ModelError(r.where(), element,
                       "give 'initial_angle' [rad] or 'initial_angle_deg', not both");
    joint.capture = r.boolean("capture", false);
    if (joint.capture && (joint.type == "custom" || joint.type == "distance"))
      throw ModelError(ctx.at(r.get("capture")), element,
                       "'capture' applies to the standard joint types, whose constraints are "
                       "rebuilt from the frames when the joint closes");
    // restitution when the joint closes with its velocities violated (seed 000 eq. 5)
    if (const auto k = r.optional_number("restitution")) {
      if (!(*k >= 0.0 && *k <= 1.0))
        throw ModelError(ctx.at(r.get("restitution")), element,
                         fmt::format("'restitution' must be in [0, 1], got {}", *k));
      for (JointMember& m : joint.members)
        if (!member_restitution_set.count(m.label)) m.restitution = *k;
    }
    if (r.has("friction")) joint.friction = read_joint_friction(r.get("friction"), ctx, element);
    read_switching(r, name, model, generated);
    r.finish();  // keys of the other joint types would be ignored: unknown here
    model.add_joint(std::move(joint));
  }
}

// ---------------------------------------------------------------------------
// drivers

void read_drivers(const YAML::Node& node, const FileContext& ctx, Model& model,
                  std::vector<Event>& generated) {
  if (!node) return;
  const MapReader check(node, ctx, "drivers");
  for (const auto& kv : node) {
    const std::string name = ctx.text(kv.first);
    const std::string element = fmt::format("driver '{}'", name);
    MapReader r(kv.second, ctx, element);
    Driver d;
    d.name = name;
    d.where = ctx.at(kv.first);
    d.joint = r.required_string("joint", "the name of the driven joint");
    if (r.has("angle") == r.has("position"))
      throw ModelError(r.where(), element,
                       "give exactly one of 'angle' (rotation, rad) or 'position' (translation, "
                       "m) as a formula of t");
    d.coordinate = r.has("angle") ? Driver::Coordinate::kAngle : Driver::Coordinate::kTranslation;
    d.motion.value = r.expression(r.has("angle") ? "angle" : "position");
    if (const auto rate = r.optional_expression("rate")) d.motion.rate_text = rate->text;
    if (const auto acc = r.optional_expression("acceleration"))
      d.motion.acceleration_text = acc->text;
    std::vector<std::string> known = {"joint", "angle", "position", "rate", "acceleration"};
    known.insert(known.end(), kSwitchingKeys.begin(), kSwitchingKeys.end());
    read_switching(r, name, model, generated);
    r.finish(known);
    try {
      model.add_driver(std::move(d));
    } catch (const ModelError& e) {
      // an unknown or unsuitable joint: point at the joint's name
      if (e.detail().find("joint '") == 0 || e.detail().find("unknown joint") == 0)
        throw ModelError(ctx.at(r.get("joint")), e.element(), e.detail());
      throw;
    }
  }
}

// ---------------------------------------------------------------------------
// forces: one reader per type, found by name

using ForceReader =
    std::function<std::unique_ptr<ForceElement>(MapReader&, const std::string&, const Model&)>;

std::unique_ptr<ForceElement> read_spring_damper(MapReader& r, const std::string& name,
                                                 const Model& model) {
  const FileContext& ctx = r.context();
  if (r.has("joint")) {
    JointSpringDamper::Parameters p;
    p.stiffness = r.positive("stiffness", 0.0, true);
    p.damping = r.positive("damping", 0.0, true);
    p.free_value = r.number("free_position", 0.0);
    p.preload = r.number("preload", 0.0);
    p.structural_damping = r.positive("structural_damping", 0.0, true);
    p.dry_friction = r.positive("dry_friction", 0.0, true);
    return std::make_unique<JointSpringDamper>(name, r.required_string("joint", "a joint name"),
                                               JointSpringDamper::Coordinate::kTranslation, p,
                                               r.where());
  }
  const auto [a, b] = read_pair(r, "between", "[body, body]");
  const BodyIndex ia = model.body_index(a, r.element(), ctx.at(r.get("between")));
  const BodyIndex ib = model.body_index(b, r.element(), ctx.at(r.get("between")));
  Vec3 pa = model.initial_position(ia);
  Vec3 pb = model.initial_position(ib);
  if (const YAML::Node pts = r.get("points")) {
    if (!pts.IsSequence() || pts.size() != 2)
      throw ModelError(ctx.at(pts), r.element(), "'points' must be two points [[x,y,z], [x,y,z]]");
    pa = internal::read_vec3(pts[0], ctx, r.element(), "points");
    pb = internal::read_vec3(pts[1], ctx, r.element(), "points");
  }
  SpringDamper::Parameters p;
  p.stiffness = r.positive("stiffness", 0.0, true);
  p.damping = r.positive("damping", 0.0, true);
  p.free_length = r.positive("free_length", (pb - pa).norm(), true);
  p.preload = r.number("preload", 0.0);
  p.structural_damping = r.positive("structural_damping", 0.0, true);
  p.dry_friction = r.positive("dry_friction", 0.0, true);
  const Mat3 Ra = model.initial_orientation(ia).toRotationMatrix();
  const Mat3 Rb = model.initial_orientation(ib).toRotationMatrix();
  return std::make_unique<SpringDamper>(
      name, ia, Ra.transpose() * (pa - model.initial_position(ia)), ib,
      Rb.transpose() * (pb - model.initial_position(ib)), p, r.where());
}

std::unique_ptr<ForceElement> read_rotational_spring_damper(MapReader& r, const std::string& name,
                                                            const Model&) {
  JointSpringDamper::Parameters p;
  p.stiffness = r.positive("stiffness", 0.0, true);
  p.damping = r.positive("damping", 0.0, true);
  p.free_value = r.has("free_angle_deg") ? r.required_number("free_angle_deg") * kPi / 180.0
                                         : r.number("free_angle", 0.0);
  p.preload = r.number("preload", 0.0);
  p.structural_damping = r.positive("structural_damping", 0.0, true);
  p.dry_friction = r.positive("dry_friction", 0.0, true);
  return std::make_unique<JointSpringDamper>(name, r.required_string("joint", "a joint name"),
                                             JointSpringDamper::Coordinate::kAngle, p, r.where());
}

std::unique_ptr<ForceElement> read_load(MapReader& r, const std::string& name, const Model& model,
                                        PointLoad::Kind kind) {
  const FileContext& ctx = r.context();
  const std::string on = r.required_string("on", "a body name");
  const BodyIndex b = model.body_index(on, r.element(), ctx.at(r.get("on")));
  const Vec3 p_body = model.initial_position(b);
  const Mat3 R = model.initial_orientation(b).toRotationMatrix();
  const Vec3 at = kind == PointLoad::Kind::kForce ? r.vec3("at", p_body) : p_body;
  const std::string frame = r.string("frame", "world");
  if (frame != "world" && frame != "body")
    throw ModelError(ctx.at(r.get("frame")), r.element(),
                     fmt::format("'frame' must be 'world' or 'body', got '{}'", frame));
  const auto axes = frame == "world" ? PointLoad::Axes::kWorld : PointLoad::Axes::kBody;
  if (r.has("components") == r.has("value"))
    throw ModelError(r.where(), r.element(),
                     "give either 'components' (three formulas) or 'direction' and 'value'");
  if (r.has("components")) {
    const YAML::Node c = r.get("components");
    if (!c.IsSequence() || c.size() != 3)
      throw ModelError(ctx.at(c), r.element(), "'components' must be three formulas");
    std::array<Expression, 3> e;
    for (std::size_t k = 0; k < 3; ++k)
      e[k] = internal::read_expression(c[k], ctx, r.element(), "components");
    return std::make_unique<PointLoad>(name, kind, b, R.transpose() * (at - p_body), e, axes,
                                       r.where());
  }
  const Vec3 direction = r.required_unit_vec3("direction");
  return std::make_unique<PointLoad>(name, kind, b, R.transpose() * (at - p_body), direction,
                                     r.expression("value"), axes, r.where());
}

const std::map<std::string, ForceReader>& force_readers() {
  static const std::map<std::string, ForceReader> kReaders = {
      {"spring_damper", read_spring_damper},
      {"rotational_spring_damper", read_rotational_spring_damper},
      {"force", [](MapReader& r, const std::string& n,
                   const Model& m) { return read_load(r, n, m, PointLoad::Kind::kForce); }},
      {"torque", [](MapReader& r, const std::string& n,
                    const Model& m) { return read_load(r, n, m, PointLoad::Kind::kTorque); }},
  };
  return kReaders;
}

void read_forces(const YAML::Node& node, const FileContext& ctx, Model& model,
                 std::vector<Event>& generated) {
  if (!node) return;
  const MapReader check(node, ctx, "forces");
  std::vector<std::string> types;
  for (const auto& [type, reader] : force_readers()) types.push_back(type);
  for (const auto& kv : node) {
    const std::string name = ctx.text(kv.first);
    const std::string element = fmt::format("force '{}'", name);
    MapReader r(kv.second, ctx, element);
    const std::string type = r.required_string("type", "a force type");
    const auto it = force_readers().find(type);
    if (it == force_readers().end())
      throw ModelError(
          ctx.at(r.get("type")), element,
          fmt::format("unknown force type '{}'{}; known types: {}", type,
                      internal::did_you_mean(type, types), internal::join_names(types)));
    auto force = it->second(r, name, model);
    read_switching(r, name, model, generated);
    r.finish();  // keys of the other force types would be ignored: unknown here
    model.add_force(std::move(force));
  }
}

// ---------------------------------------------------------------------------
// events, initial velocities, settings

// An external impulse (seed 000 eq. 3, K pe): {on: body, linear: [..],
// angular: [..], at: [..]}; `at` is a world point at the initial configuration.
Action read_impulse(const YAML::Node& node, const FileContext& ctx, const std::string& element,
                    const Model& model) {
  MapReader r(node, ctx, element + " impulse");
  Action a;
  a.kind = Action::Kind::kImpulse;
  a.where = ctx.at(node);
  a.target = r.required_string("on", "a body name");
  const BodyIndex b = model.body_index(a.target, element, ctx.at(r.get("on")));
  if (b == kGround) throw ModelError(ctx.at(r.get("on")), element, "the ground takes no impulse");
  a.linear_impulse = r.vec3("linear", Vec3::Zero());
  a.angular_impulse = r.vec3("angular", Vec3::Zero());
  const Vec3 at = r.vec3("at", model.initial_position(b));
  a.point_B = model.initial_orientation(b).toRotationMatrix().transpose() *
              (at - model.initial_position(b));
  r.finish();
  return a;
}

std::vector<Action> read_actions(const YAML::Node& node, const FileContext& ctx,
                                 const std::string& element, const Model& model) {
  std::vector<Action> out;
  auto make = [](Action::Kind kind, std::string target, SourceLocation where) {
    Action a;
    a.kind = kind;
    a.target = std::move(target);
    a.where = std::move(where);
    return a;
  };
  auto one = [&](const YAML::Node& a) {
    if (a.IsScalar() && a.Scalar() == "stop") {
      out.push_back(make(Action::Kind::kStop, {}, ctx.at(a)));
      return;
    }
    if (a.IsMap() && a.size() == 1 && a.begin()->first.IsScalar()) {
      const std::string verb = a.begin()->first.as<std::string>();
      const YAML::Node target = a.begin()->second;
      if ((verb == "enable" || verb == "disable") && target.IsScalar()) {
        out.push_back(make(verb == "enable" ? Action::Kind::kEnable : Action::Kind::kDisable,
                           ctx.text(target), ctx.at(target)));
        return;
      }
      if (verb == "impulse") {
        out.push_back(read_impulse(target, ctx, element, model));
        return;
      }
    }
    throw ModelError(ctx.at(a), element,
                     fmt::format("an action is 'stop', '{{enable: name}}', '{{disable: name}}' or "
                                 "'{{impulse: {{on: body, linear: [..], angular: [..], at: "
                                 "[..]}}}}', got {}",
                                 internal::describe(a)));
  };
  if (node.IsSequence()) {
    for (const auto& a : node) one(a);
  } else {
    one(node);
  }
  return out;
}

void read_events(const YAML::Node& node, const FileContext& ctx, Model& model) {
  if (!node) return;
  const MapReader check(node, ctx, "events");
  for (const auto& kv : node) {
    const std::string name = ctx.text(kv.first);
    const std::string element = fmt::format("event '{}'", name);
    if (!is_identifier(name))  // dotted names are reserved for generated events
      throw ModelError(ctx.at(kv.first), element,
                       "event names must start with a letter or '_' and contain only letters, "
                       "digits and '_'");
    MapReader r(kv.second, ctx, element);
    Event e;
    e.name = name;
    e.where = ctx.at(kv.first);
    e.condition = Condition{r.expression("when")};
    (void)split_condition(e.condition, element);
    e.on_true =
        read_actions(r.required("do", "an action or a list of actions"), ctx, element, model);
    if (const YAML::Node f = r.get("on_false")) e.on_false = read_actions(f, ctx, element, model);
    e.once = r.boolean("once", false);
    r.finish();
    model.add_event(std::move(e));
  }
}

void read_initial_velocities(const YAML::Node& node, const FileContext& ctx, Model& model) {
  if (!node) return;
  const MapReader check(node, ctx, "initial_velocities");
  for (const auto& kv : node) {
    GivenVelocity g;
    g.channel = ctx.text(kv.first);
    g.where = ctx.at(kv.first);
    if (!kv.second.IsScalar())
      throw ModelError(ctx.at(kv.second), "initial_velocities",
                       fmt::format("'{}' must be a number or formula", g.channel));
    g.value = Expression(ctx.text(kv.second), ctx.text_at(kv.second));
    model.add_given_velocity(std::move(g));
  }
}

void read_simulate(const YAML::Node& node, const FileContext& ctx, Model& model) {
  SimulationSettings& s = model.settings();
  if (!node) return;
  MapReader r(node, ctx, "simulate");
  // errors reported at s.where are about start and until (the other keys are
  // checked here): point at 'until'
  s.where = r.has("until") ? ctx.at(r.get("until")) : r.where();
  s.start = r.number("start", s.start);
  s.until = r.number("until", s.until);
  s.output_step = r.positive("output_step", s.output_step);
  s.integrator.where = r.has("integrator") ? ctx.at(r.get("integrator")) : r.where();
  s.integrator.name = r.string("integrator", s.integrator.name);
  IntegratorSettings& in = s.integrator;
  in.rtol = r.positive("rtol", in.rtol);
  in.atol = r.positive("atol", in.atol);
  in.step = r.positive("step", in.step);
  in.max_step = r.positive("max_step", in.max_step, true);
  in.beta = r.number("beta", in.beta);
  in.gamma = r.number("gamma", in.gamma);
  in.theta = r.number("theta", in.theta);                // wilson's theta ...
  in.moreau_theta = r.number("theta", in.moreau_theta);  // ... or moreau_jean's
  in.alpha = r.number("alpha", in.alpha);
  in.rho_inf = r.number("rho_inf", in.rho_inf);
  in.two_pass = r.boolean("two_pass", in.two_pass);
  if (const YAML::Node ls = r.get("linear_solver")) {
    try {
      in.linear_solver = parse_linear_solver(r.string("linear_solver", "auto"));
    } catch (const std::invalid_argument& e) {
      throw ModelError(ctx.at(ls), "simulate", e.what());
    }
  }
  // the integrator's own keys are checked against the integrator (Model::validate)
  for (const char* key : {"rtol", "atol", "step", "max_step", "beta", "gamma", "theta", "alpha",
                          "rho_inf", "two_pass", "linear_solver"})
    if (r.has(key)) {
      in.given.emplace_back(key);
      in.given_where.push_back(ctx.at(r.get(key)));
    }
  // the guards of the run (docs/cli.md)
  if (r.has("max_steps")) s.max_steps_where = ctx.at(r.get("max_steps"));
  s.max_steps = r.positive("max_steps", s.max_steps);
  if (r.has("energy_tolerance")) s.energy_tolerance_where = ctx.at(r.get("energy_tolerance"));
  s.energy_tolerance = r.positive("energy_tolerance", s.energy_tolerance);
  if (const YAML::Node c = r.get("impacts")) {
    const std::string how = r.string("impacts", "impulse");
    if (how != "impulse" && how != "baumgarte")
      throw ModelError(ctx.at(c), "simulate",
                       fmt::format("'impacts' must be 'impulse' (seed 000 eqs. 3-5) or "
                                   "'baumgarte' (left to the stabilisation), got '{}'",
                                   how));
    s.closure = how == "impulse" ? SimulationSettings::Closure::kImpulse
                                 : SimulationSettings::Closure::kBaumgarte;
  }
  if (const YAML::Node out = r.get("outputs")) {
    if (!out.IsSequence())
      throw ModelError(ctx.at(out), "simulate", "'outputs' must be a list of channel names");
    for (const auto& o : out) {
      if (!o.IsScalar())
        throw ModelError(ctx.at(o), "simulate", "'outputs' entries must be channel names");
      s.outputs.push_back({o.Scalar(), ctx.at(o)});
    }
  }
  r.finish();
}

// The channel and the window [from, to] that every summary entry starts
// with (peaks, spectra); an empty window is refused at 'to'.
template <class Entry>
void read_summary_window(MapReader& p, const FileContext& ctx, const std::string& element,
                         Entry& entry) {
  entry.channel = p.required_string("channel", "a channel name");
  entry.where = ctx.at(p.get("channel"));
  if (const auto from = p.optional_number("from")) entry.from = *from;
  if (const auto to = p.optional_number("to")) entry.to = *to;
  if (!(entry.from < entry.to))
    throw ModelError(p.has("to") ? ctx.at(p.get("to")) : p.where(), element,
                     fmt::format("the window is empty: 'from' ({:g}) must be less than 'to' "
                                 "({:g})",
                                 entry.from, entry.to));
}

// summary: {spectra: [{channel, from, to, lowest, peaks, label}]}: the dominant
// frequencies of a channel over a window (issue 17). The window's length is
// checked against `lowest` here when both ends are given, else when the run's
// span is known (check_summary_spectra in spectrum_summary.h).
void read_summary_spectra(const YAML::Node& spectra, const FileContext& ctx, Model& model) {
  if (!spectra.IsSequence())
    throw ModelError(ctx.at(spectra), "summary",
                     fmt::format("'spectra' must be a list of {{channel, from, to, lowest, peaks, "
                                 "label}}, got {}",
                                 internal::describe(spectra)));
  int index = 0;
  for (const auto& item : spectra) {
    const std::string element = fmt::format("summary spectrum {}", ++index);
    MapReader p(item, ctx, element);
    SummarySpectrum spectrum;
    read_summary_window(p, ctx, element, spectrum);
    if (p.has("lowest")) {
      spectrum.lowest = p.positive("lowest", 0.0);
      spectrum.lowest_where = ctx.at(p.get("lowest"));
    }
    if (p.has("peaks")) {
      const double n = p.positive("peaks", 3.0);
      if (n != std::floor(n) || n > 100)
        throw ModelError(ctx.at(p.get("peaks")), element,
                         fmt::format("'peaks' must be a whole number from 1 to 100, got {:g}", n));
      spectrum.peaks = static_cast<int>(n);
    }
    spectrum.label = p.string("label", spectrum.channel);
    p.finish();
    model.settings().spectra.push_back(std::move(spectrum));
  }
}

// summary: {peaks: [{channel, from, to, extremum, label}]}: windowed extrema printed
// after the run (seed 003's columns; the in-pulse a_max of issue 16). The
// channel is checked against the System when the run starts
// (check_summary_peaks in observers.h).
void read_summary(const YAML::Node& node, const FileContext& ctx, Model& model) {
  if (!node) return;
  MapReader r(node, ctx, "summary");
  if (const YAML::Node peaks = r.get("peaks")) {
    if (!peaks.IsSequence())
      throw ModelError(ctx.at(peaks), "summary",
                       fmt::format("'peaks' must be a list of {{channel, from, to, label}}, got {}",
                                   internal::describe(peaks)));
    int index = 0;
    for (const auto& item : peaks) {
      const std::string element = fmt::format("summary peak {}", ++index);
      MapReader p(item, ctx, element);
      SummaryPeak peak;
      read_summary_window(p, ctx, element, peak);
      if (const YAML::Node kind = p.get("extremum")) {
        const std::string k = p.string("extremum", "abs");
        if (k != "abs" && k != "min" && k != "max")
          throw ModelError(ctx.at(kind), element,
                           fmt::format("'extremum' must be abs (the largest |value|, signed), min "
                                       "or max, got '{}'",
                                       k));
        peak.kind = k == "abs"   ? SummaryPeak::Kind::kLargestMagnitude
                    : k == "min" ? SummaryPeak::Kind::kMinimum
                                 : SummaryPeak::Kind::kMaximum;
      }
      peak.label = p.string("label", peak.channel);
      p.finish();
      model.settings().peaks.push_back(std::move(peak));
    }
  }
  if (const YAML::Node spectra = r.get("spectra")) read_summary_spectra(spectra, ctx, model);
  r.finish();
}

void read_markers(const YAML::Node& node, const FileContext& ctx, Model& model) {
  if (!node) return;
  const MapReader check(node, ctx, "markers");
  for (const auto& kv : node) {
    Marker m;
    m.name = ctx.text(kv.first);
    m.where = ctx.at(kv.first);
    const std::string element = fmt::format("marker '{}'", m.name);
    MapReader r(kv.second, ctx, element);
    m.body = model.body_index(r.required_string("on", "a body name"), element, ctx.at(r.get("on")));
    const Vec3 at = r.vec3("at", model.initial_position(m.body));
    m.point_B = model.initial_orientation(m.body).toRotationMatrix().transpose() *
                (at - model.initial_position(m.body));
    r.finish();
    model.add_marker(std::move(m));
  }
}

void read_stabilisation(const YAML::Node& node, const FileContext& ctx, Model& model) {
  if (!node) return;
  StabilisationSettings& s = model.settings().stabilisation;
  MapReader r(node, ctx, "stabilisation");
  s.baumgarte_position = r.positive("baumgarte_position", s.baumgarte_position, true);
  s.baumgarte_velocity = r.positive("baumgarte_velocity", s.baumgarte_velocity, true);
  s.projection = r.boolean("projection", s.projection);
  s.projection_tolerance = r.positive("projection_tolerance", s.projection_tolerance);
  r.finish();
}

// ---------------------------------------------------------------------------
// instances: `repeat` blocks and `include`s (docs/model-file.md, "Repetition")

// The sections an instance may have, read in the order of the model's own.
const std::vector<std::string> kInstanceSections = {
    "bodies", "markers", "joints", "drivers", "forces", "events", "initial_velocities",
    "shapes", "contacts"};

constexpr int kMaxInstances = 10000;
constexpr std::uintmax_t kMaxIncludedBytes = 16u << 20;

// One instance: its sections (of the model file or of an included file), and
// the context they are read in (file, parameters, the instance's name).
struct Instance {
  YAML::Node sections;
  FileContext ctx;
  std::unique_ptr<MapReader> reader;    // the section keys still to be read
  std::vector<std::string> other_keys;  // of the block or file, read elsewhere
};

// `error` again, naming the instance it comes from.
ModelError in_instance(const ModelError& error, const std::string& instance) {
  if (error.detail().find(instance) != std::string::npos ||
      error.element().find(instance) != std::string::npos)
    return error;
  return ModelError(error.where(), error.element(),
                    fmt::format("{} (in {})", error.detail(), instance));
}

// An included file: a mapping of `parameters` (defaults) and sections.
YAML::Node load_included(const YAML::Node& file_node, const FileContext& ctx,
                         const std::string& element, std::string& path_out) {
  const std::string name = ctx.text(file_node);
  const std::filesystem::path base = std::filesystem::path(ctx.file).parent_path();
  const std::filesystem::path path = base / name;
  path_out = path.lexically_normal().string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw ModelError(ctx.at(file_node), element,
                     fmt::format("cannot include '{}': no such file (paths are relative to the "
                                 "including file's directory)",
                                 path_out));
  if (std::filesystem::file_size(path, ec) > kMaxIncludedBytes)
    throw ModelError(ctx.at(file_node), element,
                     fmt::format("cannot include '{}': larger than 16 MB", path_out));
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (!in && !in.eof())
    throw ModelError(ctx.at(file_node), element, fmt::format("cannot read '{}'", path_out));
  YAML::Node root;
  try {
    root = YAML::Load(buffer.str());
  } catch (const YAML::Exception& e) {
    throw ModelError({path_out, e.mark.line + 1, e.mark.column + 1}, element,
                     fmt::format("not valid YAML: {}", e.msg));
  }
  if (!root.IsMap())
    throw ModelError(
        {path_out, 1, 1}, element,
        fmt::format("an included file is a mapping of 'parameters' and sections "
                    "({}), got {}",
                    internal::join_names(kInstanceSections), internal::describe(root)));
  return root;
}

// Adds the instances of one `repeat` block or `include` entry. `block` holds
// `parameters` (per instance) and either `include` (a file) or the sections.
void add_instances(const YAML::Node& block, const FileContext& ctx, const std::string& element,
                   bool repeated, std::vector<std::unique_ptr<Instance>>& out) {
  MapReader r(block, ctx, element);
  std::string index;
  int count = 1;
  if (repeated) {
    index = r.string("index", "i");
    if (!is_identifier(index) || internal::is_reserved_name(index) ||
        ctx.parameters.count(index) != 0)
      throw ModelError(r.has("index") ? ctx.at(r.get("index")) : r.where(), element,
                       fmt::format("'index' must be a new name (not a parameter, not reserved), "
                                   "got '{}'",
                                   index));
    const double n = r.required_number("count");
    if (!(n >= 0.0 && n <= kMaxInstances && n == std::floor(n)))
      throw ModelError(
          ctx.at(r.get("count")), element,
          fmt::format("'count' must be a whole number from 0 to {}, got {}", kMaxInstances, n));
    count = static_cast<int>(n);
  }
  // the sections: an included file's, or the block's own
  std::string file = ctx.file;
  ParameterTexts defaults;
  FileContext file_ctx;
  const bool included = r.has(repeated ? "include" : "file");
  // (initialised once: assigning to a yaml-cpp node overwrites the node it refers to)
  const YAML::Node sections =
      included ? load_included(r.get(repeated ? "include" : "file"), ctx, element, file) : block;
  if (included) {
    file_ctx.file = file;
    MapReader check(sections, file_ctx, "included file");
    defaults = read_parameter_texts(check.get("parameters"), file_ctx);
    for (const std::string& key : kInstanceSections) (void)check.get(key);
    (void)check.get("description");
    check.finish();
  } else if (!repeated) {
    (void)r.required("file", "the file to include");
  }
  // inline, the block's parameters are the instance's own (they may name
  // each other, the index and the model's parameters); for an included file
  // they are arguments, computed in the including file (so `length: length`
  // passes the model's length), that replace the file's defaults
  const ParameterTexts given = read_parameter_texts(r.get("parameters"), ctx);
  std::set<std::string> default_names;
  for (const auto& p : defaults) default_names.insert(p.first);
  if (included)
    for (const auto& [name, text] : given)
      if (default_names.count(name) == 0) {
        const std::vector<std::string> names(default_names.begin(), default_names.end());
        throw ModelError(text.where, element,
                         fmt::format("the included file has no parameter '{}'{}; its "
                                     "parameters are: {}",
                                     name, internal::did_you_mean(name, names),
                                     internal::join_names(names, 40)));
      }
  ParameterTexts own;  // resolved in the instance
  if (included) {
    for (const auto& p : defaults)
      if (std::none_of(given.begin(), given.end(),
                       [&p](const auto& g) { return g.first == p.first; }))
        own.push_back(p);
  } else {
    own = given;
    for (const std::string& key : kInstanceSections) (void)r.get(key);
  }
  r.finish();
  for (int k = 0; k < count; ++k) {
    auto inst = std::make_unique<Instance>();
    inst->sections = sections;
    inst->ctx.file = file;
    internal::ParameterValues outer = ctx.parameters;
    if (repeated) outer[index] = k;
    inst->ctx.instance = repeated ? fmt::format("{} with {} = {}", element, index, k) : element;
    try {
      internal::ParameterValues scope = outer;
      if (included)
        for (const auto& [name, text] : given)
          scope[name] = internal::evaluate_constant(Expression(text.text, text.where), outer,
                                                    fmt::format("parameter '{}'", name));
      internal::ParameterValues values = ParameterResolver(own, &scope).resolve();
      for (auto& [name, value] : scope) values.insert({name, value});  // own ones first
      inst->ctx.parameters = std::move(values);
    } catch (const ModelError& e) {
      throw in_instance(e, inst->ctx.instance);
    }
    inst->reader = std::make_unique<MapReader>(inst->sections, inst->ctx, inst->ctx.instance);
    inst->other_keys = included ? std::vector<std::string>{"parameters", "description"}
                                : std::vector<std::string>{"index", "count", "parameters"};
    out.push_back(std::move(inst));
  }
}

std::vector<std::unique_ptr<Instance>> read_instances(MapReader& top, const FileContext& ctx) {
  std::vector<std::unique_ptr<Instance>> out;
  if (const YAML::Node repeat = top.get("repeat")) {
    const MapReader check(repeat, ctx, "repeat");
    for (const auto& kv : repeat)
      add_instances(kv.second, ctx, fmt::format("repeat '{}'", kv.first.Scalar()), true, out);
  }
  if (const YAML::Node include = top.get("include")) {
    const MapReader check(include, ctx, "include");
    for (const auto& kv : include)
      add_instances(kv.second, ctx, fmt::format("include '{}'", kv.first.Scalar()), false, out);
  }
  if (out.size() > static_cast<std::size_t>(kMaxInstances))
    throw ModelError(
        top.where(), "model",
        fmt::format("more than {} instances of repeat blocks and includes", kMaxInstances));
  return out;
}

// Reads one section of every instance; an error names the instance.
template <typename Read>
void read_in_instances(const std::vector<std::unique_ptr<Instance>>& instances,
                       const std::string& key, Read read) {
  for (const auto& inst : instances) {
    try {
      read(inst->reader->get(key), inst->ctx);
    } catch (const ModelError& e) {
      throw in_instance(e, inst->ctx.instance);
    }
  }
}

}  // namespace

namespace {
Model read_model(const YAML::Node& root, FileContext& ctx, const ParameterOverrides& overrides);
}  // namespace

Model parse_model(const std::string& text, const std::string& source_name,
                  const ParameterOverrides& overrides) {
  FileContext ctx;
  ctx.file = source_name;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ModelError({source_name, e.mark.line + 1, e.mark.column + 1}, "",
                     fmt::format("not valid YAML: {}", e.msg));
  }
  if (!root.IsMap()) {
    const SourceLocation where =
        root.IsDefined() && !root.IsNull() ? ctx.at(root) : SourceLocation{source_name, 1, 1};
    throw ModelError(where, "",
                     fmt::format("a model file is a YAML mapping with keys such as 'bodies' and "
                                 "'joints', got {}",
                                 internal::describe(root)));
  }
  try {
    return read_model(root, ctx, overrides);
  } catch (const YAML::Exception& e) {
    // an access the readers did not guard: still a located message
    throw ModelError({source_name, e.mark.line + 1, e.mark.column + 1}, "",
                     fmt::format("cannot read this part of the model: {}", e.msg));
  }
}

namespace {

Model read_model(const YAML::Node& root, FileContext& ctx, const ParameterOverrides& overrides) {
  const std::string& source_name = ctx.file;
  MapReader top(root, ctx, "model");
  Model model;
  model.set_name(top.string("name", source_name));
  (void)top.string("description", "");
  if (const YAML::Node v = top.get("ictus")) {
    if (internal::read_number(v, ctx, "model", "ictus") != 1.0)
      throw ModelError(ctx.at(v), "model", "this version of ictus reads model format 1");
  }
  read_parameters(top.get("parameters"), overrides, ctx, model);
  if (const YAML::Node g = top.get("gravity"))
    model.set_gravity(internal::read_vec3(g, ctx, "gravity", "gravity"), ctx.at(g));
  const std::vector<std::unique_ptr<Instance>> instances = read_instances(top, ctx);
  // each section of the model, then the same section of every instance
  // (a joint may connect bodies of the model and of instances)
  std::vector<Event> generated;
  auto section = [&](const std::string& key, auto read) {
    read(top.get(key), ctx);
    read_in_instances(instances, key, read);
  };
  section("bodies", [&](const YAML::Node& n, const FileContext& c) { read_bodies(n, c, model); });
  section("markers", [&](const YAML::Node& n, const FileContext& c) { read_markers(n, c, model); });
  section("joints",
          [&](const YAML::Node& n, const FileContext& c) { read_joints(n, c, model, generated); });
  section("drivers",
          [&](const YAML::Node& n, const FileContext& c) { read_drivers(n, c, model, generated); });
  section("forces",
          [&](const YAML::Node& n, const FileContext& c) { read_forces(n, c, model, generated); });
  // shapes and contacts: contacts_reader.cpp
  section("shapes",
          [&](const YAML::Node& n, const FileContext& c) { internal::read_shapes(n, c, model); });
  section("contacts",
          [&](const YAML::Node& n, const FileContext& c) { internal::read_contacts(n, c, model); });
  for (Event& e : generated) model.add_event(std::move(e));
  section("events", [&](const YAML::Node& n, const FileContext& c) { read_events(n, c, model); });
  section("initial_velocities",
          [&](const YAML::Node& n, const FileContext& c) { read_initial_velocities(n, c, model); });
  for (const auto& inst : instances) inst->reader->finish(inst->other_keys);
  read_simulate(top.get("simulate"), ctx, model);
  read_summary(top.get("summary"), ctx, model);
  YAML::Node stab = top.get("stabilisation");
  if (!stab) stab = top.get("stabilization");
  read_stabilisation(stab, ctx, model);
  top.finish({"stabilisation", "stabilization"});
  try {
    model.validate();
  } catch (const ModelError& e) {
    if (e.where().known()) throw;
    throw ModelError({source_name, 0, 0}, e.element(), e.detail());
  }
  return model;
}

}  // namespace

Model load_model(const std::string& path, const ParameterOverrides& overrides) {
  if (std::filesystem::is_directory(path))
    throw ModelError({path, 0, 0}, "", "is a directory; expected a model file (YAML)");
  std::ifstream in(path);
  if (!in) throw ModelError({path, 0, 0}, "", "cannot open the model file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_model(buffer.str(), path, overrides);
}

}  // namespace ictus
