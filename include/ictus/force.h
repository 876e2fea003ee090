// Force elements: everything that contributes to f in M u' - D^T p = f.
//
// A force element adds a force (world axes, through the centre of mass) and a
// torque (body axes) to the bodies it acts on, and states how its power
// splits, so that the energy audit closes:
//   * conservative part -> potential_energy();
//   * dissipative part  -> dissipated power (>= 0);
//   * everything else   -> applied power (work of external loads).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ictus/body.h"
#include "ictus/error.h"
#include "ictus/expression.h"

namespace ictus {

namespace internal {
class CompiledExpression;
}

/// Generalised force on one body: force through the centre of mass (world
/// axes) and torque about the centre of mass (body axes).
struct BodyLoad {
  Vec3 force_W = Vec3::Zero();
  Vec3 torque_B = Vec3::Zero();
};

/// Read access to body kinematics and time while forces are evaluated.
class ForceContext {
 public:
  ForceContext(std::span<const BodyKinematics> bodies, double t) : bodies_(bodies), t_(t) {}
  const BodyKinematics& body(BodyIndex b) const;
  double t() const { return t_; }
  /// The kinematics of every body (ground excluded), indexed by BodyIndex.
  std::span<const BodyKinematics> bodies() const { return bodies_; }

 private:
  std::span<const BodyKinematics> bodies_;
  double t_;
};

/// Adds a load to a body (ignored for the ground).
class LoadAccumulator {
 public:
  explicit LoadAccumulator(std::span<BodyLoad> loads) : loads_(loads) {}
  /// Force applied at world point p_W on body b whose kinematics is `kin`.
  void add_force_at(BodyIndex b, const BodyKinematics& kin, const Vec3& force_W, const Vec3& p_W);
  void add_torque_W(BodyIndex b, const BodyKinematics& kin, const Vec3& torque_W);

 private:
  std::span<BodyLoad> loads_;
};

/// How an element's power splits (watts).
struct ForcePower {
  double applied = 0.0;     ///< power of external (non-conservative, non-dissipative) loads
  double dissipated = 0.0;  ///< power removed by damping, >= 0
};

struct Joint;
class ElementaryConstraint;
class ForceElement;

/// Which part of an element's force `apply_part` adds. Seed 003's two-pass
/// ("modified") Newmark and Wilson schemes keep the linear part (stiffness,
/// viscous damping) in the constant effective stiffness and move the
/// nonlinear part (structural damping, dry friction) to the right-hand side.
enum class ForcePart {
  kAll,        ///< everything, as apply()
  kLinear,     ///< the part linear in the coordinates and rates
  kNonlinear,  ///< the rest (kAll = kLinear + kNonlinear)
};

/// Modes of a stick/slip element (docs/theory/stick-slip.md).
enum StickSlipMode : int {
  kSlipNegative = -1,  ///< slipping with a negative rate
  kStick = 0,          ///< held by a constraint row
  kSlipPositive = 1,   ///< slipping with a positive rate
};

/// 6 x 6 block of a load Jacobian.
using Mat6 = Eigen::Matrix<double, 6, 6>;

/// Evaluates one element's loads at given kinematics. The System provides
/// one so that formulas reading channels (joint coordinates, body channels)
/// see the perturbed state, not only the ForceContext
/// (docs/theory/jacobians.md).
class ForceProbe {
 public:
  virtual ~ForceProbe() = default;
  /// Sets `loads` (one per body, zeroed first) to the loads that `part` of
  /// `element` alone applies at kinematics `bodies` and time t.
  virtual void element_loads(const ForceElement& element, std::span<const BodyKinematics> bodies,
                             double t, ForcePart part, std::span<BodyLoad> loads) = 0;
};

/// Accumulates the Jacobian of an element's loads (docs/theory/jacobians.md).
/// A load is a BodyLoad as applied, [force_W (3), torque_B (3)]; a position
/// coordinate is the tangent increment [dp_W (3), dtheta_B (3)] of
/// state_layout.h (p += dp, q_WB <- q_WB exp(dtheta_B)); a velocity
/// coordinate is [v_W (3), w_B (3)]. Block (i, j) of K_q holds
/// d(load of body i) / d(position increment of body j), the same for K_v
/// with the velocities. Blocks touching the ground are dropped.
class ForceJacobian {
 public:
  struct Block {
    BodyIndex load_body = kGround;
    BodyIndex coordinate_body = kGround;
    Mat6 position = Mat6::Zero();  ///< d load_i / d dq_j
    Mat6 velocity = Mat6::Zero();  ///< d load_i / d v_j
  };

