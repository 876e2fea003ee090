#include "ictus/system.h"

#include <fmt/format.h>

#include <span>
#include <stdexcept>
#include <unordered_map>

#include "dependency_order.h"
#include "ictus/constraints/distance.h"
#include "ictus/constraints/point_on_plane.h"
#include "ictus/constraints/rotation_hold.h"
#include "ictus/constraints/rotation_lock.h"
#include "ictus/forces/contact_friction.h"
#include "ictus/forces/joint_friction.h"
#include "ictus/shape_contact_points.h"
#include "system_impl.h"
#include "text_util.h"

namespace ictus {

namespace {

// The services a force element may use while the System is built.
class BuildContext final : public ForceBuildContext {
 public:
  explicit BuildContext(System::Impl& impl) : impl_(impl) {}
  const std::vector<Body>& bodies() const override { return impl_.model.bodies(); }
  const Joint& joint(const std::string& name, const std::string& element,
                     const SourceLocation& where) const override {
    const int j = impl_.model.find_joint(name);
    if (j < 0) {
      std::vector<std::string> names;
      for (const Joint& jt : impl_.live_joints) names.push_back(jt.name);
      throw ModelError(
          where, element,
          fmt::format("unknown joint '{}'{}; known joints: {}", name,
                      internal::did_you_mean(name, names), internal::join_names(names)));
    }
    return impl_.live_joints[static_cast<std::size_t>(j)];
  }
  std::unique_ptr<internal::CompiledExpression> compile(const Expression& expr,
                                                        const std::string& element) override {
    auto compiled = impl_.compile(expr, element, false);
    // a formula of positions or velocities may couple any bodies (system_coupling.cpp)
    for (const std::string& v : compiled->variables())
      if (v != "t") impl_.force_formulas_read_state = true;
    return compiled;
  }
  const double* bind_channel(const std::string& channel, const std::string& element,
                             const SourceLocation& where) override {
    double* slot = impl_.bind_slot(channel, false);
    if (slot == nullptr)
      throw ModelError(where, element, fmt::format("unknown channel '{}'", channel));
    return slot;
  }

