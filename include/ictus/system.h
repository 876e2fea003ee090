// The System: the numbers behind a Model.
//
// State vector y (docs/theory/equations.md):
//   per body b: [ p_WB (3), q_WB (4: w, x, y, z) ]        positions, 7 per body
//   per body b: [ v_WB (3), w_B (3) ]                     velocities, 6 per body
//   audit:      [ applied work, driver work, dissipated energy ]
//
// Equations of motion (seed 000 eqs. 1, 6, 7), with u the velocities:
//   M u' - D^T p = f(q, u, t)
//   D u' = gamma - beta_c Delta - beta_k (D u - h)
// solved through the Schur complement S = D M^-1 D^T (schur_solver.h).
// The multipliers p are the constraint reactions.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ictus/compiled_model.h"
#include "ictus/force.h"
#include "ictus/math.h"
#include "ictus/mechanical_system.h"
#include "ictus/model.h"

namespace ictus {

/// What must be computed before a channel can be read.
enum class Stage {
  kKinematics,  ///< positions and velocities (and quantities derived from them)
  kDynamics,    ///< accelerations and reactions (needs the linear solve)
};

/// Description of an output channel.
struct ChannelInfo {
  std::string name;  ///< e.g. "pivot.Fz"
  std::string unit;  ///< SI unit, e.g. "N"
  Stage stage = Stage::kKinematics;
  std::string description;
};

/// What `ictus check` reports about the current constraint structure.
struct StructureReport {
  int bodies = 0;
  int rows = 0;                             ///< active elementary constraint rows
  int independent_rows = 0;                 ///< rank of D
  int nonholonomic_rows = 0;                ///< lone rotation locks (velocity-level only)
  int dof = 0;                              ///< 6 * bodies - rank(D)
  int gruebler_dof = 0;                     ///< 6 * bodies - rows (Gruebler-Kutzbach count)
  std::vector<std::string> redundant_rows;  ///< rows eliminated as dependent
  /// For each redundant row, the rows it depends on.
  std::vector<std::vector<std::string>> dependencies;
  /// Joints whose reactions are not unique because of the redundancy.
  std::vector<std::string> non_unique_reactions;
  /// The same, by component in world axes: "A (Fz, Mx, My)".
  std::vector<std::string> non_unique_components;
  double condition_estimate = 1.0;  ///< max/min LDL^T pivot of S (seed 000)
  double max_position_violation = 0.0;
  std::string worst_row;     ///< row with the largest position violation
  long factor_nonzeros = 0;  ///< non-zeros of the Cholesky factor of S
};

/// Outcome of an impulsive velocity change.
struct ImpulseResult {
  std::vector<std::string> row_names;     ///< rows that received impulses
  std::vector<double> impulses;           ///< per row [N s or N m s]
  std::vector<std::string> closing_rows;  ///< rows that closed in this impact
  std::vector<std::string> released;      ///< elements released after a non-plastic impact
  /// Stuck joints whose static friction the impulses exceeded, and slipping
  /// joints they turned round: (stick/slip element, the slip mode it leaves
  /// the impact with).
  std::vector<std::pair<int, int>> let_go;
  /// Joints whose impulses are not unique (dependent rows were eliminated;
  /// the post-impact velocities are unique all the same).
  std::vector<std::string> non_unique;
  double kinetic_before = 0.0;  ///< before the external impulses
  double kinetic_after = 0.0;
  /// work of the external impulses [J]: each impulse times the mean velocity
  /// of its point before and after the impact
  double external_work = 0.0;
  /// kinetic energy the constraint impulses took [J]; zero for persisting
  /// workless constraints
  double constraint_loss = 0.0;
  double condition_estimate = 1.0;  ///< pivot spread of S for the impact rows
};

/// An external impulse on a body at an instant (seed 000 eq. 3, the K pe term).
struct ExternalImpulse {
  BodyIndex body = kGround;
  Vec3 linear_W = Vec3::Zero();   ///< [N s]
  Vec3 angular_W = Vec3::Zero();  ///< [N m s], in addition to that of the linear impulse
  Vec3 point_B = Vec3::Zero();    ///< where the linear impulse acts, body frame
};

/// How System::force_jacobian differentiates the loads
/// (docs/theory/jacobians.md).
enum class JacobianMethod {
  kAnalytic,                 ///< each element's add_jacobian: analytic where written, else local FD
  kElementFiniteDifference,  ///< the element-local finite difference for every element
  kGlobalFiniteDifference,   ///< central differences of all the System's loads (the cross-check)
};

class System final : public MechanicalSystem {
 public:
  /// Builds the numerical system. Throws ModelError if formulas, channel
  /// references or the constraint set are invalid.
  explicit System(const Model& model);
  /// One thread's System of a model compiled once (compiled_model.h): any
  /// number of Systems may share it, each in its own thread.
  explicit System(std::shared_ptr<const CompiledModel> compiled);
  const std::shared_ptr<const CompiledModel>& compiled_model() const;
  ~System() override;
  System(const System&) = delete;
  System& operator=(const System&) = delete;

