// Models from Python: loaded from a file (with parameter overrides) or built
// with the objects of the C++ API (include/ictus/model.h). The add_* methods
// take the model file's keys and conventions (docs/model-file.md: geometry
// in world coordinates at the initial configuration) and build exactly what
// the loader builds (src/io/model_file.cpp), so a model built here runs bit
// for bit like the same model file.
#include <fmt/format.h>
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "bindings.h"
#include "ictus/forces/joint_spring_damper.h"
#include "ictus/forces/point_load.h"
#include "ictus/forces/spring_damper.h"
#include "ictus/model.h"
#include "ictus/model_file.h"

namespace py = pybind11;

namespace ictus::python {
/// A formula given from Python: a string (muParser syntax, docs/model-file.md)
/// or a number, written with every digit.
struct Formula {
  std::string text;
};
}  // namespace ictus::python

namespace pybind11::detail {
template <>
struct type_caster<ictus::python::Formula> {
  PYBIND11_TYPE_CASTER(ictus::python::Formula, const_name("str | float"));
  bool load(handle source, bool) {
    if (isinstance<str>(source)) {
      value.text = source.cast<std::string>();
      return true;
    }
    if (PyFloat_Check(source.ptr()) == 0 && PyLong_Check(source.ptr()) == 0) return false;
    // the shortest text that reads back as the same double
    value.text = repr(float_(reinterpret_borrow<object>(source))).cast<std::string>();
    return true;
  }
};
}  // namespace pybind11::detail