  /// K_q(i, j) += K and K_v(i, j) += C.
  void add_position(BodyIndex i, BodyIndex j, const Mat6& K);
  void add_velocity(BodyIndex i, BodyIndex j, const Mat6& C);
  std::span<const Block> blocks() const { return {blocks_.data(), size_}; }
  /// Forgets the blocks (keeps the storage: no allocation once warm).
  void clear() { size_ = 0; }

  /// Service for the finite-difference default; nullptr: ForceContext only.
  ForceProbe* probe = nullptr;
  /// Set by the finite difference when it went through the probe (the
  /// System then restores the channels of the unperturbed state).
  bool probe_used = false;

  // finite-difference work (kept to avoid allocating per element)
  std::vector<BodyKinematics> perturbed;
  std::vector<BodyLoad> loads_plus, loads_minus;

 private:
  Block& block(BodyIndex i, BodyIndex j);
  std::vector<Block> blocks_;
  std::size_t size_ = 0;
};

/// Services available to an element while the System is being built.
class ForceBuildContext {
 public:
  virtual ~ForceBuildContext() = default;
  virtual const std::vector<Body>& bodies() const = 0;
  /// The joint called `name` as the System keeps it (the reference stays
  /// valid for the System's life, and a capture joint's frames in it change
  /// when the joint closes); throws ModelError naming `element` if there is none.
  virtual const Joint& joint(const std::string& name, const std::string& element,
                             const SourceLocation& where) const = 0;
  /// Compiles a formula of t and position/velocity channels.
  virtual std::unique_ptr<internal::CompiledExpression> compile(const Expression& expr,
                                                                const std::string& element) = 0;
  /// Slot that holds the current value of a position/velocity channel.
  virtual const double* bind_channel(const std::string& channel, const std::string& element,
                                     const SourceLocation& where) = 0;
};

/// Interface of a force element. Elements are prototypes held by the Model;
/// each System works on its own clone, prepared once (formulas compiled).
class ForceElement {
 public:
  explicit ForceElement(std::string name, SourceLocation where = {})
      : name_(std::move(name)), where_(std::move(where)) {}
  virtual ~ForceElement() = default;

  const std::string& name() const { return name_; }
  const SourceLocation& where() const { return where_; }
  /// "force element 'name'", for messages.
  std::string element_label() const;

  virtual std::string_view kind() const = 0;
  virtual std::unique_ptr<ForceElement> clone() const = 0;
  /// Compiles formulas. Called once on the System's clone.
  virtual void prepare(ForceBuildContext& /*ctx*/) {}
  /// Bodies the element acts on (for validation and reports).
  virtual std::vector<BodyIndex> bodies() const = 0;
  /// Adds this element's loads; returns its power split.
  virtual ForcePower apply(const ForceContext& ctx, LoadAccumulator& loads) const = 0;
  virtual double potential_energy(const ForceContext& /*ctx*/) const { return 0.0; }

  // --- load Jacobians (docs/theory/jacobians.md) ----------------------------
  /// Bodies whose coordinates the loads depend on (the finite-difference
  /// default perturbs these alone); defaults to bodies().
  virtual std::vector<BodyIndex> jacobian_bodies() const { return bodies(); }
  /// Adds d(loads)/d(positions) and d(loads)/d(velocities) of apply() at the
  /// state of `ctx` to J. The default is the element-local finite difference
  /// add_jacobian_fd(); elements override it with analytic derivatives.
  virtual void add_jacobian(const ForceContext& ctx, ForceJacobian& J) const {
    add_jacobian_fd(ctx, J, ForcePart::kAll);
  }
  /// Element-local central finite difference of `part` of the loads over the
  /// coordinates of jacobian_bodies() (at most 12 positions and 12
  /// velocities for two bodies): 4 evaluations of this element per
  /// coordinate pair, the rest of the system untouched.
  void add_jacobian_fd(const ForceContext& ctx, ForceJacobian& J, ForcePart part) const;