  const Model& model() const;

  // --- state --------------------------------------------------------------
  int body_count() const;
  int state_size() const;
  /// The model's initial state (not yet assembled onto the constraints).
  VecX initial_state() const;
  /// Where positions, velocities and the audit entries sit in a state.
  const StateLayout& layout() const override;

  // --- structure (what is switched on) --------------------------------------
  /// Names of everything that can be switched: forces, drivers, joints and
  /// single joint members ("hinge.lock_x").
  std::vector<std::string> switchable_elements() const;
  bool enabled(std::string_view element) const;
  /// Switches an element. Returns true if the constraint structure changed
  /// (it is then rebuilt at the next evaluation). Throws
  /// std::invalid_argument for an unknown name.
  bool set_enabled(std::string_view element, bool on);
  /// Number of times the constraint structure has been (re)analysed.
  int structure_version() const;

  // --- evaluation -----------------------------------------------------------
  /// Accelerations and audit rates (mechanical_system.h); derivative()
  /// gives the first-order form y' = F(t, y). Do not allocate once the
  /// structure is analysed. Throw SimulationError if the constraint set is
  /// inconsistent or a value is not finite.
  void accelerations(double t, const VecX& y, Eigen::Ref<VecX> rates) override;
  bool has_nonlinear_forces() const override;
  // the pieces of M u' = f + D^T lambda (mechanical_system.h)
  int constraint_count() const override;
  void add_forces(double t, const VecX& y, double c, Eigen::Ref<VecX> r) override;
  void add_mass_times(double c, Eigen::Ref<const VecX> w, Eigen::Ref<VecX> r) const override;
  void add_constraint_forces(double t, const VecX& y, double c, Eigen::Ref<const VecX> lambda,
                             Eigen::Ref<VecX> r) override;
  void constraint_residuals(double t, const VecX& y, Eigen::Ref<VecX> phi,
                            Eigen::Ref<VecX> phi_dot) override;
  void multipliers(Eigen::Ref<VecX> out) const override;
  // unilateral contacts for a time-stepping stepper (system_time_stepping.cpp)
  int unilateral_count() const override;
  void time_stepping_rows(double t, const VecX& y, TimeSteppingRows& rows) override;
  void record_contact_impulses(double h, Eigen::Ref<const VecX> impulse) override;
  /// For a stepper that imposes the contacts itself (Moreau-Jean): the
  /// contacts' friction elements are switched off (no event-driven
  /// stick/slip); the stepper's problem imposes the friction, and the
  /// friction channels read its impulses.
  void hand_contact_friction_to_stepper();
  double book_step_energy(double t0, const VecX& y0, double t1, VecX& y1, double theta,
                          double impact_loss, double constraint_work) override;
  /// Bodies joined by any joint or row of no joint (a contact point, a
  /// stuck element's hold between two points; enabled or not) or two-body
  /// force element share a group; all bodies share one if a force formula
  /// reads a position or velocity channel (system_coupling.cpp).
  std::vector<int> coupling_groups() const override;
  void freeze_nonlinear_forces(double t, const VecX* y) override;
  /// Evaluates the state up to `stage` so channels can be read.
  void evaluate(double t, const VecX& y, Stage stage);
  /// Evaluations between begin_probe() and end_probe() read the dense
  /// output between the stepper's states (samples, events being located).
  /// A rank decision they make (rows dropped at a singular configuration
  /// the stepper's stages never meet) is undone by end_probe(), so that the
  /// motion does not depend on which outputs are recorded. Not nested.
  void begin_probe();
  void end_probe();
  /// Records an accepted state (joint angles are unwrapped across steps).
  /// Returns true if the dependent rows had to be found again because the
  /// rank of the constraints changed: the caller must then restart its
  /// integrator. Rows that come back after a singular configuration take y
  /// onto the constraints again (positions and velocities projected, a
  /// mass-weighted least change), so y may change.
  bool accept(double t, VecX& y);

