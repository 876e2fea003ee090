// Internal state of ictus::System. Split over several files:
//   system.cpp            construction, element switching, public forwarding
//   system_channels.cpp   the channel table
//   system_structure.cpp  active rows, lock groups, redundancy, reports
//   system_dynamics.cpp   kinematics, loads, constraint rows, the linear solve
//   system_assembly.cpp   initial assembly, projection, impulsive corrections
#pragma once

#include <array>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiled_expression.h"
#include "constraint_jacobian.h"
#include "constraint_rank.h"
#include "contact/linear_program.h"
#include "coupled_slip.h"
#include "ictus/compiled_model.h"
#include "ictus/error.h"
#include "ictus/system.h"
#include "kkt_solver.h"
#include "schur_solver.h"
#include "spatial_slip.h"
#include "tree_kkt_solver.h"

namespace ictus {

class ReactionFriction;

// Offsets of the energy-audit entries after the positions and velocities.
inline constexpr int kAuxAppliedWork = 0;
inline constexpr int kAuxDriverWork = 1;
inline constexpr int kAuxDissipated = 2;
inline constexpr int kAuxImpactLoss = 3;  // part of the dissipated energy lost in impacts
inline constexpr int kAuxSwitching = 4;   // part of it removed with switched elements
inline constexpr int kAuxCount = 5;       // also CompiledModel's layout

// Everything of a System that a run changes (the mode and the run history),
// so that a run can be continued exactly from a copy (system_mode.cpp).
struct System::ModeSnapshot {
  int bodies = 0;
  std::size_t instance_count = 0;
  std::vector<Joint> live_joints;  // capture joints carry the frame they closed in
  std::vector<char> instance_enabled, joint_enabled, force_enabled;
  // a capture joint's rows are rebuilt with the frame it closed in
  std::vector<std::shared_ptr<const ElementaryConstraint>> instance_constraint;
  std::vector<char> newly_active, joint_newly_enabled, joint_enabled_before;
  std::vector<char> dropped;
  std::vector<std::vector<std::pair<int, double>>> self_stress;
  double singular_window = 0.0;
  double structure_sine = 0.0;
  double sine_checked_at_ratio = 0.0;
  double built_sine = 0.0;
  long structure_rank = 0;
  bool rank_lowered = false;
  bool structure_assembled = false;
  std::vector<double> driver_offset, driver_held;
  std::vector<Mat3> driver_held_rotation;  // a stuck ball's held relative orientation
  std::vector<int> force_mode;             // stick/slip modes
  std::vector<Vec3> force_slip_axis;       // a ball's slip direction (zero for the others)
  std::vector<double> force_rest_rate;     // |w| where a ball's slip started from rest
  int structure_version = 0;
  std::vector<std::string> warnings;
  std::map<std::string, int> warning_repeats;
  std::set<std::string> dependent_rows_named;
  double energy_reference = 0.0;
  double last_impact_time = 0.0;
  bool contact_split_search = false;
  std::vector<double> impulses;
  std::vector<Vec3> joint_impulse_force, joint_impulse_moment;
  std::vector<double> angle_reference, angle_rate_reference;
  double reference_time = 0.0;
  std::vector<Vec3> orientation_reference, orientation_rate_reference;
};

struct System::Impl {
  // One elementary constraint of a joint (or a driver attached to a joint).
  struct Instance {
    int joint = -1;
    std::shared_ptr<const ElementaryConstraint> constraint;
    std::string label;  // "lock_x"; a driver's own name
    int driver = -1;    // index into drivers when driven
    char enabled = 1;
    bool is_lock = false;  // RotationLock (possibly driven): joins the lock group
    // joint < 0 (the hold row of an element between two points): its bodies
    BodyIndex base = kGround;
    BodyIndex follower = kGround;
  };

  // A prescribed joint coordinate, compiled. The hold row of a stuck
  // stick/slip element is one too, without formulas: it prescribes the
  // value `held` the coordinate had when the element stuck (rate 0).
  struct DriverRuntime {
    int joint = -1;
    Driver::Coordinate coordinate = Driver::Coordinate::kAngle;
    double offset = 0.0;    // the coordinate's value in the assembled configuration
    int hold_force = -1;    // the stick/slip force element it holds, or -1 (a model driver)
    int hold_contact = -1;  // the contact side it holds closed (system_contacts.cpp), or -1
    double held = 0.0;      // held value (minus offset), for a hold row
    // a hold between two points (joint -1): a distance row, held at the
    // length the points had when the element stuck
    bool hold_distance = false;
    bool hold_own_row = false;  // a stick/slip element's own row (hold_constraint)
    // a ball's stuck hold (RotationHold, three rows): the relative orientation
    // R_base^T R_follower held, taken at the instant of sticking
    bool hold_rotation = false;
    Mat3 held_rotation = Mat3::Identity();
    Vec3 hold_point_base = Vec3::Zero();
    Vec3 hold_point_follower = Vec3::Zero();
    std::unique_ptr<internal::CompiledExpression> value;
    std::unique_ptr<internal::CompiledExpression> rate;          // may be null
    std::unique_ptr<internal::CompiledExpression> acceleration;  // may be null
    int instance = -1;
  };

  // Position-level meaning of the active rotation locks of one joint
  // (reference/README.md: locks are integrable in pairs and triples only).
  struct LockGroup {
    std::vector<int> rows;        // active lock rows of the joint
    std::vector<Vec3> axes_base;  // their axes in the base frame
    int driver_row = -1;          // the driven lock among them, if any
    int driver = -1;
    Vec3 free_base = Vec3::UnitZ();      // pairs: free axis in base coordinates
    Vec3 free_follower = Vec3::UnitZ();  // ... and the same axis in follower coordinates
  };

  // Where an active row comes from.
  struct RowInfo {
    int instance = -1;
    int k = 0;  // row within the instance
  };

  struct JointRows {
    int begin = 0;
    int end = 0;
    LockGroup locks;
  };

