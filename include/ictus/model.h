// The Model: what the user described, validated. It knows nothing about
// integration. A model file is loaded into exactly these objects, and a C++
// program can build the same objects directly (docs/tutorial.md).
#pragma once

#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ictus/body.h"
#include "ictus/contact.h"
#include "ictus/error.h"
#include "ictus/expression.h"
#include "ictus/force.h"
#include "ictus/joint.h"
#include "ictus/shape.h"
#include "ictus/stepper.h"

namespace ictus {

/// Prescribes a joint coordinate as a function of time (a rheonomic
/// constraint): the angle of a revolute/cylindrical joint or the translation
/// of a prismatic/cylindrical joint. It adds one elementary constraint to the
/// joint; its multiplier is the actuator torque or force.
struct Driver {
  enum class Coordinate { kAngle, kTranslation };
  std::string name;
  std::string joint;  ///< name of the driven joint
  Coordinate coordinate = Coordinate::kAngle;
  Motion motion;  ///< joint coordinate [rad or m] as a function of t
  SourceLocation where;
};

/// What an event does.
struct Action {
  enum class Kind {
    kStop,     ///< end the run (successfully)
    kEnable,   ///< switch an element on (force, driver, joint, or one constraint)
    kDisable,  ///< switch it off
    kImpulse,  ///< apply an external impulse to a body (seed 000 eqs. 3-4, K pe)
  };
  Kind kind = Kind::kStop;
  std::string target;                   ///< element name (kEnable/kDisable) or body name (kImpulse)
  Vec3 linear_impulse = Vec3::Zero();   ///< kImpulse: [N s], world axes
  Vec3 angular_impulse = Vec3::Zero();  ///< kImpulse: [N m s], world axes
  Vec3 point_B = Vec3::Zero();          ///< kImpulse: where the linear impulse acts, body frame
  SourceLocation where;
};

/// A zero-crossing event: fires when `condition` becomes true (and, if
/// `on_false` is not empty, again when it becomes false).
struct Event {
  std::string name;
  Condition condition;
  std::vector<Action> on_true;
  std::vector<Action> on_false;
  bool once = false;  ///< disarmed after the first firing
  SourceLocation where;
};

/// Integrator choice and its options (stepper.h: StepperOptions holds the
/// tolerances, the step and the parameters of each method).
struct IntegratorSettings : StepperOptions {
  std::string name = "dopri5";  ///< one of stepper_names()
  /// Option keys given explicitly (model file or command line), checked
  /// against the keys the chosen integrator reads.
  std::vector<std::string> given;
  std::vector<SourceLocation> given_where;  ///< where each given key is (parallel to given)
  SourceLocation where;
};

/// Drift control of the constraints (seed 000 eqs. 6-7).
struct StabilisationSettings {
  double baumgarte_position = 100.0;    ///< beta_c [1/s^2] multiplying Delta
  double baumgarte_velocity = 20.0;     ///< beta_k [1/s] multiplying Delta'
  bool projection = false;              ///< project positions and velocities after each step
  double projection_tolerance = 1e-10;  ///< position violation that triggers projection [m, rad]
};

/// A requested output channel: an exact name or a pattern with '*'.
struct OutputRequest {
  std::string pattern;
  SourceLocation where;
};

/// A windowed extremum for the run summary (model file `summary: peaks:`):
/// the signed value of the largest |channel| (or its minimum, or maximum)
/// over the samples with from <= t <= to, and its time. Seed 003's "peak
/// acceleration" is the minimum inside the pulse (issue 16: t < pi/10), not
/// the jump at the velocity reversal after it.
struct SummaryPeak {
  enum class Kind { kLargestMagnitude, kMinimum, kMaximum };
  std::string channel;
  Kind kind = Kind::kLargestMagnitude;
  double from = -std::numeric_limits<double>::infinity();
  double to = std::numeric_limits<double>::infinity();
  std::string label;  ///< as printed; the channel name if not given
  SourceLocation where;
};

/// A spectrum line of the run summary (model file `summary: spectra:`): the
/// dominant frequencies of a channel's amplitude spectrum over the samples
/// with from <= t <= to (include/ictus/spectrum.h). `lowest` [Hz], when
/// given, is the lowest frequency the user wants resolved: the window must
/// hold two of its periods.
struct SummarySpectrum {
  std::string channel;
  double from = -std::numeric_limits<double>::infinity();
  double to = std::numeric_limits<double>::infinity();
  double lowest = 0.0;  ///< [Hz]; 0: not given
  int peaks = 3;        ///< dominant frequencies printed
  std::string label;    ///< as printed; the channel name if not given
  SourceLocation where;
  SourceLocation lowest_where;  ///< the `lowest` key, if given
};

/// What to simulate and what to write.
struct SimulationSettings {
  /// How constraints that close with violated velocities are imposed:
  /// by an impulse (seed 000 eqs. 3-5), or left to the Baumgarte terms, which
  /// pull the velocities onto the constraint over a time of about 1/beta_k
  /// (the alternative seed 000 compares against in its figure 4).
  enum class Closure { kImpulse, kBaumgarte };
  Closure closure = Closure::kImpulse;
  double start = 0.0;
  double until = 1.0;
  double output_step = 0.01;             ///< spacing of the samples written to results.csv
  std::vector<OutputRequest> outputs;    ///< channels or patterns ("pivot.*"); empty: defaults
  std::vector<SummaryPeak> peaks;        ///< windowed extrema for the summary (`summary:`)
  std::vector<SummarySpectrum> spectra;  ///< spectrum lines of the summary (`summary:`)
  IntegratorSettings integrator;
  StabilisationSettings stabilisation;
  /// Settings implying more steps than this are refused (implied_steps()).
  double max_steps = 1e9;
  /// Largest accepted |energy.balance| relative to the largest kinetic +
  /// |potential| energy of the run; 0: default_energy_tolerance().
  double energy_tolerance = 0.0;
  SourceLocation where;
  SourceLocation max_steps_where;         ///< the `max_steps` key, if given
  SourceLocation energy_tolerance_where;  ///< the `energy_tolerance` key, if given
};

/// The number of steps the settings fix in advance: the span over the fixed
/// step of rk4 and the structural steppers, or over max_step of an adaptive
/// stepper that has one; 0 when the step size is left to the error control.
double implied_steps(const SimulationSettings& settings);
/// Throws ModelError (at the step or max_step key) when implied_steps()
/// exceeds max_steps: settings that cannot finish in any reasonable number
/// of steps. The Simulation checks it when it is built (after command-line
/// overrides), not Model::validate().
void check_implied_steps(const SimulationSettings& settings);

/// The energy audit's tolerance when `energy_tolerance` is not given:
/// 1e-3, or 1e4 rtol for a looser adaptive stepper (docs/cli.md).
double default_energy_tolerance(const SimulationSettings& settings);
/// The tolerance the energy audit uses: `energy_tolerance` if given, else
/// default_energy_tolerance().
double energy_tolerance(const SimulationSettings& settings);

/// A point fixed in a body whose position and velocity are output channels
/// ("<name>.x", ... "<name>.vz"), e.g. a docking port or a sensor location.
struct Marker {
  std::string name;
  BodyIndex body = kGround;
  Vec3 point_B = Vec3::Zero();  ///< in the body frame
  SourceLocation where;
};

/// A channel whose initial value is held exactly while the other initial
/// velocities are found ("these velocities are given, find the rest", seed 000).
struct GivenVelocity {
  std::string channel;  ///< e.g. "crank.omega" or "wheel.vx"
  Expression value;
  SourceLocation where;
};

class Model {
 public:
  Model();