  /// Jacobians of the generalised loads f of M u' - D^T p = f (per body
  /// [force_W, torque_B]: the enabled force elements and the gyroscopic
  /// torque -w_B x (J w_B)) at (t, y), dense 6n x 6n: K_q with respect to
  /// the position increment [dp_W, dtheta_B] (state_layout.h), K_v with
  /// respect to the velocities [v_W, w_B]. Stuck elements are differentiated
  /// in their mode (their hold rows are not loads); frozen nonlinear parts
  /// (freeze_nonlinear_forces) count as variable except with
  /// kGlobalFiniteDifference, which differences exactly what accelerations()
  /// uses. Leaves the System's evaluation cache invalid.
  void force_jacobian(double t, const VecX& y, MatX& K_q, MatX& K_v,
                      JacobianMethod method = JacobianMethod::kAnalytic);

  // --- initial conditions and projection ------------------------------------
  /// Moves positions onto the holonomic constraints (Newton, mass-weighted
  /// least change), then finds consistent velocities holding the model's
  /// given velocities exactly. Throws ModelError if that is impossible.
  void assemble(double t, VecX& y);
  /// Projects positions (if the violation exceeds `tolerance`) and velocities
  /// onto the constraints. Returns true if y changed.
  bool project(double t, VecX& y, double tolerance);
  /// The same with the model's projection tolerance (mechanical_system.h).
  bool project(double t, VecX& y) override;
  bool project_to(double t, VecX& y, double tolerance) override { return project(t, y, tolerance); }
  double singularity_distance() override;
  double singularity_distance_at(double t, const VecX& y) override;
  void note_singular_passage(double t, const VecX& y) override;
  /// Largest position-level violation of the active holonomic rows.
  double position_violation(double t, const VecX& y);
  /// Largest velocity-level violation |D u - h|.
  double velocity_violation(double t, const VecX& y);
  /// Books `energy` [J], the potential energy that left with elements
  /// switched off (negative: came with elements switched on), in the audit
  /// entries of y: energy.switching, part of energy.dissipated.
  void add_switching_energy(VecX& y, double energy) const;
  /// Makes the channel energy.balance zero at this state.
  void set_energy_reference(double t, const VecX& y);

  // --- channels -------------------------------------------------------------
  int channel_count() const;
  const ChannelInfo& channel_info(int k) const;
  /// Index of channel `name` or -1.
  int find_channel(std::string_view name) const;
  /// Value of channel k at the last evaluate()/derivative() state.
  double channel_value(int k) const;
  /// The outer Bryant and Euler angles are unwrapped along the accepted
  /// steps (docs/channels.md) from the first time one of their channels is
  /// looked up (find_channel, a formula or condition) or read; observers
  /// look theirs up before the first step. This follows every one of them
  /// from now on, for a caller that reads channels at any time of a run.
  void follow_orientation_channels();
  /// Sets the value of channel integrator.step: the size of the
  /// integrator's last accepted step (seeds 001 and 003 plot it).
  void set_step_size(double h);