  // An initial velocity held exactly during assembly (seed 000's engine).
  struct GivenRow {
    BodyIndex base = kGround;
    BodyIndex follower = kGround;
    std::shared_ptr<const ElementaryConstraint> constraint;
    double value = 0.0;
    std::string name;
  };

  // A compiled switching condition (system_conditions.cpp).
  struct ConditionTerm {
    std::unique_ptr<internal::CompiledExpression> lhs;
    std::unique_ptr<internal::CompiledExpression> rhs;
    bool greater = true;
    bool strict = true;
  };
  struct CompiledCondition {
    std::vector<std::vector<ConditionTerm>> groups;  // OR of ANDs
    Stage stage = Stage::kKinematics;
    std::string element;  // for messages: "event 'release'"
    std::string text;
  };

  // A channel whose value feeds a formula.
  struct Slot {
    double* value;
    int channel;
  };

  explicit Impl(std::shared_ptr<const CompiledModel> m);

  // --- construction (system.cpp, system_channels.cpp) ------------------------
  void build_instances();
  void build_drivers();
  void build_holds();  // hold rows of the stick/slip elements (after build_drivers)
  /// The hold row of a joint coordinate (a stuck slider, a closed joint
  /// limit): a rotation lock about the joint axis or a point on the plane
  /// normal to it, disabled-capable, with its driver measuring the coordinate.
  static void hold_joint_coordinate(const Joint& joint, bool angle, DriverRuntime& rt,
                                    Instance& inst);
  void build_impulse_storage();
  /// Index of the stick/slip element k's hold row among the active rows, or -1.
  int hold_row(int k) const;
  void prepare_forces();
  void register_channels();
  // Bryant and Euler angles and direction cosines (system_orientation.cpp)
  void register_orientation_channels();
  Mat3 orientation_matrix(std::size_t item, double dt) const;  // R_WB of a body, or a joint's
  Vec3 orientation_angles(std::size_t slot) const;  // unwrapped against orientation_reference
  void update_orientation_reference();
  // marks the angle slot of an orientation channel as read (its references
  // are then followed at every accepted step); other channels are ignored
  void note_channel_read(int channel);
  void add_channel(std::string name, std::string unit, Stage stage, std::string description,
                   std::function<double()> getter);
  std::unique_ptr<internal::CompiledExpression> compile(const Expression& expr,
                                                        const std::string& element,
                                                        bool allow_dynamics);
  double* bind_slot(const std::string& name, bool allow_dynamics);

  // --- structure (system_structure.cpp) --------------------------------------
  void mark_structure_changed() { structure_dirty = true; }
  void ensure_structure();
  void rebuild_structure();
  /// Set while a mode snapshot is restored: its dependent rows and
  /// self-stress modes are adopted instead of detected, and its captured
  /// frames kept (no latch closes during a restore).
  const ModeSnapshot* adopt_redundancy = nullptr;
  /// Finds the dependent rows and their self-stress modes; `report` warns
  /// about them (at a structure change; a rank change is logged as such).
  /// `sine`: the rank tolerance (ConstraintRank::kTolerance, or the wider
  /// singular_window while a run passes a singular configuration).
  void detect_redundancy(bool report = true, double sine = internal::ConstraintRank::kTolerance);
  /// Flags in `dependent` the rows that depend on the others (on D alone,
  /// constraint_rank.h), a stuck friction element's hold rows last: where a
  /// hold is dependent on joints, contacts or drivers it is the one flagged,
  /// so that its force in the solve is zero (docs/theory/friction.md, "Stuck
  /// holds that other rows make dependent"). Allocation-free after the
  /// structure's first call.
  void find_dependent_rows(std::vector<char>& dependent, double sine);
  /// Finds the dependent rows again at time `time` (the rank of D changed
  /// with the configuration) and logs the change with the rows involved.
  /// Returns true if the set of dependent rows changed.
  bool redetect_rank(double time);
  /// A row of a joint's own geometry: not a driver's, a contact's or a stuck
  /// element's hold (whose dependence comes and goes with the contacts and
  /// holds, not at a singular configuration of the mechanism).
  bool joint_geometry_row(int row) const {
    const Instance& inst =
        instances[static_cast<std::size_t>(row_info[static_cast<std::size_t>(row)].instance)];
    return inst.joint >= 0 && inst.driver < 0;
  }
  /// Logs the rank changes of one passage through a singular configuration
  /// as one warning (the time of the first change and of the last, the
  /// ranks, the rows involved) once the rank is back at the structure's and
  /// the run has left the passage (`time`, the accepted step's), or at once
  /// when `time` is omitted (the structure is rebuilt, the run ends).
  void log_rank_change(std::optional<double> time = std::nullopt);
  struct RankChange {
    bool pending = false;
    double time = 0.0, last_time = 0.0;
    long rank_before = 0, rank_after = 0, lowest = 0;
    std::vector<char> rows;  // per row: it changed (sized with the structure)
  } rank_change;
  /// Dependent-row sets decided during the run (every rank change, logged
  /// or merged into the passage's warning).
  long rank_changes = 0;
  // --- probes (system_probe.cpp) ----------------------------------------------
  // An output read or an event function on the dense output (a probe) may
  // meet a singular configuration that no stage of the stepper meets, and
  // drop rows there. What it decided is undone when the probe ends, so that
  // the motion does not depend on which outputs are recorded.
  struct RankDecision {
    std::vector<char> dropped;  // sized with the structure
    std::vector<std::vector<std::pair<int, double>>> self_stress;
    RankChange rank_change;
    long rank_changes = 0;
    double geometric_check_below = 0.0;
    long structure_rank = 0;
    bool rank_lowered = false, inertia_ill_conditioned = false;
    bool self_stress_saved = false;  // a rank change in the probe: self_stress kept here
  } before_probe;
  bool probing = false;
  /// Before redetect_rank changes the dependent rows inside a probe.
  void keep_self_stress_for_probe();
  /// Adds a warning unless the same text was given before; repeats are
  /// counted (warning_repeats).
  void warn(std::string text);
  std::string row_name(int row) const;
  /// The joint (or driver, contact) a row belongs to, as the place and
  /// element of a ModelError.
  ModelError row_error(int row, const std::string& what) const;
  /// Why S (and the KKT system, which eliminates in the same order) fails
  /// although D has full rank: the masses and inertias.
  static constexpr const char* kMassesOutOfRange =
      "the constraint set cannot be solved although its geometry has full rank: the masses and "
      "inertias span more orders of magnitude than double precision holds (a body far stiffer "
      "in rotation than in translation, or far lighter)";
  /// What a row whose effective mass (its pivot of S = D M^-1 D^T) is zero
  /// or not finite, although its geometry is independent, tells the user.
  static std::string unrepresentable_row_message(const std::string& row);
  /// The joint's name, or for a row of no joint the element it holds.
  std::string owner_of_row(int row) const;
  StructureReport report();