 private:
  System::Impl& impl_;
};

}  // namespace

System::Impl::Impl(std::shared_ptr<const CompiledModel> m)
    : compiled(std::move(m)), model(compiled->model()), live_joints(model.joints()) {
  n = static_cast<int>(model.bodies().size());
  layout = compiled->layout();
  stabilisation = model.settings().stabilisation;
  for (int b = 0; b < n; ++b)
    inverse_mass.push_back({compiled->inverse_mass(b), compiled->inverse_inertia(b)});
  kin.resize(static_cast<std::size_t>(n));
  loads.resize(static_cast<std::size_t>(n));
  frozen_loads.resize(static_cast<std::size_t>(n));
  accelerations.assign(static_cast<std::size_t>(n), Vec6::Zero());
  free_accelerations.assign(static_cast<std::size_t>(n), Vec6::Zero());
  y = VecX::Zero(layout.size());
  row_positions = VecX::Zero(layout.position_size());
  time_slot = &slot_storage.emplace_back(0.0);

  build_instances();
  for (const auto& f : model.forces()) forces.push_back(f->clone());
  // Coulomb friction of the joints (seed 004): stick/slip elements of their own
  for (const Joint& joint : live_joints)
    if (joint.friction.present) forces.push_back(std::make_unique<JointFrictionElement>(joint));
  // ... and of the contacts: two per point, along the plane's tangents
  for (const ShapeContact& contact : model.shape_contacts()) {
    if (!contact.friction.present) continue;
    const std::vector<ShapeContactPoint> points = shape_contact_points(
        model.shapes(), model.body_index(contact.body_a), model.body_index(contact.body_b));
    for (std::size_t p = 0; p < points.size(); ++p)
      for (const int axis : {0, 1})
        forces.push_back(std::make_unique<ContactFrictionElement>(
            shape_contact_side_name(contact.name, p, points.size()), points[p], contact.friction,
            axis));
  }
  force_enabled.assign(forces.size(), 1);
  angle_reference.assign(live_joints.size(), 0.0);
  angle_rate_reference.assign(live_joints.size(), 0.0);
  reference_time = model.settings().start;
  for (std::size_t j = 0; j < live_joints.size(); ++j)
    angle_reference[j] = live_joints[j].angle_offset;
  orientation_reference.assign(2 * (static_cast<std::size_t>(n) + live_joints.size()),
                               Vec3::Zero());
  orientation_rate_reference = orientation_reference;
  orientation_followed.assign(orientation_reference.size(), 0);
  register_channels();
  BuildContext ctx(*this);
  force_reads.assign(forces.size(), {});
  for (std::size_t f = 0; f < forces.size(); ++f) {
    preparing_force = static_cast<int>(f);
    forces[f]->prepare(ctx);
  }
  preparing_force = -1;
  order_kinematic_slots();
  build_drivers();
  build_holds();
  build_joint_friction();  // system_joint_friction.cpp
  build_contact_holds();   // system_contacts.cpp
  link_contact_friction();
  register_contact_channels();
  build_impulse_storage();
  build_given_rows();
  mark_event_switched_constraints();
}

void System::Impl::build_instances() {
  const auto& joints = live_joints;
  joint_instances.assign(joints.size(), {});
  joint_enabled.assign(joints.size(), 1);
  joint_enabled_before.assign(joints.size(), 1);
  for (std::size_t j = 0; j < joints.size(); ++j)
    for (const JointMember& m : joints[j].members) {
      Instance inst;
      inst.joint = static_cast<int>(j);
      inst.constraint = m.constraint;
      inst.label = m.label;
      inst.is_lock = dynamic_cast<const RotationLock*>(m.constraint.get()) != nullptr;
      joint_instances[j].push_back(static_cast<int>(instances.size()));
      instances.push_back(std::move(inst));
    }
}

void System::Impl::build_drivers() {
  for (const Driver& d : model.drivers()) {
    const int j = model.find_joint(d.joint);
    const Joint& joint = live_joints[static_cast<std::size_t>(j)];
    const std::string element = fmt::format("driver '{}'", d.name);
    DriverRuntime rt;
    rt.joint = j;
    rt.coordinate = d.coordinate;
    Instance inst;
    inst.joint = j;
    inst.label = d.name;
    inst.driver = static_cast<int>(drivers.size());
    if (d.coordinate == Driver::Coordinate::kAngle) {
      rt.offset = joint.angle_offset;
      inst.constraint = std::make_shared<RotationLock>(joint.frame_base.axes.col(2),
                                                       joint.frame_follower.axes.col(2), true);
      inst.is_lock = true;
    } else {
      rt.offset = joint.translation_offset;
      inst.constraint = std::make_shared<PointOnPlane>(
          joint.frame_base.origin, joint.frame_base.axes.col(2), joint.frame_follower.origin, true);
    }
    // motions are functions of time only: their derivatives must be exact
    auto compile_motion = [&](const Expression& e) {
      auto c = compile(e, element, false);
      for (const std::string& v : c->variables())
        if (v != "t")
          throw ModelError(e.where, element,
                           fmt::format("a prescribed motion may depend on t and parameters only, "
                                       "not on '{}'",
                                       v));
      return c;
    };
    rt.value = compile_motion(d.motion.value);
    if (!d.motion.rate_text.empty())
      rt.rate = compile_motion(Expression(d.motion.rate_text, d.motion.value.where));
    if (!d.motion.acceleration_text.empty())
      rt.acceleration =
          compile_motion(Expression(d.motion.acceleration_text, d.motion.value.where));
    rt.instance = static_cast<int>(instances.size());
    joint_instances[static_cast<std::size_t>(j)].push_back(rt.instance);
    instances.push_back(std::move(inst));
    drivers.push_back(std::move(rt));
  }
}

void System::Impl::hold_joint_coordinate(const Joint& joint, bool angle, DriverRuntime& rt,
                                         Instance& inst) {
  if (angle) {
    rt.coordinate = Driver::Coordinate::kAngle;
    rt.offset = joint.angle_offset;
    inst.constraint = std::make_shared<RotationLock>(joint.frame_base.axes.col(2),
                                                     joint.frame_follower.axes.col(2), true);
    inst.is_lock = true;
  } else {
    rt.coordinate = Driver::Coordinate::kTranslation;
    rt.offset = joint.translation_offset;
    inst.constraint = std::make_shared<PointOnPlane>(
        joint.frame_base.origin, joint.frame_base.axes.col(2), joint.frame_follower.origin, true);
  }
}

// A stuck element's coordinate is held by a driver row at its value at the
// instant of sticking (force.h, stick/slip law): a translation driver
// (point-on-plane) or a rotation driver (rotation lock) of its joint, or,
// between two points, a distance row between them; off while the element
// slips. Its multiplier is the friction force; it does no work (rate 0), up
// to the drift the Baumgarte terms remove.
void System::Impl::build_holds() {
  for (std::size_t f = 0; f < forces.size(); ++f) {
    const ForceElement& force = *forces[f];
    if (!force.has_stick_slip()) continue;
    DriverRuntime rt;
    rt.hold_force = static_cast<int>(f);
    Instance inst;
    inst.label = force.name() + ".stick";
    inst.driver = static_cast<int>(drivers.size());
    inst.enabled = 0;  // the element starts slipping; Simulation decides at t0
    rt.instance = static_cast<int>(instances.size());
    BodyIndex row_base = kGround, row_follower = kGround;
    std::shared_ptr<const ElementaryConstraint> row;
    const auto* joint_friction = dynamic_cast<const JointFrictionElement*>(&force);
    if (joint_friction != nullptr && joint_friction->ball()) {
      // a ball's stuck hold: all relative rotation, three rows of no joint
      // (the joint's own rows stay its reaction, the normal force)
      const Joint& joint =
          live_joints[static_cast<std::size_t>(model.find_joint(joint_friction->joint()))];
      rt.coordinate = Driver::Coordinate::kAngle;
      rt.hold_rotation = true;
      inst.base = joint.base;
      inst.follower = joint.follower;
      inst.constraint = std::make_shared<RotationHold>();
      free_instances.push_back(rt.instance);
    } else if (force.hold_constraint(&row_base, &row_follower, &row)) {
      // a row of no joint (a contact point's tangent), held at its value
      rt.coordinate = Driver::Coordinate::kTranslation;
      rt.hold_own_row = true;
      inst.base = row_base;
      inst.follower = row_follower;
      inst.constraint = std::move(row);
      free_instances.push_back(rt.instance);
    } else if (force.hold_joint().empty()) {
      BodyIndex a = kGround, b = kGround;
      Vec3 pa = Vec3::Zero(), pb = Vec3::Zero();
      if (!force.hold_points(&a, &pa, &b, &pb))
        throw ModelError(force.where(), force.element_label(),
                         "structural_damping and dry_friction need a joint coordinate or two "
                         "attachment points to hold");
      // the hold row acts along the line of the points: coincident points
      // give it no direction (and the slip force none either)
      auto world = [&](BodyIndex body, const Vec3& p) -> Vec3 {
        if (body == kGround) return p;
        const Body& bd = model.bodies()[static_cast<std::size_t>(body)];
        return bd.position + bd.orientation.normalized() * p;
      };
      const double length = (world(b, pb) - world(a, pa)).norm();
      if (!(length > 1e-12))
        throw ModelError(force.where(), force.element_label(),
                         fmt::format("structural_damping and dry_friction act along the line of "
                                     "the two attachment points, and these coincide at the start "
                                     "(distance {:.3g} m): give points apart, or put the element "
                                     "on a joint coordinate ('joint:')",
                                     length));
      rt.coordinate = Driver::Coordinate::kTranslation;
      rt.hold_distance = true;
      rt.hold_point_base = pa;
      rt.hold_point_follower = pb;
      inst.base = a;
      inst.follower = b;
      inst.constraint = std::make_shared<Distance>(pa, pb, length, true);
      free_instances.push_back(rt.instance);
    } else {
      const int j = model.find_joint(force.hold_joint());
      const Joint& joint = live_joints[static_cast<std::size_t>(j)];
      rt.joint = j;
      inst.joint = j;
      hold_joint_coordinate(joint, force.hold_is_angle(), rt, inst);
      joint_instances[static_cast<std::size_t>(j)].push_back(rt.instance);
    }
    instances.push_back(std::move(inst));
    stick_slip_forces.push_back(static_cast<int>(f));
    hold_driver.push_back(static_cast<int>(drivers.size()));
    drivers.push_back(std::move(rt));
    forces[f]->set_mode(kSlipPositive);
  }
}

int System::Impl::hold_row(int k) const {
  const DriverRuntime& d =
      drivers[static_cast<std::size_t>(hold_driver[static_cast<std::size_t>(k)])];
  return instance_row[static_cast<std::size_t>(d.instance)];
}

void System::Impl::build_impulse_storage() {
  driver_samples.assign(drivers.size(), MotionSample{});
  // storage for the impulses of the last impact, per row of every instance
  int total_rows = 0;
  for (const Instance& inst : instances) {
    impulse_offset.push_back(total_rows);
    total_rows += inst.constraint->row_count();
  }
  impulses.assign(static_cast<std::size_t>(total_rows), 0.0);
  joint_impulse_force.assign(live_joints.size(), Vec3::Zero());
  joint_impulse_moment.assign(live_joints.size(), Vec3::Zero());
}

double* System::Impl::bind_slot(const std::string& name, bool allow_dynamics) {
  if (name == "t") return time_slot;
  const auto it = channel_index.find(name);
  if (it == channel_index.end()) return nullptr;
  const int channel = it->second;
  note_channel_read(channel);
  if (preparing_force >= 0)
    force_reads[static_cast<std::size_t>(preparing_force)].push_back(channel);
  const bool dynamic = channel_info[static_cast<std::size_t>(channel)].stage == Stage::kDynamics;
  if (dynamic && !allow_dynamics) return nullptr;
  if (const auto s = slot_by_name.find(name); s != slot_by_name.end()) return s->second;
  double* slot = &slot_storage.emplace_back(0.0);
  slot_by_name.emplace(name, slot);
  (dynamic ? dynamic_slots : kinematic_slots).push_back({slot, channel});
  return slot;
}

std::unique_ptr<internal::CompiledExpression> System::Impl::compile(const Expression& expr,
                                                                    const std::string& element,
                                                                    bool allow_dynamics) {
  class Scope final : public internal::VariableScope {
   public:
    Scope(System::Impl& impl, bool dynamics) : impl_(impl), dynamics_(dynamics) {}
    double* bind(const std::string& name) override {
      double* slot = impl_.bind_slot(name, dynamics_);
      if (slot == nullptr && !dynamics_) {
        const auto it = impl_.channel_index.find(name);
        if (it != impl_.channel_index.end()) rejected = name;
      }
      return slot;
    }
    std::vector<std::string> known_names() const override {
      std::vector<std::string> names{"t"};
      for (const ChannelInfo& c : impl_.channel_info)
        if (dynamics_ || c.stage == Stage::kKinematics) names.push_back(c.name);
      return names;
    }
    std::string rejected;

   private:
    System::Impl& impl_;
    bool dynamics_;
  };
  Scope scope(*this, allow_dynamics);
  try {
    return std::make_unique<internal::CompiledExpression>(expr, model.parameters(), scope, element);
  } catch (const ModelError& e) {
    if (scope.rejected.empty()) throw;
    throw ModelError(e.where(), e.element(),
                     fmt::format("channel '{}' depends on accelerations or reactions and cannot "
                                 "be used in a force or motion formula (it can in a condition)",
                                 scope.rejected));
  }
}

// Orders the kinematic slots so that each is refreshed after the slots its
// value depends on: a force element's channel evaluates the element's
// formulas, which read other slots (possibly other elements' channels). In
// the order of binding, an element listed before the one whose channel it
// reads would see that channel one evaluation late. A depth-first walk with
// an explicit stack; elements that read each other's channels are a cycle.
void System::Impl::order_kinematic_slots() {
  std::unordered_map<int, std::size_t> slot_of_channel;
  for (std::size_t k = 0; k < kinematic_slots.size(); ++k)
    slot_of_channel.emplace(kinematic_slots[k].channel, k);
  auto channel_of = [&](std::size_t k) {
    return static_cast<std::size_t>(kinematic_slots[k].channel);
  };
  std::vector<std::vector<std::size_t>> dependencies(kinematic_slots.size());
  for (std::size_t k = 0; k < kinematic_slots.size(); ++k) {
    const int f = force_of_channel[channel_of(k)];
    if (f < 0) continue;
    for (const int read : force_reads[static_cast<std::size_t>(f)])
      // a dynamic channel has no slot: it is refused when the formula is compiled
      if (const auto found = slot_of_channel.find(read); found != slot_of_channel.end())
        dependencies[k].push_back(found->second);
  }
  auto cycle = [&](std::span<const std::size_t> chain) {
    std::string names;
    for (const std::size_t k : chain) names += channel_info[channel_of(k)].name + " -> ";
    const std::size_t closing = channel_of(chain.front());
    const ForceElement& element = *forces[static_cast<std::size_t>(force_of_channel[closing])];
    throw ModelError(element.where(), element.element_label(),
                     fmt::format("force channels read each other in a cycle ({}{}): each "
                                 "reads a value the other computes from it",
                                 names, channel_info[closing].name));
  };
  std::vector<Slot> ordered;
  ordered.reserve(kinematic_slots.size());
  for (const std::size_t k : internal::dependency_order(dependencies, cycle))
    ordered.push_back(kinematic_slots[k]);
  kinematic_slots = std::move(ordered);
}

void System::Impl::add_channel(std::string name, std::string unit, Stage stage,
                               std::string description, std::function<double()> getter) {
  force_of_channel.push_back(-1);
  channel_brings_own_stage.push_back(0);
  channel_index.emplace(name, static_cast<int>(channel_info.size()));
  channel_info.push_back({std::move(name), std::move(unit), stage, std::move(description)});
  channel_getters.push_back(std::move(getter));
}

// ---------------------------------------------------------------------------

System::System(const Model& model) : System(CompiledModel::make(model)) {}

System::System(std::shared_ptr<const CompiledModel> compiled)
    : impl_(std::make_unique<Impl>(std::move(compiled))) {
  for (const std::string& element : impl_->model.initially_disabled()) set_enabled(element, false);
  // analyse the constraint structure at the initial state so that redundancy
  // warnings and inconsistent sets surface when the system is built
  impl_->compute_kinematics(impl_->model.settings().start, initial_state());
  impl_->ensure_structure();
  impl_->body_group = coupling_groups();
}

const std::shared_ptr<const CompiledModel>& System::compiled_model() const {
  return impl_->compiled;
}

System::~System() = default;

const Model& System::model() const {
  return impl_->model;
}
int System::body_count() const {
  return impl_->n;
}
int System::state_size() const {
  return impl_->layout.size();
}

VecX System::initial_state() const {
  const int n = impl_->n;
  const StateLayout& l = impl_->layout;
  VecX y = VecX::Zero(l.size());
  for (int b = 0; b < n; ++b) {
    const Body& body = impl_->model.bodies()[static_cast<std::size_t>(b)];
    l.body_position(y, b) = body.position;
    const Quat q = body.orientation.normalized();
    l.body_quaternion(y, b) << q.w(), q.x(), q.y(), q.z();
    l.body_velocity(y, b).head<3>() = body.velocity;
    l.body_velocity(y, b).tail<3>() = q.toRotationMatrix().transpose() * body.angular_velocity;
  }
  return y;
}

std::vector<std::string> System::switchable_elements() const {
  std::vector<std::string> names;
  for (const auto& f : impl_->forces) names.push_back(f->name());
  for (const Driver& d : impl_->model.drivers()) names.push_back(d.name);
  for (const Joint& j : impl_->live_joints) {
    names.push_back(j.name);
    for (const JointMember& m : j.members) names.push_back(j.name + "." + m.label);
  }
  return names;
}

namespace {
// Finds the switch flag of `element` (force, driver, joint, joint member).
char* find_switch(System::Impl& impl, std::string_view element, bool* structural) {
  for (std::size_t i = 0; i < impl.forces.size(); ++i)
    if (impl.forces[i]->name() == element) {
      *structural = false;
      return &impl.force_enabled[i];
    }
  *structural = true;
  for (const System::Impl::DriverRuntime& d : impl.drivers) {
    if (d.hold_force >= 0 || d.hold_contact >= 0) continue;  // switched by its element's mode
    System::Impl::Instance& inst = impl.instances[static_cast<std::size_t>(d.instance)];
    if (inst.label == element) return &inst.enabled;
  }
  const auto& joints = impl.live_joints;
  for (std::size_t j = 0; j < joints.size(); ++j) {
    if (joints[j].name == element) return &impl.joint_enabled[j];
    for (const int i : impl.joint_instances[j]) {
      System::Impl::Instance& inst = impl.instances[static_cast<std::size_t>(i)];
      if (inst.driver < 0 && joints[j].name + "." + inst.label == element) return &inst.enabled;
    }
  }
  return nullptr;
}
}  // namespace

bool System::switch_is_structural(std::string_view element) const {
  bool structural = false;
  if (find_switch(*impl_, element, &structural) == nullptr)
    throw std::invalid_argument(fmt::format("unknown element '{}'", element));
  return structural;
}

bool System::enabled(std::string_view element) const {
  bool structural = false;
  const char* flag = find_switch(*impl_, element, &structural);
  if (flag == nullptr) throw std::invalid_argument(fmt::format("unknown element '{}'", element));
  return *flag != 0;
}

bool System::set_enabled(std::string_view element, bool on) {
  bool structural = false;
  char* flag = find_switch(*impl_, element, &structural);
  if (flag == nullptr) throw std::invalid_argument(fmt::format("unknown element '{}'", element));
  if ((*flag != 0) == on) return false;
  *flag = on ? 1 : 0;
  if (structural) impl_->mark_structure_changed();
  impl_->forget_evaluation();  // formula slots may read this element's channels
  return structural;
}

void System::add_switching_energy(VecX& y, double energy) const {
  y(13 * impl_->n + kAuxDissipated) += energy;
  y(13 * impl_->n + kAuxSwitching) += energy;
}

int System::structure_version() const {
  return impl_->structure_version;
}

const StateLayout& System::layout() const {
  return impl_->layout;
}

bool System::Impl::is_current(double time, const VecX& state) {
  // positions and velocities decide everything but the audit channels: a
  // state that differs only in its audit quadratures reuses the evaluation
  const int nqv = layout.audit_offset();
  if (!(state_current && time == t && state.head(nqv) == y.head(nqv))) return false;
  y.tail(kAuxCount) = state.tail(kAuxCount);
  return true;
}

void System::accelerations(double t, const VecX& y, Eigen::Ref<VecX> rates) {
  Impl& s = *impl_;
  if (s.is_current(t, y)) {
    s.ensure_dynamics();
  } else {
    s.compute_all(t, y);
  }
  const int n = s.n;
  for (int b = 0; b < n; ++b)
    rates.segment<6>(6 * b) = s.accelerations[static_cast<std::size_t>(b)];
  rates(s.layout.velocity_size() + kAuxAppliedWork) = s.power.applied;
  rates(s.layout.velocity_size() + kAuxDriverWork) = s.driver_power;
  rates(s.layout.velocity_size() + kAuxDissipated) = s.power.dissipated;
  rates(s.layout.velocity_size() + kAuxImpactLoss) = 0.0;  // these change only in jumps, at events
  rates(s.layout.velocity_size() + kAuxSwitching) = 0.0;
}

bool System::has_nonlinear_forces() const {
  for (const auto& f : impl_->forces)
    if (f->has_nonlinear_part()) return true;
  return false;
}

void System::freeze_nonlinear_forces(double t, const VecX* y) {
  Impl& s = *impl_;
  if (y != nullptr) {
    s.freeze_nonlinear_loads(t, *y);
  } else if (s.nonlinear_frozen) {
    s.nonlinear_frozen = false;
    s.forget_evaluation();
  }
}

void System::evaluate(double t, const VecX& y, Stage stage) {
  Impl& s = *impl_;
  // the state of the last evaluation (the steppers' last stage is the end
  // of the step, where the events are checked next) needs no second solve
  if (!s.is_current(t, y)) s.compute_kinematics(t, y);
  if (stage == Stage::kDynamics) s.ensure_dynamics();
}

bool System::accept(double t, VecX& y) {
  Impl& s = *impl_;
  bool changed = false;
  // judged at the accepted state itself: not at the stepper's last stage (a
  // predicted state for rk4 and the structural steppers, none for
  // moreau_jean) nor where a probe on the step's dense output left the System
  s.compute_kinematics(t, y);
  if (s.rank_lowered || s.dropped_row_violated()) {
    // the rank of D went up, or may have: a row dropped at a singular
    // configuration comes back as soon as the geometry allows, before its
    // direction drifts (issue 13 defect 2)
    const bool was_lowered = s.rank_lowered;
    const long built_rank = s.structure_rank;
    changed = s.redetect_rank(t);
    // rows back after a singular configuration: what drifted along them
    // while they were out is removed at once, so that no Baumgarte transient
    // follows (the drift is of second order in the window, singular_window).
    // Also where the structure was built at one (a mechanism started flat):
    // its rows were out for the first step, and a parallelogram left with
    // its cranks 5e-5 rad apart took the other branch at its next passage
    const bool raised = s.structure_rank > built_rank;
    if (changed && (was_lowered || raised) && !s.rank_lowered) {
      const double kinetic = s.kinetic_energy();
      project(t, y);
      if (raised) s.warn_branch_not_fixed(t, kinetic - s.kinetic_energy(), kinetic);
    }
  }
  s.log_rank_change(t);
  s.compute_kinematics(t, y);
  s.warn_passed_through(t);
  for (std::size_t j = 0; j < s.angle_reference.size(); ++j)
    if (s.live_joints[j].has_angle) {
      s.angle_reference[j] = s.joint_angle(static_cast<int>(j));
      s.angle_rate_reference[j] = s.joint_angle_rate(static_cast<int>(j));
    }
  s.reference_time = t;
  s.update_orientation_reference();
  return changed;
}

int System::channel_count() const {
  return static_cast<int>(impl_->channel_info.size());
}
const ChannelInfo& System::channel_info(int k) const {
  return impl_->channel_info[static_cast<std::size_t>(k)];
}
int System::find_channel(std::string_view name) const {
  const auto it = impl_->channel_index.find(std::string(name));
  if (it == impl_->channel_index.end()) return -1;
  impl_->note_channel_read(it->second);
  return it->second;
}
void System::follow_orientation_channels() {
  std::fill(impl_->orientation_followed.begin(), impl_->orientation_followed.end(), 1);
}
double System::channel_value(int k) const {
  impl_->note_channel_read(k);
  const auto ki = static_cast<std::size_t>(k);
  if (impl_->channel_info[ki].stage == Stage::kDynamics && impl_->channel_brings_own_stage[ki] == 0)
    impl_->ensure_dynamics();
  return impl_->channel_getters[ki]();
}

const std::vector<std::string>& System::warnings() const {
  return impl_->warnings;
}

void System::flush_warnings() {
  impl_->log_rank_change();
}

long System::rank_changes() const {
  return impl_->rank_changes;
}

std::vector<std::pair<std::string, int>> System::repeated_warnings() const {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& [text, repeats] : impl_->warning_repeats)
    if (repeats > 0) out.emplace_back(text, repeats);
  return out;
}

void System::set_tree_dynamics(bool allowed) {
  impl_->tree_allowed = allowed;
  impl_->dynamics_valid = false;
}

long System::constraint_row_evaluations() const {
  return impl_->row_evaluations;
}

long System::constraint_geometry_evaluations() const {
  return impl_->row_geometry_evaluations;
}

long System::dynamics_factorisations() const {
  return impl_->solver.factorizations() + impl_->tree.factorizations();
}

bool System::tree_dynamics_used() const {
  return impl_->tree_used;
}

int System::tree_dynamics_cut_rows() const {
  return impl_->tree_used ? impl_->tree.cut_row_count() : 0;
}

}  // namespace ictus