  // --- switching conditions -------------------------------------------------
  /// Compiles a condition (expression.h); returns its handle. Throws ModelError.
  int add_condition(const Condition& condition, const std::string& element);
  /// Stage needed to evaluate condition `handle`.
  Stage condition_stage(int handle) const;
  /// The continuous function g of condition `handle` at the last evaluated
  /// state: positive where the condition holds (zero crossings are events).
  double condition_value(int handle);
  /// Whether the condition holds at the last evaluated state, honouring the
  /// difference between > and >= at equality (used at the start of a run).
  bool condition_holds(int handle);
  /// True if switching `element` changes the constraint structure (joints,
  /// joint members, drivers), false for force elements.
  bool switch_is_structural(std::string_view element) const;

  // --- stick/slip elements (force.h; docs/theory/stick-slip.md) -------------
  /// Number of force elements with a stick/slip law; `k` below counts them.
  int stick_slip_count() const;
  const ForceElement& stick_slip_element(int k) const;
  /// Whether element k is switched on (a switched-off element never sticks);
  /// a contact's tangent only while its contact is closed.
  bool stick_slip_enabled(int k) const;
  /// Sets element k's mode (StickSlipMode). kStick holds its coordinate at
  /// its value in the last evaluated state by switching its hold row on.
  /// Returns true if the constraint structure changed.
  bool set_stick_slip_mode(int k, int mode);
  /// At the last evaluated state: the rate u' of element k's coordinate and
  /// F_max(u).
  double stick_slip_coordinate(int k);
  double stick_slip_rate(int k);
  double stick_slip_limit(int k);
  /// Friction force of element k on the follower along its coordinate:
  /// -mode F_max slipping, the hold row's multiplier stuck (needs dynamics).
  /// For joint friction (seed 004): the force solved with the reactions.
  double friction_force(int k);
  /// Element k, stuck: how far its hold is from giving way, F_max - |lambda|
  /// (needs dynamics). An element whose hold the other rows make dependent
  /// (a driver on its joint) is locked: the others move it whatever its
  /// force, and it stays stuck only while they keep it at rest; its margin
  /// also falls to zero as its acceleration reaches the drift a decision at
  /// zero rate takes for rest.
  double stuck_margin(int k);
  /// Element k is stuck and locked by the other rows (stuck_margin).
  bool stick_slip_locked(int k) const;
  /// True if element k is a joint's Coulomb friction, whose slip force and
  /// limit depend on the reactions (docs/theory/friction.md).
  bool stick_slip_needs_reactions(int k) const;
  /// Joint friction k, slipping, at a zero slip rate in the last evaluated
  /// state: kStick if the force that keeps the coordinate's acceleration zero
  /// lies within mu_static |N|, else the slip direction whose kinetic
  /// friction is consistent with the acceleration it gives. Throws
  /// SimulationError (the joint, the time) when the friction law has no or
  /// several solutions (Painleve). With other frictional elements slipping,
  /// whose forces respond to this one's, decided as a set of one with them
  /// as members (decide_friction_together).
  /// A ball (spherical joint friction) at a zero rate along its slip axis:
  /// kStick if the moment that keeps the relative rotation's acceleration
  /// zero lies within mu_static r |N|; else kSlipPositive with the slip axis
  /// set along its relative angular acceleration under the kinetic moment
  /// against it (decided as a set of one by decide_friction_together;
  /// docs/theory/friction.md, "A ball").
  int decide_joint_friction(int k);
  /// True if element k's slip has a direction rather than a sign (a ball).
  bool stick_slip_has_direction(int k) const;
  /// A ball just decided to slip from (near) rest whose relative angular
  /// velocity was not exactly zero there (the round-off the location of the
  /// zero left): the caller takes it out by the plastic impact of the ball's
  /// hold rows before the slip starts.
  bool ball_rest_left(int k) const;
  /// A slipping ball's slip axis follows its relative angular velocity (if
  /// that is not zero), so that its switching function w . e starts every
  /// step at |w|. Nothing for the other elements.
  void follow_slip_direction(int k);
  /// Element k, stuck, whose hold force `lambda` (the last solve's, or a
  /// moment later at the boundary) has left the static limit: the mode it
  /// slips in, the way the load pushes (against lambda; a ball along minus
  /// its holding moment, which sets its slip axis). A locked element
  /// (stuck_margin) slips the way the others accelerate it.
  int slip_mode_from_hold(int k, double lambda);
  /// A ball just let go by its hold (set slipping from slip_mode_from_hold):
  /// where its kinetic moment is below the static one that held it (mu <
  /// mu_s), the slip starts with an acceleration, and its axis is set along
  /// it as at a zero rate (the decision with the ball not tried stuck); with
  /// mu = mu_s the acceleration starts at zero and the slip leaves along the
  /// holding moment, which stays. Nothing for the other elements.
  void direct_slip_from_hold(int k);
  /// Several such elements (joint friction, contact tangents, dry friction), all slipping
  /// and all at a zero slip rate in the last evaluated state, decided
  /// together (docs/theory/friction.md, "Several at zero rate"): the
  /// combination of stick and slip directions whose stuck forces lie within
  /// mu_static |N| and whose slipping coordinates accelerate the way they
  /// slip, the others keeping their forces. Writes each element's mode into
  /// `modes`. Up to kMaxFrictionEnumerated elements by exact enumeration
  /// (the most stuck consistent combination); more, or an enumeration that
  /// would take more than 2e5 trial solves, through a linear complementarity
  /// problem whose combination is put to the same exact test. Throws
  /// SimulationError naming them and the time when no combination or
  /// several are consistent (Painleve).
  /// Elements of an own limit (seed 003's dry friction, F_max = psi k |u| +
  /// fT with fT > 0) join the set with their F_max of the instant as the
  /// limit (mu = mu_s = 1, a normal force that the forces do not change).
  /// A ball is one element whose moment is a vector: stuck, or slipping
  /// along its relative angular acceleration (the direction found with the
  /// combination's solution; its slip axis is set to it).
  /// `must_slip` (empty, or one flag per element): the flagged elements are
  /// not tried stuck (one whose hold has just given way); where then no
  /// combination is consistent, or several are, or the enumeration cannot
  /// be made (more than kMaxFrictionEnumerated elements, or over its budget
  /// of trial solves), `modes` is left as given instead of throwing (the
  /// complementarity problem is not tried).
  /// Elements on different groups of coupled bodies (stick_slip_group) are
  /// decided group by group, and only the slipping elements of its own
  /// group are members of a group's decision.
  /// `complementarity_only`: the complementarity problem without the
  /// enumeration (a stuck group beyond its limits, whose dependent holds'
  /// splits would take the enumeration up to its budget); returns false,
  /// the modes left as given, where its combination does not hold, instead
  /// of throwing. Otherwise returns true.
  bool decide_friction_together(std::span<const int> elements, std::span<int> modes,
                                std::span<const char> must_slip = {},
                                bool complementarity_only = false);
  /// From now on in this run, where the split of statically indeterminate
  /// stuck forces along the modes that join stuck holds leaves an element
  /// with a normal force beyond its cone, the split is searched along the
  /// modes wholly among contact rows too, each surface's resultant normal
  /// force kept (docs/theory/friction.md, "A box in a corner"). Asked by a
  /// stick/slip decision whose rounds did not settle, or whose stick
  /// decision the dynamics' split undid at once. Returns false if the run
  /// had asked already.
  bool search_contact_splits();
  /// Whether the run has asked for search_contact_splits.
  bool contact_splits_searched() const;
  /// Whether element k, at a zero rate with others, is decided with them by
  /// decide_friction_together: a joint's (a ball's too) or contact's
  /// friction, or an element with dry friction (slip_limit_floor() > 0).
  /// Structural damping alone (F_max zero at u = 0) is decided alone.
  bool stick_slip_decided_together(int k) const;
  /// The group of coupled bodies (coupling_groups) element k acts on, -1
  /// for none: elements of different groups cannot change each other's
  /// forces or accelerations, and are decided apart.
  int stick_slip_group(int k) const;
  static constexpr int kMaxFrictionEnumerated = 12;