  // --- evaluation (system_dynamics.cpp) ---------------------------------------
  void compute_kinematics(double t, const VecX& y);
  void compute_loads();
  /// The rows at the current kinematics; only their gammas (compute_row_gammas)
  /// where the positions and time are those of the rows' last position stage.
  void compute_rows();
  void compute_row_gammas();
  void solve_dynamics();
  /// Whether a dependent (dropped) row no longer holds at the current state:
  /// its rate residual far beyond the kept rows' drift, as when the
  /// mechanism leaves a singular configuration and the rank of D goes up.
  /// Evaluates the rows there (System::accept, at the accepted state).
  bool dropped_row_violated();
  // rhs := b - D M^-1 f, the sparse path's right-hand side (the tree solves
  // with kkt_rhs and the loads and needs neither)
  void set_schur_rhs();
  void compute_all(double t, const VecX& y);
  /// Two-pass scheme (seed 003): the nonlinear parts of the force elements at
  /// (time, state) replace theirs in every evaluation until unfrozen.
  void freeze_nonlinear_loads(double time, const VecX& state);
  void add_frozen_loads();
  /// True if (t, y) is the state of the last evaluation (audit entries aside,
  /// which are then taken over).
  bool is_current(double t, const VecX& y);
  void refresh_slots(const std::vector<Slot>& slots);
  void order_kinematic_slots();
  // constraints an event left off while the follower is behind them
  // (system_pass_through.cpp)
  void mark_event_switched_constraints();
  void warn_passed_through(double t);
  // A structure built at a singular configuration whose rows came back at
  // `time`: `removed` of the kinetic energy `kinetic` was taken by putting the
  // velocities back onto them (System::accept).
  void warn_branch_not_fixed(double time, double removed, double kinetic);
  MotionSample motion_sample(const DriverRuntime& d) const;
  void fill_lock_errors(int joint);
  /// Position errors of a ball's stuck hold (a RotationHold row triple at `first`).
  void fill_hold_rotation_errors(const DriverRuntime& d, const Instance& inst, int first);
  double joint_angle(int j) const;        // unwrapped, with offset
  double joint_translation(int j) const;  // with offset
  double joint_angle_rate(int j) const;
  double joint_translation_rate(int j) const;
  Vec3 joint_reaction_force_W(int j) const;
  Vec3 joint_reaction_moment_W(int j) const;
  const BodyKinematics& kinematics(BodyIndex b) const;
  double kinetic_energy() const;
  double potential_energy() const;
  double multiplier(int row) const;
  double row_rate(int row) const;         // D_r u at the current state
  double row_speed_scale(int row) const;  // sum |D_r,i u_i| + |h_r|
  double member_restitution(int instance) const;
  std::vector<std::string> non_unique_components() const;
  /// Impulse of row k of an instance if t is the instant of the last impact.
  double impulse_now(int instance, int k) const {
    if (t != last_impact_time) return 0.0;
    return impulses[static_cast<std::size_t>(impulse_offset[static_cast<std::size_t>(instance)] +
                                             k)];
  }
  void ensure_dynamics();

  // --- assembly (system_assembly.cpp) ----------------------------------------
  // rows_current: the kinematics and rows are already evaluated at (t, y)
  void assemble_positions(double t, VecX& y, bool for_model, bool rows_current = false);
  ImpulseResult correct_velocities(double t, VecX& y, bool use_given, bool for_model);
  void project_velocities(double t, VecX& y, bool rows_current = false);
  ImpulseResult impact(double t, VecX& y, std::span<const ExternalImpulse> external,
                       bool impulsive_closure);
  void book_impact_energy(std::span<const ExternalImpulse> external, VecX& state,
                          ImpulseResult& result);
  /// Largest |Delta| over the active rows (dependent rows only if asked).
  double max_position_error(int* worst, bool include_dropped = false) const;
  void build_given_rows();
  void capture_joint(int joint);

  // --- unilateral contacts (system_contacts.cpp) ------------------------------
  // One side of a joint limit: a unilateral row held closed, while it is, by
  // a driver row without formulas at the limit (as a stuck element's hold).
  struct ContactSide {
    int contact = -1;   // index into model.contacts() (a joint limit), or -1 (shapes)
    double sign = 1.0;  // +1 lower side (g = c - lower), -1 upper side (g = upper - c)
    double limit = 0.0;
    int driver = -1;   // its hold row's driver
    std::string name;  // channel prefix: the contact's name, or "<name>.lower" / ".upper"
    double restitution = 0.0;
    double accumulation_time = 1e-6;
    // the points of one plane on one body against the shapes of another
    // share a surface (the resultant normal force between them); -1 for a
    // joint limit, an own one for a point between two spheres
    int surface = -1;
  };
  void build_contact_holds();
  /// The sides of the contacts between shapes: a free hold row per contact
  /// point (system_contacts.cpp).
  void build_shape_contact_holds();
  void register_contact_channels();
  /// Makes the structure current and takes the contact rows out of
  /// newly_active: their closing is the contact impact's business.
  void refresh_contact_structure(double time, const VecX& state);
  double contact_gap(int side) const;
  double contact_gap_rate(int side) const;
  int contact_row(int side) const;  // active row of its hold, or -1 (structure current)
  std::vector<ContactSide> contact_sides;
  std::vector<double> contact_impulses;  // per side, at the last contact impact
  double last_contact_impact_time = -std::numeric_limits<double>::infinity();
  // Contacts handled by a time-stepping stepper (system_time_stepping.cpp):
  // the impulse of each side in the last step of size time_step; the
  // channels read these instead of the hold rows, which stay open.
  bool time_stepping = false;
  double time_step = 0.0;
  std::vector<double> step_impulses;     // per side, then 2 per side (friction)
  Eigen::RowVectorXd time_stepping_row;  // work of time_stepping_rows
  /// energy.balance at a state (the audit entries of `state`).
  double energy_balance(double time, const VecX& state);