namespace ictus::python {

namespace {

// Where an element built in Python is reported: no file, no line.
const SourceLocation kBuiltInPython{};

Vec3 unit_vector(const Vec3& v, const std::string& element, const std::string& what) {
  const double norm = v.norm();
  if (!(norm >= 1e-12))
    throw ModelError(kBuiltInPython, element,
                     fmt::format("'{}' is a zero vector; a unit direction is expected", what));
  if (std::abs(norm - 1.0) > 1e-9)
    throw ModelError(kBuiltInPython, element,
                     fmt::format("'{}' must be a unit vector, its length is {:.12g}", what, norm));
  return v;
}

// [Jxx, Jyy, Jzz], [Jxx, Jyy, Jzz, Jxy, Jxz, Jyz] or a 3x3 matrix, as in the model file.
Mat3 inertia_from(const py::object& value) {
  const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(value);
  if (!a) throw py::type_error("inertia: expected numbers");
  Mat3 J = Mat3::Zero();
  if (a.ndim() == 1 && a.shape(0) == 3) {
    for (int k = 0; k < 3; ++k) J(k, k) = a.at(k);
  } else if (a.ndim() == 1 && a.shape(0) == 6) {
    for (int k = 0; k < 3; ++k) J(k, k) = a.at(k);
    J(0, 1) = J(1, 0) = a.at(3);
    J(0, 2) = J(2, 0) = a.at(4);
    J(1, 2) = J(2, 1) = a.at(5);
  } else if (a.ndim() == 2 && a.shape(0) == 3 && a.shape(1) == 3) {
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) J(r, c) = a.at(r, c);
  } else {
    throw py::value_error(
        "inertia: expected [Jxx, Jyy, Jzz], [Jxx, Jyy, Jzz, Jxy, Jxz, Jyz] or a 3x3 matrix");
  }
  return J;
}

Quat quaternion_from(const std::array<double, 4>& wxyz) {
  return Quat(wxyz[0], wxyz[1], wxyz[2], wxyz[3]);
}

std::array<double, 4> quaternion_to(const Quat& q) {
  return {q.w(), q.x(), q.y(), q.z()};
}

// A world point of body b at the initial configuration, in b's coordinates.
Vec3 in_body(const Model& model, BodyIndex b, const Vec3& point_W) {
  return model.initial_orientation(b).toRotationMatrix().transpose() *
         (point_W - model.initial_position(b));
}

// The model file's `joints:` entry of a standard type (read_joints).
void add_joint(Model& model, const std::string& name, const std::string& type,
               const std::string& base, const std::string& follower, const Vec3& at,
               const Vec3& axis_given, const std::optional<Vec3>& reference,
               const std::optional<Vec3>& second_axis, double initial_angle,
               double initial_position, std::optional<double> restitution, bool capture,
               std::optional<double> mu, std::optional<double> mu_static, double radius) {
  const std::string element = fmt::format("joint '{}'", name);
  Joint joint;
  joint.name = name;
  joint.type = type;
  joint.base = model.body_index(base, element);
  joint.follower = model.body_index(follower, element);
  if (joint.base == joint.follower)
    throw ModelError(kBuiltInPython, element,
                     fmt::format("a joint needs two different bodies, got '{}' twice", base));
  const Vec3 axis = unit_vector(axis_given, element, "axis");
  JointPlacement place;
  place.origin_W = at;
  if (reference && reference->cross(axis).norm() < 1e-9 * std::max(1.0, reference->norm()))
    throw ModelError(kBuiltInPython, element, "'reference' must not be parallel to 'axis'");
  if (type == "universal") {
    if (reference)
      throw ModelError(kBuiltInPython, element,
                       "a universal joint's frame is set by 'axis' and 'second_axis'; "
                       "'reference' does not apply");
    if (!second_axis)
      throw ModelError(kBuiltInPython, element, "a universal joint needs 'second_axis'");
    const Vec3 second = unit_vector(*second_axis, element, "second_axis");
    if (std::abs(second.dot(axis)) > 1e-9)
      throw ModelError(kBuiltInPython, element, "'second_axis' must be perpendicular to 'axis'");
    place.axes_W.col(0) = axis;
    place.axes_W.col(1) = second;
    place.axes_W.col(2) = axis.cross(second);
  } else {
    if (second_axis)
      throw ModelError(kBuiltInPython, element, "'second_axis' applies to universal joints");
    place.axes_W = frame_from_z(axis, reference.value_or(Vec3::Zero()));
  }
  place_joint(joint, place, model.initial_position(joint.base),
              model.initial_orientation(joint.base), model.initial_position(joint.follower),
              model.initial_orientation(joint.follower));
  joint.angle_offset = initial_angle;
  joint.translation_offset = initial_position;
  add_standard_constraints(joint);
  if (initial_angle != 0.0 && !joint.has_angle)
    throw ModelError(kBuiltInPython, element,
                     fmt::format("a {} joint has no rotation coordinate; 'initial_angle' applies "
                                 "to revolute, cylindrical and planar joints",
                                 type));
  if (initial_position != 0.0 && !joint.has_translation)
    throw ModelError(kBuiltInPython, element,
                     fmt::format("a {} joint has no translation coordinate; 'initial_position' "
                                 "applies to prismatic, cylindrical and point_on_line joints",
                                 type));
  joint.capture = capture;
  if (restitution) {
    if (!(*restitution >= 0.0 && *restitution <= 1.0))
      throw ModelError(kBuiltInPython, element,
                       fmt::format("'restitution' must be in [0, 1], got {}", *restitution));
    for (JointMember& m : joint.members) m.restitution = *restitution;
  }
  if (mu) {
    joint.friction.present = true;
    joint.friction.mu = *mu;
    joint.friction.mu_static = mu_static.value_or(-1.0);
    joint.friction.radius = radius;
  } else if (mu_static || radius != 0.0) {
    throw ModelError(kBuiltInPython, element, "joint friction needs 'mu'");
  }
  model.add_joint(std::move(joint));
}

// The model file's `force` and `torque` entries (read_load).
void add_load(Model& model, PointLoad::Kind kind, const std::string& name, const std::string& on,
              const std::optional<Formula>& value, const std::optional<Vec3>& direction,
              const std::optional<std::array<Formula, 3>>& components,
              const std::optional<Vec3>& at, const std::string& frame) {
  const std::string element =
      fmt::format("{} '{}'", kind == PointLoad::Kind::kForce ? "force" : "torque", name);
  const BodyIndex b = model.body_index(on, element);
  const Vec3 point_B = at ? in_body(model, b, *at) : Vec3::Zero();
  if (frame != "world" && frame != "body")
    throw ModelError(kBuiltInPython, element,
                     fmt::format("'frame' must be 'world' or 'body', got '{}'", frame));
  const auto axes = frame == "world" ? PointLoad::Axes::kWorld : PointLoad::Axes::kBody;
  if (components.has_value() == value.has_value())
    throw ModelError(kBuiltInPython, element,
                     "give either 'components' (three formulas) or 'direction' and 'value'");
  if (components) {
    const std::array<Expression, 3> e{Expression((*components)[0].text),
                                      Expression((*components)[1].text),
                                      Expression((*components)[2].text)};
    model.add_force(std::make_unique<PointLoad>(name, kind, b, point_B, e, axes));
    return;
  }
  if (!direction) throw ModelError(kBuiltInPython, element, "'value' needs a 'direction'");
  model.add_force(std::make_unique<PointLoad>(name, kind, b, point_B,
                                              unit_vector(*direction, element, "direction"),
                                              Expression(value->text), axes));
}

Action make_action(Action::Kind kind, std::string target) {
  Action a;
  a.kind = kind;
  a.target = std::move(target);
  return a;
}

std::string action_repr(const Action& a) {
  switch (a.kind) {
    case Action::Kind::kStop:
      return "Action.stop()";
    case Action::Kind::kEnable:
      return fmt::format("Action.enable('{}')", a.target);
    case Action::Kind::kDisable:
      return fmt::format("Action.disable('{}')", a.target);
    case Action::Kind::kImpulse:
      return fmt::format("Action.impulse('{}', linear=[{}, {}, {}], angular=[{}, {}, {}])",
                         a.target, a.linear_impulse.x(), a.linear_impulse.y(), a.linear_impulse.z(),
                         a.angular_impulse.x(), a.angular_impulse.y(), a.angular_impulse.z());
  }
  return "Action";
}

// The command line's --integrator: the options given for the file's own
// integrator do not bind another one (apps/run_command.cpp).
void set_integrator(IntegratorSettings& in, const std::string& name) {
  in.name = name;
  const std::vector<std::string>& keys = stepper_option_keys(name);
  for (std::size_t k = in.given.size(); k-- > 0;)
    if (std::find(keys.begin(), keys.end(), in.given[k]) == keys.end()) {
      in.given.erase(in.given.begin() + static_cast<std::ptrdiff_t>(k));
      if (k < in.given_where.size())
        in.given_where.erase(in.given_where.begin() + static_cast<std::ptrdiff_t>(k));
    }
}

// An option set from Python counts as given: an integrator that does not
// read it is refused, as the model file's key would be.
void set_option(IntegratorSettings& in, const char* key, double& slot, double value) {
  slot = value;
  if (std::find(in.given.begin(), in.given.end(), key) == in.given.end()) {
    in.given.emplace_back(key);
    in.given_where.push_back(kBuiltInPython);
  }
}

void bind_settings(py::module_& m) {
  using S = SimulationSettings;
  py::class_<S>(m, "Settings",
                "What to simulate (the model file's `simulate:` and `stabilisation:`), part of "
                "a Model: `model.settings.until = 5`. Changing them changes the Model; "
                "Simulations built before keep their own copy.")
      .def_readwrite("start", &S::start, "Start time [s].")
      .def_readwrite("until", &S::until, "End time [s].")
      .def_readwrite("output_step", &S::output_step,
                     "Spacing of the recorded samples [s] (plus the samples just before and "
                     "after each event).")
      .def_property(
          "outputs",
          [](const S& s) {
            std::vector<std::string> out;
            for (const OutputRequest& r : s.outputs) out.push_back(r.pattern);
            return out;
          },
          [](S& s, const std::vector<std::string>& patterns) {
            s.outputs.clear();
            for (const std::string& p : patterns) s.outputs.push_back({p, kBuiltInPython});
          },
          "Channels recorded by default: exact names or patterns with '*' (empty: the default "
          "selection of docs/channels.md).")
      .def_property(
          "integrator", [](const S& s) { return s.integrator.name; },
          [](S& s, const std::string& name) { set_integrator(s.integrator, name); },
          "Integrator name (ictus.integrators()); options given for another one are dropped, "
          "as with the command line's --integrator.")
      .def_property(
          "rtol", [](const S& s) { return s.integrator.rtol; },
          [](S& s, double v) { set_option(s.integrator, "rtol", s.integrator.rtol, v); },
          "Relative tolerance of the adaptive integrators.")
      .def_property(
          "atol", [](const S& s) { return s.integrator.atol; },
          [](S& s, double v) { set_option(s.integrator, "atol", s.integrator.atol, v); },
          "Absolute tolerance of the adaptive integrators.")
      .def_property(
          "step", [](const S& s) { return s.integrator.step; },
          [](S& s, double v) { set_option(s.integrator, "step", s.integrator.step, v); },
          "Fixed step [s] (rk4, newmark, wilson, hht, generalized_alpha, moreau_jean).")
      .def_property(
          "max_step", [](const S& s) { return s.integrator.max_step; },
          [](S& s, double v) { set_option(s.integrator, "max_step", s.integrator.max_step, v); },
          "Largest step of an adaptive integrator [s]; 0: unlimited.")
      .def_property(
          "closure",
          [](const S& s) {
            return s.closure == S::Closure::kImpulse ? std::string("impulse")
                                                     : std::string("baumgarte");
          },
          [](S& s, const std::string& v) {
            if (v != "impulse" && v != "baumgarte")
              throw py::value_error("closure: 'impulse' or 'baumgarte'");
            s.closure = v == "impulse" ? S::Closure::kImpulse : S::Closure::kBaumgarte;
          },
          "How constraints that close are imposed: 'impulse' or 'baumgarte'.")
      .def_property(
          "baumgarte_position", [](const S& s) { return s.stabilisation.baumgarte_position; },
          [](S& s, double v) { s.stabilisation.baumgarte_position = v; }, "beta_c [1/s^2].")
      .def_property(
          "baumgarte_velocity", [](const S& s) { return s.stabilisation.baumgarte_velocity; },
          [](S& s, double v) { s.stabilisation.baumgarte_velocity = v; }, "beta_k [1/s].")
      .def_property(
          "projection", [](const S& s) { return s.stabilisation.projection; },
          [](S& s, bool v) { s.stabilisation.projection = v; },
          "Project positions and velocities onto the constraints after each step.")
      .def_property(
          "projection_tolerance", [](const S& s) { return s.stabilisation.projection_tolerance; },
          [](S& s, double v) { s.stabilisation.projection_tolerance = v; },
          "Position violation that triggers a projection [m, rad].")
      .def_readwrite("max_steps", &S::max_steps,
                     "Settings implying more steps than this are refused.")
      .def_readwrite("energy_tolerance", &S::energy_tolerance,
                     "Largest accepted relative energy balance error; 0: the default.")
      .def("__repr__", [](const S& s) {
        return fmt::format("Settings(start={}, until={}, output_step={}, integrator='{}')", s.start,
                           s.until, s.output_step, s.integrator.name);
      });
}

void bind_body(py::module_& m) {
  py::class_<Body>(m, "Body",
                   "A rigid body (include/ictus/body.h): mass properties about the centre of "
                   "mass and the initial state, all in SI units and world axes; the body frame "
                   "has its origin at the centre of mass.")
      .def(py::init([](std::string name, double mass, const py::object& inertia,
                       const Vec3& position, const std::array<double, 4>& orientation,
                       const Vec3& velocity, const Vec3& angular_velocity, bool point_mass) {
             Body b;
             b.name = std::move(name);
             b.mass = mass;
             b.point_mass = point_mass;
             b.inertia = point_mass && inertia.is_none() ? Mat3::Zero()
                         : inertia.is_none()             ? Mat3::Identity()
                                                         : inertia_from(inertia);
             b.position = position;
             b.orientation = quaternion_from(orientation);
             b.velocity = velocity;
             b.angular_velocity = angular_velocity;
             return b;
           }),
           py::arg("name"), py::kw_only(), py::arg("mass") = 1.0, py::arg("inertia") = py::none(),
           py::arg("position") = Vec3::Zero(),
           py::arg("orientation") = std::array<double, 4>{1.0, 0.0, 0.0, 0.0},
           py::arg("velocity") = Vec3::Zero(), py::arg("angular_velocity") = Vec3::Zero(),
           py::arg("point_mass") = false,
           "Body(name, *, mass=1, inertia=None, position=[0,0,0], orientation=[1,0,0,0], "
           "velocity=[0,0,0], angular_velocity=[0,0,0], point_mass=False)\n\n"
           "inertia: [Jxx, Jyy, Jzz], [Jxx, Jyy, Jzz, Jxy, Jxz, Jyz] or a 3x3 matrix about the "
           "centre of mass [kg m^2] (default identity; zero for a point mass). orientation: "
           "the unit quaternion q_WB as [w, x, y, z]. angular_velocity in world axes [rad/s]. "
           "Validated when added to a Model.")
      .def_readwrite("name", &Body::name)
      .def_readwrite("mass", &Body::mass, "[kg]")
      .def_property(
          "inertia", [](const Body& b) { return b.inertia; },
          [](Body& b, const py::object& v) { b.inertia = inertia_from(v); },
          "Inertia tensor about the centre of mass, body axes [kg m^2] (3x3).")
      .def_readwrite("point_mass", &Body::point_mass)
      .def_readwrite("position", &Body::position, "p_WB at t0 [m].")
      .def_property(
          "orientation", [](const Body& b) { return quaternion_to(b.orientation); },
          [](Body& b, const std::array<double, 4>& q) { b.orientation = quaternion_from(q); },
          "q_WB at t0 as [w, x, y, z].")
      .def_readwrite("velocity", &Body::velocity, "v_WB at t0 [m/s].")
      .def_readwrite("angular_velocity", &Body::angular_velocity, "w at t0, world axes [rad/s].")
      .def("__repr__", [](const Body& b) {
        return fmt::format("Body('{}', mass={}, position=[{}, {}, {}])", b.name, b.mass,
                           b.position.x(), b.position.y(), b.position.z());
      });
}

void bind_action(py::module_& m) {
  py::class_<Action>(m, "Action",
                     "What an event does (include/ictus/model.h): Action.stop(), "
                     "Action.enable(element), Action.disable(element), Action.impulse(body, "
                     "linear, angular, point). Also applied directly by Simulation.apply().")
      .def_static(
          "stop", [] { return make_action(Action::Kind::kStop, ""); }, "End the run.")
      .def_static(
          "enable", [](std::string t) { return make_action(Action::Kind::kEnable, std::move(t)); },
          py::arg("element"), "Switch an element on: a force, driver, joint or joint member.")
      .def_static(
          "disable",
          [](std::string t) { return make_action(Action::Kind::kDisable, std::move(t)); },
          py::arg("element"), "Switch an element off.")
      .def_static(
          "impulse",
          [](std::string body, const Vec3& linear, const Vec3& angular, const Vec3& point) {
            Action a = make_action(Action::Kind::kImpulse, std::move(body));
            a.linear_impulse = linear;
            a.angular_impulse = angular;
            a.point_B = point;
            return a;
          },
          py::arg("body"), py::arg("linear") = Vec3::Zero(), py::arg("angular") = Vec3::Zero(),
          py::arg("point") = Vec3::Zero(),
          "An external impulse on a body: linear [N s] and angular [N m s] in world axes; "
          "the linear one acts at `point`, in body coordinates (default: the centre of mass). "
          "Applied as a system impact (seed 000 eqs. 3-4).")
      .def_property_readonly("kind",
                             [](const Action& a) {
                               switch (a.kind) {
                                 case Action::Kind::kStop:
                                   return "stop";
                                 case Action::Kind::kEnable:
                                   return "enable";
                                 case Action::Kind::kDisable:
                                   return "disable";
                                 case Action::Kind::kImpulse:
                                   return "impulse";
                               }
                               return "";
                             })
      .def_readonly("target", &Action::target, "Element or body name.")
      .def_readonly("linear", &Action::linear_impulse)
      .def_readonly("angular", &Action::angular_impulse)
      .def_readonly("point", &Action::point_B)
      .def("__repr__", &action_repr);
}

void bind_model_class(py::module_& m) {
  py::class_<Model>(
      m, "Model",
      "A model: bodies, joints, drivers, forces, events, parameters and settings "
      "(include/ictus/model.h). Load one with ictus.load_model(path, overrides) or build it "
      "here; the add_* methods take the model file's keys (docs/model-file.md): geometry in "
      "world coordinates at the initial configuration, formulas as strings in the "
      "parameters, t and channels. Elements are validated as they are added (ModelError).\n\n"
      "Run it with model.run() or ictus.Simulation(model). A Model is not changed by its "
      "runs; copy.copy(model) or model.copy() gives an independent one.")
      .def(py::init([](const std::string& name) {
             Model model;
             model.set_name(name);
             return model;
           }),
           py::arg("name") = "model", "An empty model (no gravity, default settings).")
      .def(
          "copy", [](const Model& model) { return Model(model); }, "An independent copy.")
      .def("__copy__", [](const Model& model) { return Model(model); })
      .def("__deepcopy__", [](const Model& model, py::dict) { return Model(model); })
      .def_property("name", &Model::name, &Model::set_name)
      .def_property(
          "settings", [](Model& model) -> SimulationSettings& { return model.settings(); },
          [](Model& model, const SimulationSettings& s) { model.settings() = s; },
          py::return_value_policy::reference_internal, "The run settings (ictus.Settings).")
      .def_property_readonly(
          "parameters",
          [](const Model& model) {
            return std::map<std::string, double>(model.parameters().begin(),
                                                 model.parameters().end());
          },
          "Parameter values (a copy): name -> value.")
      .def("set_parameter", &Model::set_parameter, py::arg("name"), py::arg("value"),
           "Sets a parameter usable in every formula added afterwards or already added "
           "(formulas are compiled when a Simulation is built). Geometry computed from a "
           "loaded file's parameters is not recomputed: use load_model(path, overrides).")
      .def_property_readonly(
          "bodies",
          [](const Model& model) {
            std::vector<std::string> names;
            for (const Body& b : model.bodies()) names.push_back(b.name);
            return names;
          },
          "Body names.")
      .def_property_readonly(
          "joints",
          [](const Model& model) {
            std::vector<std::string> names;
            for (const Joint& j : model.joints()) names.push_back(j.name);
            return names;
          },
          "Joint names.")
      .def_property_readonly(
          "forces",
          [](const Model& model) {
            std::vector<std::string> names;
            for (const auto& f : model.forces()) names.push_back(f->name());
            return names;
          },
          "Force element names (gravity included).")
      .def_property_readonly(
          "events",
          [](const Model& model) {
            std::vector<std::string> names;
            for (const Event& e : model.events()) names.push_back(e.name);
            return names;
          },
          "Event names (those generated by switching keys included).")
      .def(
          "body",
          [](const Model& model, const std::string& name) {
            return model.bodies().at(static_cast<std::size_t>(model.body_index(name)));
          },
          py::arg("name"), "A copy of the body called `name` (ModelError if none).")
      .def("add_body", &Model::add_body, py::arg("body"),
           "Adds a Body (validated); returns its index.")
      .def("add_joint", &add_joint, py::arg("name"), py::arg("type"), py::arg("base"),
           py::arg("follower"), py::kw_only(), py::arg("at"), py::arg("axis") = Vec3::UnitZ(),
           py::arg("reference") = py::none(), py::arg("second_axis") = py::none(),
           py::arg("initial_angle") = 0.0, py::arg("initial_position") = 0.0,
           py::arg("restitution") = py::none(), py::arg("capture") = false,
           py::arg("mu") = py::none(), py::arg("mu_static") = py::none(), py::arg("radius") = 0.0,
           "add_joint(name, type, base, follower, *, at, axis=[0,0,1], reference=None, "
           "second_axis=None, initial_angle=0, initial_position=0, restitution=None, "
           "capture=False, mu=None, mu_static=None, radius=0)\n\n"
           "A joint of a standard type (fixed, revolute, prismatic, cylindrical, spherical, "
           "universal, planar, point_on_line) between bodies `base` and `follower` ('ground' "
           "for the ground), as the model file's `joints:` entry: `at` the joint point and "
           "`axis` the unit joint axis in world coordinates at the initial configuration, "
           "`reference` the direction of angle zero, `initial_angle` [rad] / "
           "`initial_position` [m] the joint coordinates there; `restitution` in [0, 1] when "
           "it closes during a run, `capture` a latch closing where the bodies are; Coulomb "
           "friction with `mu`, `mu_static` and the pin `radius` [m].")
      .def(
          "add_driver",
          [](Model& model, const std::string& name, const std::string& joint,
             const std::optional<Formula>& angle, const std::optional<Formula>& position,
             const std::optional<Formula>& rate, const std::optional<Formula>& acceleration) {
            if (angle.has_value() == position.has_value())
              throw ModelError(kBuiltInPython, fmt::format("driver '{}'", name),
                               "give exactly one of 'angle' (rotation, rad) or 'position' "
                               "(translation, m) as a formula of t");
            Driver d;
            d.name = name;
            d.joint = joint;
            d.coordinate = angle ? Driver::Coordinate::kAngle : Driver::Coordinate::kTranslation;
            d.motion.value = Expression(angle ? angle->text : position->text);
            if (rate) d.motion.rate_text = rate->text;
            if (acceleration) d.motion.acceleration_text = acceleration->text;
            model.add_driver(std::move(d));
          },
          py::arg("name"), py::arg("joint"), py::kw_only(), py::arg("angle") = py::none(),
          py::arg("position") = py::none(), py::arg("rate") = py::none(),
          py::arg("acceleration") = py::none(),
          "Prescribes a joint coordinate as a formula of t (a string, or a number): `angle` "
          "[rad] or `position` [m] "
          "(the joint's channel value, offset included), with optional exact `rate` and "
          "`acceleration` formulas.")
      .def(
          "add_force",
          [](Model& model, const std::string& name, const std::string& on,
             const std::optional<Formula>& value, const std::optional<Vec3>& direction,
             const std::optional<std::array<Formula, 3>>& components, const std::optional<Vec3>& at,
             const std::string& frame) {
            add_load(model, PointLoad::Kind::kForce, name, on, value, direction, components, at,
                     frame);
          },
          py::arg("name"), py::kw_only(), py::arg("on"), py::arg("value") = py::none(),
          py::arg("direction") = py::none(), py::arg("components") = py::none(),
          py::arg("at") = py::none(), py::arg("frame") = "world",
          "A force on body `on`: a unit `direction` times the formula `value` [N], or three "
          "formulas `components`, in `frame` 'world' or 'body' axes, acting at the world "
          "point `at` (default: the centre of mass). Formulas are strings or numbers.")
      .def(
          "add_torque",
          [](Model& model, const std::string& name, const std::string& on,
             const std::optional<Formula>& value, const std::optional<Vec3>& direction,
             const std::optional<std::array<Formula, 3>>& components, const std::string& frame) {
            add_load(model, PointLoad::Kind::kTorque, name, on, value, direction, components,
                     std::nullopt, frame);
          },
          py::arg("name"), py::kw_only(), py::arg("on"), py::arg("value") = py::none(),
          py::arg("direction") = py::none(), py::arg("components") = py::none(),
          py::arg("frame") = "world", "A torque on body `on` [N m], keys as add_force.")
      .def(
          "add_spring_damper",
          [](Model& model, const std::string& name, const std::array<std::string, 2>& between,
             const std::optional<std::array<Vec3, 2>>& points, double stiffness, double damping,
             std::optional<double> free_length, double preload, double structural_damping,
             double dry_friction) {
            const std::string element = fmt::format("force '{}'", name);
            const BodyIndex a = model.body_index(between[0], element);
            const BodyIndex b = model.body_index(between[1], element);
            const Vec3 pa = points ? (*points)[0] : model.initial_position(a);
            const Vec3 pb = points ? (*points)[1] : model.initial_position(b);
            SpringDamper::Parameters p;
            p.stiffness = stiffness;
            p.damping = damping;
            p.free_length = free_length.value_or((pb - pa).norm());
            p.preload = preload;
            p.structural_damping = structural_damping;
            p.dry_friction = dry_friction;
            model.add_force(std::make_unique<SpringDamper>(name, a, in_body(model, a, pa), b,
                                                           in_body(model, b, pb), p));
          },
          py::arg("name"), py::kw_only(), py::arg("between"), py::arg("points") = py::none(),
          py::arg("stiffness") = 0.0, py::arg("damping") = 0.0, py::arg("free_length") = py::none(),
          py::arg("preload") = 0.0, py::arg("structural_damping") = 0.0,
          py::arg("dry_friction") = 0.0,
          "A spring-damper between two bodies `between` = [a, b], attached at the world "
          "`points` [[x,y,z], [x,y,z]] (default: the centres of mass); `free_length` defaults "
          "to the initial distance. Tension F0 + k (L - L0) + c L'; `structural_damping` psi "
          "and `dry_friction` fT stick and slip (seed 003).")
      .def(
          "add_joint_spring_damper",
          [](Model& model, const std::string& name, const std::string& joint,
             const std::string& coordinate, double stiffness, double damping, double free_value,
             double preload, double structural_damping, double dry_friction) {
            if (coordinate != "angle" && coordinate != "translation")
              throw py::value_error("coordinate: 'angle' or 'translation'");
            JointSpringDamper::Parameters p;
            p.stiffness = stiffness;
            p.damping = damping;
            p.free_value = free_value;
            p.preload = preload;
            p.structural_damping = structural_damping;
            p.dry_friction = dry_friction;
            model.add_force(std::make_unique<JointSpringDamper>(
                name, joint,
                coordinate == "angle" ? JointSpringDamper::Coordinate::kAngle
                                      : JointSpringDamper::Coordinate::kTranslation,
                p));
          },
          py::arg("name"), py::kw_only(), py::arg("joint"), py::arg("coordinate") = "angle",
          py::arg("stiffness") = 0.0, py::arg("damping") = 0.0, py::arg("free_value") = 0.0,
          py::arg("preload") = 0.0, py::arg("structural_damping") = 0.0,
          py::arg("dry_friction") = 0.0,
          "A spring-damper on a joint coordinate: coordinate 'angle' (the model file's "
          "rotational_spring_damper, free_value = free_angle [rad]) or 'translation' "
          "(spring_damper with joint:, free_value = free_position [m]).")
      .def(
          "set_gravity", [](Model& model, const Vec3& g) { model.set_gravity(g); }, py::arg("g"),
          "Gravity in world axes [m/s^2]; adds the force element 'gravity'.")
      .def_property_readonly("gravity", &Model::gravity)
      .def(
          "add_event",
          [](Model& model, const std::string& name, const std::string& condition,
             const std::vector<Action>& on_true, const std::vector<Action>& on_false, bool once) {
            Event e;
            e.name = name;
            e.condition = Condition{Expression(condition)};
            e.on_true = on_true;
            e.on_false = on_false;
            e.once = once;
            model.add_event(std::move(e));
          },
          py::arg("name"), py::arg("condition"), py::kw_only(),
          py::arg("on_true") = std::vector<Action>{}, py::arg("on_false") = std::vector<Action>{},
          py::arg("once") = false,
          "An event: when `condition` (comparisons of channels, parameters and t joined by "
          "and/or, e.g. 'pivot.omega > 0') becomes true its `on_true` actions apply, when it "
          "becomes false its `on_false` ones; `once`: only the first time. An event without "
          "actions only marks the times in the event log.")
      .def("set_initially_enabled", &Model::set_initially_enabled, py::arg("element"),
           py::arg("on"), "Marks a switchable element as on or off at the start of the run.")
      .def(
          "add_marker",
          [](Model& model, const std::string& name, const std::string& on,
             const std::optional<Vec3>& at) {
            Marker marker;
            marker.name = name;
            marker.body = model.body_index(on, fmt::format("marker '{}'", name));
            marker.point_B =
                in_body(model, marker.body, at.value_or(model.initial_position(marker.body)));
            model.add_marker(std::move(marker));
          },
          py::arg("name"), py::kw_only(), py::arg("on"), py::arg("at") = py::none(),
          "A point fixed in body `on` at the world point `at`: channels <name>.x ... <name>.vz.")
      .def("validate", &Model::validate,
           "Checks the cross references (event targets, driver joints); raises ModelError.")
      .def("__repr__", [](const Model& model) {
        return fmt::format("<ictus.Model '{}': {} bodies, {} joints, {} forces, {} events>",
                           model.name(), model.bodies().size(), model.joints().size(),
                           model.forces().size(), model.events().size());
      });
}

ParameterOverrides overrides_from(const py::dict& overrides) {
  ParameterOverrides out;
  for (auto item : overrides) {
    const std::string name = py::str(item.first);
    // numbers keep every digit; strings are formulas in the other parameters
    out.emplace_back(name, item.second.cast<Formula>().text);
  }
  return out;
}

}  // namespace