  // --- impacts ----------------------------------------------------------------
  /// System impact (seed 000 eqs. 3-5): external impulses pe are applied and
  /// the active constraints imposed on the velocities of y by impulses p,
  ///   u2 = u1 + M^-1 K pe + M^-1 D^T p,   S p = target - D (u1 + M^-1 K pe),
  /// where a row that closed since the last impact targets -k times its
  /// relative velocity before (k: its restitution) and every other row its
  /// h(t). Positions do not change. Constraints that closed with k > 0 are
  /// released afterwards (the bodies part). With `impulsive_closure` false,
  /// closing rows take no impulse and are left to the Baumgarte terms.
  /// Throws SimulationError if no velocities satisfy the rows.
  ImpulseResult apply_impact(double t, VecX& y, std::span<const ExternalImpulse> external = {},
                             bool impulsive_closure = true);
  /// Rows that closed since the last impact (or the assembly).
  bool constraints_closing() const;

  // --- unilateral contacts (contact.h; docs/theory/contact.md) ---------------
  // Each side of a joint limit is one unilateral row k = 0 .. count-1; open,
  // it is no constraint; closed, a row holds its gap at zero and its
  // multiplier is the normal force. The Simulation decides when they open
  // and close (src/contact/contact_switching.cpp).
  int contact_side_count() const;
  /// "stop", or "stop.lower" / "stop.upper" for a two-sided limit.
  const std::string& contact_side_name(int k) const;
  double contact_restitution(int k) const;
  double contact_accumulation_time(int k) const;
  bool contact_closed(int k) const;
  /// Closes side k (its row holds the gap at zero) or opens it; opening
  /// lets its stuck friction tangents go (they slip, without force while the
  /// side is open). Returns true if the constraint structure changed.
  bool set_contact_closed(int k, bool closed);
  /// Gap and gap rate of side k at the last evaluated state.
  double contact_gap(int k);
  double contact_gap_rate(int k);
  /// Smallest gap side k resolves at the last evaluated state: round-off of
  /// the coordinate it is computed from (100 eps (|limit| + |c| (+ pi for an
  /// angle))). Flights lower than this cannot be located.
  double contact_gap_resolution(int k);
  /// Normal force of side k (compressive positive) at the last evaluated
  /// state; zero while open. Needs dynamics.
  double contact_normal_force(int k);
  /// Complementarity impact (Newton restitution, Moreau's impact law) over
  /// `sides`, which are closed for it, together with every active equality
  /// row: u2 = u1 + M^-1 D^T p, equality rows D_E u2 = h_E, and per side
  ///   0 <= P_k  _|_  g'_k(u2) + e_k min(g'_k(u1), 0) >= 0,
  /// an LCP solved by siconos-numerics (Lemke). `restitution` overrides e
  /// per side (empty: the contacts' own). A side with `held` set is held
  /// closed through the impact instead (g'_k(u2) = 0, an equality row: the
  /// end of an accumulation of impacts, docs/theory/contact.md); its
  /// impulse is that row's multiplier. The free sides with Coulomb
  /// friction whose tangents are not held take friction impulses in the same
  /// problem (the pyramid of contact/friction_pyramid.h, docs/theory/
  /// friction.md, "Impacts with friction"). Positions do not change; the
  /// loss is booked in the energy audit. Returns the normal impulses P_k and the
  /// gap rates before and after. Throws SimulationError naming the sides if
  /// the LCP has no solution.
  struct ContactImpact {
    std::vector<double> impulse, rate_before, rate_after;
    double kinetic_before = 0.0;
    double kinetic_after = 0.0;
    /// frictional joints the impact sets slipping (stuck before) or turns
    /// round: (stick/slip element, mode), for the caller to apply once the
    /// impact is final
    std::vector<std::pair<int, int>> let_go;
    /// the frictional joints' impulses: ("<element>.stick" or ".slip", F)
    std::vector<std::pair<std::string, double>> joint_friction;
    /// joints whose friction impulses are one choice among many giving the
    /// same motion (stuck joints of one motion)
    std::vector<std::string> non_unique;
  };
  ContactImpact contact_impact(double t, VecX& y, std::span<const int> sides,
                               std::span<const double> restitution = {},
                               std::span<const char> held = {});
  /// The contact problem at acceleration level over `sides`, closed for it
  /// (with every active equality row): 0 <= N_k _|_ g''_k >= 0. Returns the
  /// normal forces N_k (an LCP by siconos-numerics); a side with N_k = 0
  /// leaves the contact. Throws SimulationError if there is no solution.
  /// `gap_accelerations`, if given, receives g''_k (zero where N_k > 0).
  std::vector<double> contact_forces(double t, const VecX& y, std::span<const int> sides,
                                     std::vector<double>* gap_accelerations = nullptr);