  // --- joint friction (system_joint_friction.cpp, docs/theory/friction.md) ----
  // A frictional joint: its friction element and what the solve found.
  // Everything is linear in the friction force F at a given state, so the
  // solve stores the solution and its change per unit F.
  // A contact point's friction (ContactFrictionElement) is one too: its
  // normal force is the contact side's multiplier (a scalar, >= 0).
  struct FrictionJoint {
    int force = -1;                                // its ReactionFriction element among forces
    int stick_slip = -1;                           // its index among the stick/slip elements
    int joint = -1;                                // the frictional joint, or -1 (a contact point)
    int contact_side = -1;                         // the contact side, or -1 (a joint)
    BodyIndex base = kGround, follower = kGround;  // the hold row's bodies
    ConstraintRow rate_row;          // q' = D_q u, q'' = D_q u' - gamma_q (the hold row's geometry)
    std::vector<Vec6> unit_acc;      // body accelerations per unit F
    VecX unit_mult;                  // multipliers per unit F
    bool unit_valid = false;         // the unit response belongs to the last solve (slipping)
    Vec3 transverse = Vec3::Zero();  // transverse (radial) reaction at the solution
    Vec3 unit_transverse = Vec3::Zero();  // its change per unit F
    double acc = 0.0;                     // q'' at the solution
    double unit_acc_q = 0.0;              // its change per unit F
    // a ball (spherical joint): its slip has a direction; at a zero rate it
    // is decided from the responses to unit moments along the world axes
    bool ball = false;
    std::array<std::vector<Vec6>, 3> axis_acc;
    std::array<VecX, 3> axis_mult;
  };
  void build_joint_friction();  // after build_holds
  /// Adds the slip friction of the slipping frictional joints to the solved
  /// accelerations and multipliers (no iteration), and stores N and F of
  /// every frictional joint. Called at the end of solve_dynamics.
  void solve_joint_friction();
  void unit_friction_response(FrictionJoint& fj);
  /// The body accelerations (velocity changes) and multipliers (impulses)
  /// for the loads in unit_loads, through `solver` as assembled with the
  /// rows `excluded` left out.
  void respond_to_unit_loads(const std::vector<char>& excluded, std::vector<Vec6>& acc, VecX& mult);
  /// A stuck frictional joint (not a ball) whose hold row takes part in the
  /// impact being solved, and was on before it.
  bool holds_through_impact(const FrictionJoint& fj, const std::vector<char>& excluded) const;
  /// Coulomb's law at the impulse level on the frictional joints, after the
  /// impact's solve (`p`, the state's velocities; u_before those before the
  /// constraint impulses): a stuck joint's hold impulse within mu_s |P_N|,
  /// a slipping joint's friction impulse mu |P_N| against its rate after the
  /// impact; the joints decided together (system_joint_friction.cpp).
  /// Returns the hold rows of the stuck joints set slipping, now excluded.
  /// Balls take part when one asks and `with_balls` (system_ball_friction.cpp).
  std::vector<int> impact_joint_friction(double time, VecX& state, const VecX& u_before,
                                         std::vector<char>& excluded, VecX& p,
                                         ImpulseResult& result, bool with_balls = true);
  /// A ball (spherical joint's friction) taking part in an impact's friction
  /// impulses (system_ball_friction.cpp): stuck with its hold rows on
  /// through the impact, or slipping.
  struct BallInImpact {
    FrictionJoint* fj = nullptr;
    int hold = -1;               // its first hold row when stuck, else -1
    bool asks = false;           // its hold beyond mu_s r |P|, or pressed while slipping
    Vec3 held = Vec3::Zero();    // the hold's moment impulse as first solved
    Vec3 moment = Vec3::Zero();  // its friction moment impulse (world, on the follower)
    Vec3 rate = Vec3::Zero();    // its relative angular velocity after the impact
    bool stuck = true;           // rate = 0 after the impact
  };
  /// A ball whose friction impulse an impact does not decide (its impulses
  /// reach another frictional joint's): the impact is decided without the
  /// balls, as before they took part, with a warning.
  struct BallImpulseNotDecided {
    std::string ball, why;
  };
  /// The balls taking part in an impact's friction impulses, as first solved
  /// (impulses p): none unless one asks for a friction impulse, named then in
  /// `needing`.
  std::vector<BallInImpact> balls_in_impact(const std::vector<char>& excluded, const VecX& p,
                                            std::string& needing) const;
  /// Each ball's friction moment impulse, from the impact solved without the
  /// balls' holds and the joints' friction (`joints` the frictional joints
  /// taking part, their unit responses computed, `changes` those whose
  /// impulses the impact decides again); adds it to p and the state's
  /// velocities. A ball whose impulses reach another frictional joint's or
  /// ball's, where either changes, is not solved (BallImpulseNotDecided).
  void solve_ball_impulses(double time, std::vector<BallInImpact>& balls,
                           const std::vector<FrictionJoint*>& joints,
                           const std::vector<char>& changes, const std::vector<char>& excluded,
                           VecX& state, VecX& p, ImpulseResult& result);
  /// Warns of each stuck ball, its hold on through the impact, whose moment
  /// impulse (as finally solved) lies beyond mu_s r |P|: balls left out of
  /// an impact whose other joints' friction impulses reached them.
  void warn_balls_beyond_hold(const std::vector<char>& excluded, const VecX& p);
  /// After solve_ball_impulses, with the kinematics of the final velocities:
  /// a stuck ball's moment impulse in its hold rows' slots; one set slipping
  /// lets them go (appended to `released`) and slips along its rate, as does
  /// a slipping one the impact turned.
  void finish_ball_impulses(const std::vector<BallInImpact>& balls, std::vector<char>& excluded,
                            VecX& p, std::vector<int>& released, ImpulseResult& result);
  /// The body accelerations and multipliers per unit load: the element's own
  /// (moment_W null) or a moment moment_W on the follower, minus it on the base.
  void unit_response(const FrictionJoint& fj, const Vec3* moment_W, std::vector<Vec6>& acc,
                     VecX& mult);
  /// The element's acceleration per unit friction force with the bodies free
  /// (M^-1 alone, no constraint rows): a ball's the least over the
  /// directions of its moment (a rod's swing, not its spin about its own
  /// axis). The scale of its constrained responses, by which their round-off
  /// is judged; 0 where the inertia is ill-conditioned. Allocates (decisions
  /// only).
  double free_response(const FrictionJoint& fj);
  Vec6 free_acceleration(BodyIndex b) const;  // under unit_loads, M^-1 alone
  /// A response of a frictional element below this fraction of its free one
  /// is the solve's round-off: the other rows lock the element (a pendulum
  /// whose tip rests on a floor), and no tolerance relative to the response
  /// itself tells it from one.
  static constexpr double kLockedFraction = 1e-10;
  /// A locked element's acceleration without friction, which no friction
  /// force changes, is the stabilisation's correction of the position drift
  /// an event leaves (beta times 1e-11: 1e-9 where its free scale is 10):
  /// zero where below this fraction of what the largest force gives it free.
  static constexpr double kLockedDrift = 1e-6;
  /// Stick/slip element k, stuck, whose hold row is dropped as dependent on
  /// the other rows (a driver on its joint; a contact and a joint holding
  /// its body) but on no other stuck hold: they give its motion whatever
  /// its force (a ball's three rows are not judged).
  bool locked_by_others(int k) const;
  /// Element k's stuck hold: the acceleration of its coordinate at the
  /// last solve (D_r u' - gamma_r), and its response per unit force with
  /// the bodies free, as free_response.
  double hold_acceleration(int k) const;
  /// The rate of a locked element beyond which the others move it: 1e3
  /// times the integrator's absolute tolerance (a rate it resolves).
  double locked_rate() const;
  double hold_free_response(int k);
  /// The acceleration of `row` (of bodies `base`, `follower`) per unit slip
  /// force of force element `force` with the bodies free (M^-1 alone).
  double free_response_along(int force, const ConstraintRow& row, BodyIndex base,
                             BodyIndex follower);
  /// The force by which a locked element's acceleration is judged: a
  /// decision at zero rate takes an acceleration below kLockedDrift of what
  /// this force gives it free for the drift's correction, not a motion. The
  /// larger of its friction force `force` and its normal force without it
  /// (times its static lever where that exceeds 1).
  double locked_force_scale(const FrictionJoint& fj, const ReactionFriction& e, double force) const;
  /// Stick/slip element k's, stuck: a frictional joint's with no friction
  /// force, another element's F_max.
  double locked_force_scale(int k);
  /// A ball whose switching function is zero while its relative angular
  /// velocity is not at round-off level (it turned past its slip axis within
  /// the step): true, with the slip axis set along w (it slips on).
  bool ball_slips_on(const FrictionJoint& fj);
  /// A ball's responses to a unit moment about each world axis (on the
  /// follower, minus it on the base), into fj.axis_acc and fj.axis_mult.
  void ball_axis_responses(FrictionJoint& fj);
  /// A slipping ball's friction moment on the follower (world) in the last
  /// solve; zero when it has none (stuck).
  Vec3 ball_slip_moment(const FrictionJoint& fj) const;
  /// Sets a ball's slip axis (kept in its base body) to axis_W (world, unit).
  void set_ball_slip_axis(const FrictionJoint& fj, const Vec3& axis_W);
  /// The moment (world) a stuck ball's hold rows exert on the follower.
  Vec3 ball_hold_moment(const FrictionJoint& fj) const;
  /// d/dt (w_follower - w_base) (world) for body accelerations acc.
  Vec3 relative_angular_acceleration(const FrictionJoint& fj, const std::vector<Vec6>& acc) const;
  /// Transverse part (normal to `axis`) of joint j's reaction force for multipliers p.
  Vec3 transverse_reaction(int j, const VecX& p, const Vec3& axis) const;
  /// The normal force of a frictional joint or contact point for
  /// multipliers p: the transverse reaction, or (N, 0, 0) with N the
  /// contact side's signed normal force (0 while it is open).
  Vec3 friction_normal(const FrictionJoint& fj, const VecX& p) const;
  /// The reactions of dependent contact rows (system_dependent_contacts.cpp):
  /// the self-stress modes wholly among contact points' normal rows and
  /// their tangents' hold rows, on the rows they touch, with their
  /// pseudo-inverse.
  struct DependentContacts {
    std::vector<std::vector<std::pair<int, double>>> modes;  // self_stress it was built from
    int structure_version = -1;
    std::size_t row_count = 0;  // rows.size() of the System then
    // the modes wholly among contact rows, in groups that share no row
    struct Group {
      std::vector<int> rows;    // the rows the group's modes touch
      MatX basis;               // rows x modes
      MatX shift;               // modes x rows: amplitudes = shift * multipliers
      VecX values, amplitudes;  // workspace
    };
    std::vector<Group> groups;
    std::vector<char> touched;  // per row of D: one of the groups' rows
    VecX residual;              // workspace: D^T s per body (6 n)
  } dependent_contacts;
  /// Stuck holds dependent among themselves (spread_dependent_holds):
  /// workspace sized with the structure, no allocation in the step loop.
  struct DependentHolds {
    int structure_version = -1;
    std::size_t row_count = 0, mode_count = 0;  // rows.size() and self_stress.size() then
    std::vector<char> carries;                  // per row of D: a dropped hold given a share
    std::vector<int> term_of_row;               // per row of D: the term it is, or -1
    VecX direction;                             // one self-stress mode, dense (rows of D)
    VecX residual;                              // D^T of it per body (6 n)
    // per self-stress mode: usable, and its group (union-find parent)
    std::vector<char> usable;
    std::vector<int> group;
    // terms: the friction elements, then the contact sides' normal forces;
    // their rates along each mode (column-major, term + terms * mode)
    std::vector<double> force_rate;
    std::vector<Vec3> normal_rate;
    std::vector<double> force;  // per term at the current multipliers
    std::vector<Vec3> normal;   // per term at the current multipliers
    std::vector<int> members;   // one group's modes
    std::vector<int> terms;     // one group's terms
    VecX amplitude, best;       // per mode of a group
    VecX unknowns;              // the program's
    internal::LinearProgram program;
    // per self-stress mode and phase: the optimal basis of the group's
    // program that mode is the root of (2 mode + phase), for the next solve
    std::vector<internal::LinearProgram::Start> starts;
    // a probe's solves start from those bases and leave them as they were
    // (System::begin_probe): the next split of the stepper's own does not
    // depend on what was recorded between its stages
    internal::LinearProgram::Start probe_start;
    bool beyond_bounds_warned = false;  // since the structure changed
  } dependent_holds;
  /// A row whose multiplier acts: independent, or dependent with a share
  /// (press_dependent_contacts, spread_dependent_holds).
  bool row_carries(int row) const {
    const auto r = static_cast<std::size_t>(row);
    return dropped[r] == 0 ||
           (r < dependent_contacts.touched.size() && dependent_contacts.touched[r] != 0) ||
           (r < dependent_holds.carries.size() && dependent_holds.carries[r] != 0);
  }
  /// Moves the multipliers along each self-stress mode that joins two or
  /// more stuck holds of frictional joints or contact tangents (a ladder at
  /// rest against a rough wall) to the split with the largest least margin
  /// mu_s |N| - |F| among them: the motion is unchanged, and the holds give
  /// way only where no split keeps them all within their cones.
  void spread_dependent_holds();
  /// Its search along the modes that join stuck holds, and with
  /// `with_contact_modes` along those wholly among contact rows too (with
  /// each surface's resultant normal force kept and, where a split holds
  /// them all, the one closest to the solved split).
  void spread_along_modes(bool with_contact_modes);
  /// A dropped hold row whose self-stress joins another stuck hold (the
  /// ladder's two): stuck together, not moved by the others.
  bool held_with_other_holds(int row) const;
  /// Moves mult along the contact self-stress modes to the least-norm
  /// multipliers on the rows they touch: the motion is unchanged, and a
  /// body resting flat on several points has them all pressing.
  void press_dependent_contacts(VecX& mult);
  /// Links each contact point's friction to its side (after build_contact_holds).
  void link_contact_friction();
  /// Per contact side: its friction elements along the x and y tangents
  /// (indices into friction_joints), or -1.
  std::vector<std::array<int, 2>> side_friction;
  FrictionJoint* friction_joint_of_stick_slip(int k);
  /// Its force element, and "joint 'name'" or "contact 'name'" for messages
  /// (system_joint_friction.cpp).
  ReactionFriction& friction_element(const FrictionJoint& fj);
  const ReactionFriction& friction_element(const FrictionJoint& fj) const;
  std::string friction_site(const FrictionJoint& fj) const;
  /// Slipping and pressed at the last solve (its unit responses made), on
  /// the bodies of `group` (friction_group): a member of any decision at
  /// zero rate of that group it is not decided in, its force responding
  /// (system_friction_decision.cpp; decide_joint_friction sends a joint
  /// there when any other one of its group is). Elements of other groups act
  /// on bodies whose accelerations and reactions their forces cannot change.
  bool slips_as_member(const FrictionJoint& f, int group) const {
    return f.unit_valid && !(f.contact_side >= 0 && contact_row(f.contact_side) < 0) &&
           friction_group(f) == group;
  }
  /// Per body, its group of coupled bodies (System::coupling_groups), fixed
  /// at construction: every joint and row counts, enabled or not.
  std::vector<int> body_group;
  /// The group of the bodies of a stick/slip element's hold row (-1 for
  /// none: both the ground).
  int group_of_bodies(BodyIndex base, BodyIndex follower) const {
    const BodyIndex body = follower != kGround ? follower : base;
    return body == kGround ? -1 : body_group[static_cast<std::size_t>(body)];
  }
  int friction_group(const FrictionJoint& f) const { return group_of_bodies(f.base, f.follower); }
  /// Stick/slip element k's hold row's bodies, and their group.
  void stick_slip_bodies(int k, BodyIndex& base, BodyIndex& follower) const;
  int stick_slip_group(int k) const;
  std::vector<FrictionJoint> friction_joints;
  // the slip solve's workspace, sized for every friction element at the build
  std::vector<FrictionJoint*> slip_set;
  std::vector<double> slip_force;
  internal::CoupledSlip coupled_slip;
  internal::SpatialSlip spatial_slip;  // the same, reactions off their lines
  std::vector<BodyLoad> unit_loads;
  VecX unit_zero_rhs;  // the KKT route's right-hand side of a unit response