  /// Names of the element's output channels (suffixes after "<name>.").
  virtual std::vector<std::string> channel_names() const { return {}; }
  /// SI unit of channel k.
  virtual std::string channel_unit(int /*k*/) const { return ""; }
  /// Value of channel k, valid after apply() at the same state.
  virtual double channel_value(int /*k*/, const ForceContext& /*ctx*/) const { return 0.0; }

  // --- linear and nonlinear parts (seed 003 two-pass schemes) -------------
  /// True if apply() contains a nonlinear part (kNonlinear adds something).
  virtual bool has_nonlinear_part() const { return false; }
  /// Adds the chosen part of the loads; returns its power split. The
  /// default treats the whole element as linear.
  virtual ForcePower apply_part(const ForceContext& ctx, LoadAccumulator& loads,
                                ForcePart part) const {
    return part == ForcePart::kNonlinear ? ForcePower{} : apply(ctx, loads);
  }

  // --- set-valued stick/slip law (seed 003, issue 16; Filippov) ------------
  // An element with a stick/slip law is set-valued at a zero rate u' of its
  // coordinate u: slipping (mode +-1) it adds the force -mode F_max(u); stuck
  // (mode 0) its coordinate is held by a constraint row that the System adds
  // (joint coordinate: a translation/rotation driver row held at the value
  // of the instant of sticking; between two points: a distance row held at
  // the length of that instant), whose multiplier is the friction force.
  // Switching (by Simulation, docs/theory/stick-slip.md): slip -> u' = 0 ->
  // stick if |multiplier| <= F_max, else reverse; stick -> |multiplier| >
  // F_max -> slip in the direction the load pushes.

  /// True if the element has a stick/slip mode.
  virtual bool has_stick_slip() const { return false; }
  /// Joint whose coordinate is held while stuck, and whether it is the angle.
  virtual const std::string& hold_joint() const;
  virtual bool hold_is_angle() const { return false; }
  /// Between two points (no hold joint): the bodies and body-fixed points
  /// whose distance is held while stuck. False if the element has none.
  virtual bool hold_points(BodyIndex* /*base*/, Vec3* /*point_base_B*/, BodyIndex* /*follower*/,
                           Vec3* /*point_follower_B*/) const {
    return false;
  }
  /// Neither: one driven elementary constraint (held at the coordinate's
  /// value of the instant of sticking; its position error at value 0 is
  /// the coordinate) between two bodies. False if the element has none.
  virtual bool hold_constraint(BodyIndex* /*base*/, BodyIndex* /*follower*/,
                               std::shared_ptr<const ElementaryConstraint>* /*row*/) const {
    return false;
  }
  /// The element's coordinate u (from its free value) at the evaluated state.
  virtual double slip_coordinate(const ForceContext& /*ctx*/) const { return 0.0; }
  /// The rate u' of the element's coordinate at the evaluated state.
  virtual double slip_rate(const ForceContext& /*ctx*/) const { return 0.0; }
  /// F_max(u) >= 0: the largest force the element transmits while stuck,
  /// and the force it opposes the slip with.
  virtual double slip_limit(const ForceContext& /*ctx*/) const { return 0.0; }
  /// The part of F_max that never vanishes (dry friction f_T). While it is
  /// positive the element is decided together with the other friction
  /// elements at a zero rate, its limit fixed at the instant; structural
  /// damping alone (F_max = psi k |u|, zero at u = 0, where the decision
  /// needs the look-ahead along the motion) is decided alone.
  virtual double slip_limit_floor() const { return 0.0; }
  /// Adds the load of a friction force F along the element's coordinate u
  /// (positive along increasing u on the follower, or pushing two points
  /// apart; the opposite on the base): the slip force is F = -mode F_max.
  /// The System's coupled decision at a zero rate takes every element's
  /// response to a unit F (docs/theory/friction.md, "Several at zero
  /// rate"). An element without a stick/slip law adds nothing.
  virtual void add_slip_load(const ForceContext& /*ctx*/, LoadAccumulator& /*loads*/,
                             double /*F*/) const {}
  /// Current mode (StickSlipMode); a plain value the System reads and writes.
  int mode() const { return mode_; }
  void set_mode(int mode) { mode_ = mode; }

 protected:
  ForceElement(const ForceElement&) = default;
  ForceElement& operator=(const ForceElement&) = default;

 private:
  std::string name_;
  SourceLocation where_;
  int mode_ = kSlipPositive;
};

}  // namespace ictus