  // --- linear algebra ---------------------------------------------------------
  /// Whether the mechanism may be solved in linear time on a spanning tree of
  /// its body/joint graph, loops closed by a Schur complement on the cut rows
  /// (on by default; docs/performance.md). Off, every evaluation forms and
  /// factorises S = D M^-1 D^T (the general path, which also decides the rank
  /// and takes singular configurations).
  void set_tree_dynamics(bool allowed);
  /// Whether the last evaluation of the dynamics was solved on the tree.
  bool tree_dynamics_used() const;
  /// How many times the constraint rows (D, gamma, position errors) have
  /// been evaluated: what evaluation skipping saves (docs/performance.md).
  long constraint_row_evaluations() const;
  /// How many of those evaluated the rows' position stage (D, targets,
  /// position errors); the others, at the positions and time of the one
  /// before, evaluated only the velocity terms gamma.
  long constraint_geometry_evaluations() const;
  /// How many numerical factorisations the dynamics' solvers (the tree and
  /// the sparse S) have computed; a factorisation whose rows' Jacobians are
  /// unchanged (only the velocities moved) is kept, not counted.
  long dynamics_factorisations() const;
  /// Rows cut to open the loops in the last evaluation solved on the tree
  /// (0: the graph, without its dropped rows, is a tree; or the tree was not used).
  int tree_dynamics_cut_rows() const;