  // --- data -------------------------------------------------------------------
  std::shared_ptr<const CompiledModel> compiled;  // shared by every System of the model
  const Model& model;                             // compiled->model()
  /// The model's joints as this System uses them: a capture joint's follower
  /// frame is taken again when it closes (capture_joint).
  std::vector<Joint> live_joints;
  int n = 0;  // bodies
  StateLayout layout;
  std::vector<internal::InverseMass> inverse_mass;
  StabilisationSettings stabilisation;

  std::vector<Instance> instances;
  std::vector<std::vector<int>> joint_instances;
  std::vector<int>
      free_instances;  // instances of no joint (distance holds), rows after the joints'
  std::vector<char> joint_enabled;
  std::vector<DriverRuntime> drivers;
  std::vector<MotionSample> driver_samples;  // at the last evaluation
  std::vector<GivenRow> given_rows;
  std::vector<std::unique_ptr<ForceElement>> forces;
  std::vector<char> force_enabled;
  std::vector<int> stick_slip_forces;      // force elements with a stick/slip law
  bool force_formulas_read_state = false;  // a force formula reads a position/velocity channel
  std::vector<int> hold_driver;            // per stick/slip element: its hold row's driver

  // structure
  bool structure_dirty = true;
  int structure_version = 0;
  std::vector<RowInfo> row_info;
  std::vector<int> instance_row;            // per instance: its first active row, or -1
  std::vector<char> event_switched;         // per instance: the target of an event action
  std::vector<char> passed_through_warned;  // per instance: warned once
  std::vector<char> newly_active;           // per instance: closed since the last impact/assembly
  std::vector<char> joint_newly_enabled;    // per joint: switched on since then
  std::vector<char> joint_enabled_before;   // joint switches at the last rebuild
  std::vector<internal::RowBodies> row_bodies;
  std::vector<ConstraintRow> rows;
  internal::ConstraintJacobian D;  // a view of rows and row_bodies, rebound with them
  std::vector<char> dropped;
  std::vector<char> no_rows;         // all zero, one per row: nothing excluded
  std::vector<char> dependent_rows;  // redetect_rank's decision before it is adopted
  std::vector<char> hold_rows;       // find_dependent_rows: the stuck holds' rows
  std::vector<char> rank_excluded;   // and the rows it leaves out of a test
  std::vector<JointRows> joint_rows;
  internal::SchurSolver solver;
  internal::ConstraintRank rank;  // which rows are dependent, on the geometry of D
  // Schur pivot ratio below which the geometry is asked again whether the
  // kept rows are independent (small pivots may come from inertia alone)
  static constexpr double kSchurCheck = 1e-6;
  // During a run a row counts as dependent within this sine of the span of
  // the others (not 1e-5 as for a structure): near a singular configuration
  // the constraint manifold of the drifted positions (g = eps, not 0) is a
  // hyperbola that joins the branch the mechanism comes on to the other
  // branch within about sqrt(eps) of the crossing; a row dropped over a wider
  // window lets the motion pass straight through on its velocity, and the
  // row comes back (checked every accepted step) with a violation of
  // second order in the window (issue 13 defect 2; docs/theory/equations.md)
  static constexpr double kSingularWindow = 1e-3;
  // The sine below which a row's nearness to the span of the others, not
  // the masses, explains a pivot of S lost to round-off (S's pivots go as
  // its square, 1e-8 here, and a moderate spread of the inertias takes the
  // rest of double precision)
  static constexpr double kNearlyDependent = 1e-4;
  // The window of this structure: kSingularWindow, or a tenth of the
  // smallest sine of its kept rows where the mechanism's own geometry is
  // that ill-conditioned at full rank (a long chain: 1.5e-4 at 256 links,
  // docs/performance.md), not below ConstraintRank::kTolerance; else its
  // conditioning passes for a singular configuration at every check.
  // Set when the structure is built (a restored mode takes its run's), and
  // raised with structure_sine (System::singularity_distance).
  double singular_window = kSingularWindow;
  // The smallest sine of the kept rows when the structure was built (not
  // below ConstraintRank::kTolerance), raised where the sine has since grown
  // tenfold (a structure built near a singular configuration,
  // System::singularity_distance). Below kWellConditionedSine it is the
  // mechanism's own conditioning (a chain of 16 bars: 1.1e-2, of 256:
  // 1.5e-4; every bundled example is above 0.11), and the distance to a
  // singular configuration is measured relative to it
  // (System::singularity_distance).
  double structure_sine = 1.0;
  // The smallest pivot ratio of S at which structure_sine was last checked
  // against the geometry (System::singularity_distance); 0 after a build.
  double sine_checked_at_ratio = 0.0;
  // structure_sine as built: a sine grown far above it raises structure_sine
  double built_sine = 1.0;
  static constexpr double kWellConditionedSine = 0.1;
  double conditioning_scale() const { return std::min(1.0, structure_sine / kWellConditionedSine); }
  double geometric_check_below = kSchurCheck;
  // smallest pivot ratio of S times the squared geometric condition below
  // which the inertia, not the geometry, spoils S
  static constexpr double kInertiaIllConditioning = 1e-4;
  // S is ill-conditioned by the inertia alone: accelerations from the KKT
  // system (kkt_solver.h) for this structure
  bool inertia_ill_conditioned = false;
  internal::KktSolver kkt;
  VecX kkt_rhs;  // gamma - Baumgarte terms per row
  // the linear-time solve on a spanning tree of the body/joint graph, loops
  // closed by a Schur complement on the cut rows (tree_kkt_solver.h); the
  // sparse path above when the pivots are small, the inertia spoils S, or
  // joint friction needs S again
  internal::TreeKktSolver tree;
  bool tree_allowed = true;  // System::set_tree_dynamics
  bool tree_used = false;    // by the last evaluation of the dynamics
  bool solve_on_tree();      // false: the sparse path must solve
  bool tree_may_solve();     // the structure and the mode allow the tree
  // p := S^-1 p for the current rows (projections, assembly): on the tree
  // when it may (no S formed), else by the sparse path; false if singular
  bool solve_schur(VecX& p);
  std::vector<Vec6> tree_accelerations;  // work of solve_schur, sized with the structure
  VecX tree_rhs;
  std::vector<std::string> warnings;
  std::map<std::string, int> warning_repeats;  // text -> times given after the first
  /// The dependent rows a "redundant constraints" warning has named in this
  /// run (detect_redundancy says a structure's only where it has a new one).
  std::set<std::string> dependent_rows_named;
  /// Per dropped row, a self-stress: (row, multiplier) pairs with D^T p = 0,
  /// the dropped row first, then the rows it depends on.
  std::vector<std::vector<std::pair<int, double>>> self_stress;
  // work buffers for projection, sized with the structure
  VecX displacement_buffer;  // a Newton step of the positions, 6 per body
  VecX newton_buffer;
  VecX state_buffer;
  VecX impact_velocities_before;  // u- of an impact, for the work of its external impulses