  // --- building -----------------------------------------------------------
  /// Adds a validated body; returns its index. Names must be unique.
  BodyIndex add_body(Body body);
  /// Adds a joint of a standard type placed in world coordinates at the
  /// initial configuration. Returns its index.
  int add_joint(const std::string& name, const std::string& type, const std::string& base,
                const std::string& follower, const JointPlacement& placement,
                SourceLocation where = {});
  /// Adds a joint built by hand (frames and members set). Returns its index.
  int add_joint(Joint joint);
  void add_force(std::unique_ptr<ForceElement> force);
  /// Adds a joint limit (contact.h): its joint must exist and have the
  /// coordinate it limits, lower <= upper, restitution in [0, 1].
  void add_contact(JointLimitContact contact);
  /// Adds a shape to a body (or the ground): positive sizes, unit vectors.
  void add_shape(Shape shape);
  /// Adds a contact between the shapes of two bodies: different bodies, not
  /// both the ground, each with a shape, pairs of supported types.
  void add_shape_contact(ShapeContact contact);
  /// The checks of add_shape_contact without adding it (a compliant contact
  /// between shapes is a force element on the same contact points).
  void check_shape_contact(const ShapeContact& contact) const;
  /// Its friction: mu >= 0, mu <= mu_static, a plane in each pair, no
  /// rounded shape on a body that turns.
  void check_contact_friction(const ShapeContact& contact, BodyIndex a, BodyIndex b) const;
  void add_driver(Driver driver);
  /// Adds an event. Its name is an identifier, or "<element>.<what>" for
  /// events generated from an element's switching keys (until, after, ...).
  void add_event(Event event);
  /// Marks a switchable element (force, driver, joint, joint member) as off
  /// at the start of the run.
  void set_initially_enabled(const std::string& element, bool on);
  void add_given_velocity(GivenVelocity given);
  void add_marker(Marker marker);
  /// Sets gravity (world axes) and adds the gravity force element.
  void set_gravity(const Vec3& g, SourceLocation where = {});
  void set_parameter(const std::string& name, double value);