  // --- reports --------------------------------------------------------------
  /// Analyses the current structure at state y (rank, redundancy, condition).
  StructureReport structure_report(double t, const VecX& y);
  /// Warnings collected while building or analysing (redundant constraints).
  const std::vector<std::string>& warnings() const;
  /// Each warning is given once; this is how many more times each was
  /// raised (text -> repeats, only those repeated).
  std::vector<std::pair<std::string, int>> repeated_warnings() const;
  /// Adds the warnings held back until a passage ends (a rank change through
  /// a singular configuration still under way): the end of a run calls it.
  void flush_warnings();
  /// How often the set of dependent rows changed during the run (every
  /// change; the warnings merge those of one passage).
  long rank_changes() const;

  // --- saving and restoring the mode ------------------------------------------
  /// What a run has changed in this System: switches, captured joint frames,
  /// stick/slip modes, dependent rows, angle unwrapping, the last impact.
  struct ModeSnapshot;
  std::shared_ptr<const ModeSnapshot> save_mode() const;
  /// Restores a snapshot taken from a System built from the same Model, at
  /// the state (t, y) it was taken with; the constraint structure is rebuilt
  /// with the saved dependent rows. Throws std::invalid_argument for a
  /// snapshot of another model.
  void restore_mode(const ModeSnapshot& mode, double t, const VecX& y);

  struct Impl;

 private:
  /// decide_friction_together for elements on several groups of coupled
  /// bodies (stick_slip_group): each group's decided on its own; false,
  /// all modes left as given, where one group's is.
  bool decide_friction_by_group(std::span<const int> elements, std::span<int> modes,
                                std::span<const char> must_slip, bool complementarity_only);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ictus
