// A frictional element whose coordinate a driver moves (docs/theory/
// stick-slip.md, "Locked by the other rows"): stuck, its hold row is
// dependent on the driver's and dropped, so nothing held it, and its
// switching function F_max - |lambda| (lambda = 0) never fired. A driver
// that starts from rest with zero acceleration (angle = A t^3, or a dwell
// before it) then turned the joint with the element stuck and no friction:
// a pin driven by angle = t^3 reached 0.449 rad at t = 1 instead of 1 rad.
// Now the element slips as soon as the driver moves it, the way it moves,
// and the driver carries the friction: closed forms below.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kG = 9.81;

// the driven motion A (t - t1)^3 after a dwell until t1, and its derivatives
struct Cubic {
  double A, t1;
  double at(double t, int derivative) const {
    const double s = std::max(t - t1, 0.0);
    const double factor[] = {1.0, 3.0, 6.0};
    return A * factor[derivative] * std::pow(s, 3 - derivative);
  }
};

// A model's driver `name` of `joint`'s `coordinate` (angle or position):
// A (t - t1)^3 after a dwell until t1; and the run's settings.
Model driven(const char* head, const std::string& name, const std::string& joint,
             const std::string& coordinate, double t1, const ParameterOverrides& more = {}) {
  const std::string text = fmt::format(R"({}drivers:
  {}:
    joint: {}
    {}: A*max(t-t1,0)^3
    rate: 3*A*max(t-t1,0)^2
    acceleration: 6*A*max(t-t1,0)
simulate:
  until: 1
  output_step: 0.01
  rtol: 1e-10
  atol: 1e-12
)",
                                       head, name, joint, coordinate);
  ParameterOverrides overrides = more;
  overrides.emplace_back("t1", fmt::format("{}", t1));
  return parse_model(text, name + "_driven.yaml", overrides);
}

// Every switch: stuck at t0, then one slip, the way the driver moves, just
// after it leaves rest at t1 (its acceleration 6 A (t - t1) reaches the
// drift a decision takes for rest within 1e-4 s), or at t1 itself, or
// within `within` where that is set.
void expect_one_slip_after(const test::RecordedRun& r, const std::string& element, double t1,
                           double within = 1e-4) {
  std::vector<const EventRecord*> switches;
  for (const EventRecord& e : r.events)
    if (e.name == element && (e.kind == "stick" || e.kind == "slip" || e.kind == "reversal"))
      switches.push_back(&e);
  ASSERT_EQ(switches.size(), 2u) << element;
  EXPECT_EQ(switches[0]->kind, "stick");
  EXPECT_EQ(switches[0]->t, 0.0);
  EXPECT_EQ(switches[1]->kind, "slip");
  EXPECT_GE(switches[1]->t, t1);
  EXPECT_LT(switches[1]->t, t1 + within);
  EXPECT_NE(switches[1]->detail.find("mode +0 -> +1"), std::string::npos) << switches[1]->detail;
}

// An arm (m = 2 kg, centre of mass 0.5 m from the pin, I_zz = 0.2 kg m^2)
// on a frictional pin (mu = 0.3, r = 0.05 m), driven by angle = A (t - t1)^3.
// Slipping, the friction moment is mu r |N|, N the pin's reaction
// m a_G - m g, and the motor carries it with gravity's moment and I_O th''.
constexpr const char* kDrivenPin = R"(ictus: 1
name: arm on a frictional pin driven from rest
parameters: {A: 1, t1: 0, g: 9.81}
gravity: [0, -g, 0]
bodies:
  arm: {mass: 2, inertia: [0.01, 0.2, 0.2], position: [0.5, 0, 0]}
joints:
  pin:
    type: revolute
    between: [ground, arm]
    at: [0, 0, 0]
    axis: [0, 0, 1]
    friction: {mu: 0.3, radius: 0.05}
)";