  SimulationSettings& settings() { return settings_; }
  const SimulationSettings& settings() const { return settings_; }

  // --- reading ------------------------------------------------------------
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }
  const std::vector<Body>& bodies() const { return bodies_; }
  const std::vector<Joint>& joints() const { return joints_; }
  const std::vector<std::unique_ptr<ForceElement>>& forces() const { return forces_; }
  const std::vector<Driver>& drivers() const { return drivers_; }
  const std::vector<JointLimitContact>& contacts() const { return contacts_; }
  const std::vector<Shape>& shapes() const { return shapes_; }
  const std::vector<ShapeContact>& shape_contacts() const { return shape_contacts_; }
  const std::vector<Event>& events() const { return events_; }
  const std::vector<GivenVelocity>& given_velocities() const { return given_; }
  const std::vector<std::string>& initially_disabled() const { return initially_disabled_; }
  const std::vector<Marker>& markers() const { return markers_; }
  const std::map<std::string, double, std::less<>>& parameters() const { return parameters_; }
  const Vec3& gravity() const { return gravity_; }

  /// Index of the body called `name` (kGround for "ground"); throws ModelError
  /// naming `element` at `where` with the known names if there is none.
  BodyIndex body_index(const std::string& name, const std::string& element = {},
                       const SourceLocation& where = {}) const;
  /// Index of the joint called `name`, or -1.
  int find_joint(const std::string& name) const;
  /// Name of body b ("ground" for kGround).
  const std::string& body_name(BodyIndex b) const;
  /// Initial position and orientation of body b (origin/identity for ground).
  Vec3 initial_position(BodyIndex b) const;
  Quat initial_orientation(BodyIndex b) const;

  /// Checks cross references (event targets, driver joints) that can only be
  /// checked once everything is added. Throws ModelError.
  void validate() const;

  Model(const Model& other);
  Model& operator=(const Model& other);
  Model(Model&&) noexcept = default;
  Model& operator=(Model&&) noexcept = default;

 private:
  void claim_name(const std::string& name, const std::string& element, const SourceLocation& where);

  std::string name_ = "model";
  std::vector<Body> bodies_;
  std::vector<Joint> joints_;
  std::vector<std::unique_ptr<ForceElement>> forces_;
  std::vector<Driver> drivers_;
  std::vector<JointLimitContact> contacts_;
  std::vector<Shape> shapes_;
  std::vector<ShapeContact> shape_contacts_;
  std::vector<Event> events_;
  std::vector<GivenVelocity> given_;
  std::vector<std::string> initially_disabled_;
  std::vector<Marker> markers_;
  std::map<std::string, double, std::less<>> parameters_;
  std::map<std::string, std::string, std::less<>> names_;  // element name -> kind
  Vec3 gravity_ = Vec3::Zero();
  SimulationSettings settings_;
};

}  // namespace ictus