  // workspace of the last evaluation
  double t = 0.0;
  VecX y;  // copy of the last evaluated state
  std::vector<BodyKinematics> kin;
  std::vector<BodyLoad> loads;
  bool nonlinear_frozen = false;
  std::vector<BodyLoad> frozen_loads;  // the nonlinear parts at the frozen state
  ForcePower frozen_power;
  std::vector<Vec6> accelerations;  // per body [a_W; alpha_B]
  std::vector<Vec6> free_accelerations;
  VecX multipliers;
  VecX rhs;
  ForcePower power;
  double driver_power = 0.0;
  bool dynamics_valid = false;
  // A decision at zero rate (decide_joint_friction, decide_friction_together)
  // reads the solve with the provisional slip modes of the elements it
  // decides; those modes are no motion, so a slip problem without a unique
  // solution there leaves its forces out instead of stopping the run
  // (`slips_unsolved`). Any solve outside a decision then starts again.
  bool slips_may_stay_unsolved = false;
  // System::search_contact_splits: spread_dependent_holds searches the
  // modes wholly among contact rows too (for the rest of the run)
  bool contact_split_search = false;
  bool slips_unsolved = false;
  /// For the scope of a decision: its solves may leave those forces out.
  struct UnsolvedSlipsAllowed {
    explicit UnsolvedSlipsAllowed(Impl& impl) : s(impl), before(impl.slips_may_stay_unsolved) {
      s.slips_may_stay_unsolved = true;
    }
    ~UnsolvedSlipsAllowed() { s.slips_may_stay_unsolved = before; }
    UnsolvedSlipsAllowed(const UnsolvedSlipsAllowed&) = delete;
    UnsolvedSlipsAllowed& operator=(const UnsolvedSlipsAllowed&) = delete;
    Impl& s;
    bool before;
  };
  long row_evaluations = 0;    // compute_rows() calls (System::constraint_row_evaluations)
  bool state_current = false;  // kinematics and formula slots belong to (t, y)
  // Evaluation skipping (docs/performance.md): the kinematics' positions
  // (p_W, R_WB) are those of y's positions while `kinematics_positions_current`;
  // the rows' position stage (Jacobians, targets, Delta) is that of
  // `row_positions` at `row_time` while `row_geometry_current`. Both keys are
  // the inputs themselves, compared bit for bit; forget_evaluation() clears
  // the rows' at every discrete change (a hold taken, a mode restored, a
  // structure rebuilt), which the positions do not show.
  bool kinematics_positions_current = false;
  bool row_geometry_current = false;
  double row_time = 0.0;
  VecX row_positions;                 // sized at construction
  long row_geometry_evaluations = 0;  // compute_rows() calls that evaluated the position stage
  /// The next evaluation starts from nothing but the kinematics' positions:
  /// formula slots, rows and dynamics are evaluated again.
  void forget_evaluation() {
    state_current = false;
    dynamics_valid = false;
    row_geometry_current = false;
  }
  bool redetecting = false;
  // the rank of D when the structure was built, or the highest found since
  // (a structure built at a singular configuration, a mechanism started
  // flat), and whether a singular configuration lowered it: then the rank
  // is decided again at every accepted step, so rows come back as soon as
  // the geometry has them
  long structure_rank = 0;
  bool rank_lowered = false;
  // the structure is the one System::assemble built (its velocities are the
  // given initial ones): warn_branch_not_fixed speaks of those
  bool structure_assembled = false;
  double energy_reference = 0.0;
  double step_size = 0.0;  // the integrator's last accepted step: channel integrator.step