// Also (review): a drive so slow that its acceleration stays below that
// drift for the whole run (A = 1e-7: 6e-7 t rad/s^2 against 2.8e-5)
// turned the pin stuck, with no friction, at any speed; it now slips when
// its rate reaches 1e3 atol (1e-9 rad/s, at t = 0.058 s). And without
// gravity, where the pin's normal force is the arm's own m a_G and zero at
// rest, it slipped the wrong way at t0 and turned round 3e-297 s later; it
// now slips forward at t0.
TEST(DrivenFriction, APinDrivenFromRestSlipsAsDrivenAndItsMotorCarriesTheFriction) {
  const double m = 2.0, l = 0.5, I_O = 0.2 + m * l * l, mu_r = 0.3 * 0.05;
  struct Case {
    double A, t1, g, within;
  };
  for (const Case c : {Case{1.0, 0.0, kG, 1e-4}, Case{1.0, 0.3, kG, 1e-4},
                       Case{1e-7, 0.0, kG, 0.06}, Case{1.0, 0.0, 0.0, 1e-4}}) {
    const double t1 = c.t1, g = c.g;
    const Cubic drive{c.A, t1};
    const test::RecordedRun r = test::run_and_record(
        driven(kDrivenPin, "motor", "pin", "angle", t1,
               {{"A", fmt::format("{}", c.A)}, {"g", fmt::format("{}", g)}}),
        {"pin.angle", "pin.friction", "pin.friction_mode", "motor.load", "energy.balance"});
    ASSERT_DOUBLE_EQ(r.t.back(), 1.0);
    expect_one_slip_after(r, "pin.friction", t1, c.within);
    double slip = 0.0;
    for (const EventRecord& e : r.events)
      if (e.kind == "slip") slip = e.t;
    if (c.A < 1e-3) {  // the rate 3 A t^2 reaches 1e3 atol
      EXPECT_NEAR(slip, std::sqrt(1e-9 / (3 * c.A)), 1e-6);
    }
    for (std::size_t k = 0; k < r.t.size(); ++k) {
      const double t = r.t[k];
      const double th = drive.at(t, 0), w = drive.at(t, 1), alpha = drive.at(t, 2);
      EXPECT_NEAR(r["pin.angle"][k], th, 1e-9) << t1 << " at " << t;
      // the pin's reaction on the arm: m a_G - m g, a_G = l (alpha e_t - w^2 e_r)
      const double ax = l * (-alpha * std::sin(th) - w * w * std::cos(th));
      const double ay = l * (alpha * std::cos(th) - w * w * std::sin(th));
      const double N = std::hypot(m * ax, m * ay + m * g);
      const double gravity = m * g * l * std::cos(th);
      if (t <= t1 &&
          !(g == 0.0 &&
            t1 == 0.0)) {  // at rest: the motor holds the arm, the pin's friction is not needed
        EXPECT_EQ(r["pin.friction_mode"][k], 0.0) << t1 << " at " << t;
        EXPECT_NEAR(r["pin.friction"][k], 0.0, 1e-9) << t1 << " at " << t;
        EXPECT_NEAR(r["motor.load"][k], gravity, 1e-8) << t1 << " at " << t;
        continue;
      }
      if (t < slip + 1e-4) continue;
      EXPECT_EQ(r["pin.friction_mode"][k], 1.0) << t1 << " at " << t;
      EXPECT_NEAR(r["pin.friction"][k], -mu_r * N, 1e-8) << t1 << " at " << t;
      EXPECT_NEAR(r["motor.load"][k], I_O * alpha + gravity + mu_r * N, 1e-8) << t1 << " at " << t;
    }
    EXPECT_LT(r.max_abs("energy.balance"), 1e-8);
  }
}

// A point mass on a rough floor (mu = 0.3), pushed along x by a cart on a
// driven rail through a vertical point_on_line joint: the contact's tangent
// along x is held by the rail's driver, the one across by the rail's rows.
// It slips along x as the cart moves, with mu m_b g, which the driver
// carries with the masses' inertia; across it stays stuck with no force.
constexpr const char* kPushedBlock = R"(ictus: 1
name: block pushed along a rough floor by a driven cart
parameters: {A: 1, t1: 0}
gravity: [0, 0, -9.81]
bodies:
  cart: {mass: 1, inertia: [0.1, 0.1, 0.1], position: [0, 0, 1]}
  block: {mass: 2, point_mass: true, position: [0, 0, 0.05]}
joints:
  rail: {type: prismatic, between: [ground, cart], at: [0, 0, 1], axis: [1, 0, 0]}
  stem: {type: point_on_line, between: [cart, block], at: [0, 0, 0.05], axis: [0, 0, 1]}
shapes:
  foot: {body: block, type: sphere, radius: 0.05}
  floor: {body: ground, type: plane, normal: [0, 0, 1]}
contacts:
  floor_contact: {type: shapes, between: [ground, block], friction: {mu: 0.3}}
)";