void bind_model(py::module_& m) {
  bind_settings(m);
  bind_body(m);
  bind_action(m);
  bind_model_class(m);
  m.def(
      "load_model",
      [](const std::string& path, const py::dict& overrides) {
        const ParameterOverrides sets = overrides_from(overrides);
        py::gil_scoped_release release;
        return load_model(path, sets);
      },
      py::arg("path"), py::arg("overrides") = py::dict(),
      "load_model(path, overrides={}) -> Model\n\n"
      "Loads and validates a model file (docs/model-file.md). `overrides` replaces parameter "
      "values, like the command line's --set name=value: numbers, or strings that are "
      "formulas in the other parameters ({'theta0': '20*deg'}). Raises ModelError with the "
      "file:line:column.");
  m.def(
      "parse_model",
      [](const std::string& text, const std::string& source_name, const py::dict& overrides) {
        const ParameterOverrides sets = overrides_from(overrides);
        py::gil_scoped_release release;
        return parse_model(text, source_name, sets);
      },
      py::arg("text"), py::arg("source_name") = "<string>", py::arg("overrides") = py::dict(),
      "parse_model(text, source_name='<string>', overrides={}) -> Model\n\n"
      "The same as load_model, from the text of a model file; messages name `source_name`.");
  m.def("integrators", &stepper_names, "Names of the integrators (Settings.integrator).");
  m.def("joint_types", &standard_joint_types, "Names of the standard joint types.");
}

}  // namespace ictus::python