  // the last impact, for the impulse channels (values at that instant only)
  double last_impact_time = -std::numeric_limits<double>::infinity();
  std::vector<int> impulse_offset;         // per instance: first entry in impulses
  std::vector<double> impulses;            // per instance row, all instances
  std::vector<Vec3> joint_impulse_force;   // on the follower, world
  std::vector<Vec3> joint_impulse_moment;  // about the joint point, world

  // formulas
  std::deque<double> slot_storage;  // stable addresses for muParser
  double* time_slot = nullptr;
  std::unordered_map<std::string, double*> slot_by_name;
  /// Refreshed in this order, a force element's channel after the channels
  /// its formulas read (order_kinematic_slots).
  std::vector<Slot> kinematic_slots;
  std::vector<Slot> dynamic_slots;

  std::vector<CompiledCondition> conditions;

  // channels
  std::vector<ChannelInfo> channel_info;
  std::vector<std::function<double()>> channel_getters;
  std::unordered_map<std::string, int> channel_index;
  std::vector<int> force_of_channel;  // per channel: its force element, or -1
  // per channel of the dynamics stage: its getter computes what it needs
  // itself (system.violation: the rows, not the solve), so that reading it
  // on the dense output costs no solve (System::channel_value)
  std::vector<char> channel_brings_own_stage;
  std::vector<std::vector<int>> force_reads;  // per force element: the channels it reads
  int preparing_force = -1;                   // the element whose formulas bind slots now

  // load Jacobians (system_jacobian.cpp)
  ForceJacobian jacobian_work;
  std::vector<BodyKinematics> jacobian_kinematics;  // the unperturbed kinematics
  VecX jacobian_state, jacobian_perturbed, jacobian_plus, jacobian_minus, jacobian_increment;

  // joint angles are unwrapped against the last accepted value and rate
  std::vector<double> angle_reference;
  std::vector<double> angle_rate_reference;
  double reference_time = 0.0;
  // Bryant (slot 2 i) and Euler (slot 2 i + 1) angles of item i (the bodies,
  // then the joints), unwrapped against their last accepted values and rates
  std::vector<Vec3> orientation_reference, orientation_rate_reference;
  // per slot: followed at every accepted step, because one of its channels
  // was looked up or read (the references cost 9 % of a slider-crank run
  // where no channel reads them); the first orientation channel's index
  std::vector<char> orientation_followed;
  int orientation_channels_begin = 0;
};

}  // namespace ictus