TEST(DrivenFriction, ABlockPushedAlongARoughFloorByADriverSlipsAsPushed) {
  const double m_cart = 1.0, m_block = 2.0, mu = 0.3;
  for (const double t1 : {0.0, 0.3}) {
    const Cubic drive{1.0, t1};
    const test::RecordedRun r =
        test::run_and_record(driven(kPushedBlock, "push", "rail", "position", t1),
                             {"block.x", "floor_contact.normal", "floor_contact.friction_x",
                              "floor_contact.friction_mode_x", "floor_contact.friction_y",
                              "floor_contact.friction_mode_y", "push.load", "energy.balance"});
    ASSERT_DOUBLE_EQ(r.t.back(), 1.0);
    expect_one_slip_after(r, "floor_contact.friction_x", t1);
    for (std::size_t k = 0; k < r.t.size(); ++k) {
      const double t = r.t[k];
      EXPECT_NEAR(r["block.x"][k], drive.at(t, 0), 1e-9) << t1 << " at " << t;
      EXPECT_NEAR(r["floor_contact.normal"][k], m_block * kG, 1e-8) << t1 << " at " << t;
      EXPECT_EQ(r["floor_contact.friction_mode_y"][k], 0.0) << t1 << " at " << t;
      EXPECT_NEAR(r["floor_contact.friction_y"][k], 0.0, 1e-9) << t1 << " at " << t;
      if (t > t1 && t < t1 + 1e-4) continue;
      const bool moving = t > t1;
      EXPECT_EQ(r["floor_contact.friction_mode_x"][k], moving ? 1.0 : 0.0) << t1 << " at " << t;
      const double friction = moving ? mu * m_block * kG : 0.0;
      EXPECT_NEAR(r["floor_contact.friction_x"][k], -friction, 1e-8) << t1 << " at " << t;
      EXPECT_NEAR(r["push.load"][k], (m_cart + m_block) * drive.at(t, 2) + friction, 1e-8)
          << t1 << " at " << t;
    }
    EXPECT_LT(r.max_abs("energy.balance"), 1e-8);
  }
}

// Seed 003's dry friction (f_T = 3 N) on a spring mount (k = 800 N/m)
// whose guide a driver moves: the same law, the element not a joint's
// Coulomb friction. The driver carries m x'' + k x + f_T.
constexpr const char* kDrivenMount = R"(ictus: 1
name: a mount with dry friction whose guide is driven
parameters: {A: 1, t1: 0}
gravity: [0, 0, 0]
bodies:
  block: {mass: 2, inertia: [0.01, 0.01, 0.01], position: [0, 0, 0]}
joints:
  guide: {type: prismatic, between: [ground, block], at: [0, 0, 0], axis: [0, 0, 1]}
forces:
  mount:
    type: spring_damper
    joint: guide
    stiffness: 800
    damping: 0
    dry_friction: 3
    free_position: 0
)";

TEST(DrivenFriction, ADryFrictionMountOnADrivenGuideSlipsAsDriven) {
  const double m = 2.0, k_spring = 800.0, f_T = 3.0;
  for (const double t1 : {0.0, 0.3}) {
    const Cubic drive{1.0, t1};
    const test::RecordedRun r = test::run_and_record(
        driven(kDrivenMount, "push", "guide", "position", t1),
        {"guide.x", "mount.mode", "mount.friction_force", "push.load", "energy.balance"});
    ASSERT_DOUBLE_EQ(r.t.back(), 1.0);
    expect_one_slip_after(r, "mount", t1);
    for (std::size_t k = 0; k < r.t.size(); ++k) {
      const double t = r.t[k];
      EXPECT_NEAR(r["guide.x"][k], drive.at(t, 0), 1e-9) << t1 << " at " << t;
      if (t > t1 && t < t1 + 1e-4) continue;
      const bool moving = t > t1;
      EXPECT_EQ(r["mount.mode"][k], moving ? 1.0 : 0.0) << t1 << " at " << t;
      const double friction = moving ? f_T : 0.0;
      EXPECT_NEAR(r["mount.friction_force"][k], -friction, 1e-9) << t1 << " at " << t;
      EXPECT_NEAR(r["push.load"][k], m * drive.at(t, 2) + k_spring * drive.at(t, 0) + friction,
                  1e-7)
          << t1 << " at " << t;
    }
    EXPECT_LT(r.max_abs("energy.balance"), 1e-8);
  }
}

}  // namespace
}  // namespace ictus
