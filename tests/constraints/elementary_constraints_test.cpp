// Elementary constraints against their own definitions (constraint.h).
//
// Every row is checked along exact rigid motions at constant velocities,
// u = [v_W; w_B] with u' = 0. Constant w_B means constant w_W as well:
// R' = skew(w_W) R gives (R w_B)' = w_W x w_W = 0. So the poses move as
//
//     p(t) = p0 + v_W t,      R(t) = exp(skew(w_W) t) R0,
//
// and along such a motion the definitions
//
//     Delta' = D u - h                                      (velocity row)
//     D u'   = gamma,  gamma = h' - D' u                    (acceleration row)
//
// reduce to three identities tested by central differences:
//
//     (a) d/dt Delta       = D u - h
//     (b) d/dt (D(q(t)) u) = h' - gamma
//     (c) d2/dt2 Delta     = -gamma       (from (a) and (b))
//
// Driven constraints follow a quadratic law s(t) = s0 + s1 t + s2 t^2 / 2 so
// that h = s' and h' = s'' vary consistently with Delta. The base is in turn
// the ground (default BodyKinematics), the follower the ground, and both
// random bodies. Random numbers come from a fixed-seed mt19937_64 mapped to
// [0, 1) by hand, so the states are the same with every standard library.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "ictus/constraint.h"
#include "ictus/constraints/distance.h"
#include "ictus/constraints/perpendicular.h"
#include "ictus/constraints/point_coincidence.h"
#include "ictus/constraints/point_on_plane.h"
#include "ictus/constraints/rotation_hold.h"
#include "ictus/constraints/rotation_lock.h"

namespace ictus {
namespace {

// central-difference step: truncation ~h^2 |Delta'''| / 6 ~ 1e-9 and rounding
// ~eps |Delta| / h ~ 1e-10 for the O(1) lengths and O(1) rad/s used here
constexpr double kStep = 1e-5;
// (a), (b): first derivatives agree to 1e-7 relative, 100x above both errors
constexpr double kFirstDerivativeTolerance = 1e-7;
// (c): second differences lose more to rounding (4 eps |Delta| / h^2 ~ 6e-8 at
// h = 2e-4) while truncation (h^2 |Delta''''| / 12) stays near 1e-7
constexpr double kCurvatureStep = 2e-4;
constexpr double kCurvatureTolerance = 1e-6;
// random states per constraint kind: trial 0 has the ground as base, trial 1
// the ground as follower, the rest two moving bodies
constexpr int kTrials = 24;

// Reproducible uniform numbers, independent of std::uniform_real_distribution.
class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}
  double uniform(double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(engine_() >> 11) * 0x1.0p-53;
  }
  Vec3 vec3(double scale) {
    return Vec3(uniform(-scale, scale), uniform(-scale, scale), uniform(-scale, scale));
  }
  Vec3 unit3() {
    for (;;) {
      const Vec3 v = vec3(1.0);
      if (v.norm() > 0.1) return v.normalized();
    }
  }
  Quat rotation() {
    for (;;) {
      const Eigen::Vector4d c(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
      if (c.norm() > 0.1) return Quat(c(0), c(1), c(2), c(3)).normalized();
    }
  }

 private:
  std::mt19937_64 engine_;
};

BodyKinematics random_body(Random& rng, const Vec3& centre) {
  BodyKinematics k;
  k.p_W = centre + rng.vec3(1.0);
  k.R_WB = rng.rotation().toRotationMatrix();
  k.v_W = rng.vec3(1.0);
  k.w_B = rng.vec3(2.0);
  k.w_W = k.R_WB * k.w_B;
  return k;
}

// the same pose with new random velocities
BodyKinematics random_body_velocities(Random& rng, const BodyKinematics& k) {
  BodyKinematics out = k;
  out.v_W = rng.vec3(1.0);
  out.w_B = rng.vec3(2.0);
  out.w_W = out.R_WB * out.w_B;
  return out;
}

// the body at time dt along the constant-velocity motion (header comment)
BodyKinematics advance(const BodyKinematics& k, double dt) {
  BodyKinematics out = k;
  out.p_W = k.p_W + dt * k.v_W;
  out.R_WB = quat_exp(dt * k.w_W).toRotationMatrix() * k.R_WB;
  out.w_W = out.R_WB * out.w_B;
  return out;
}

Vec6 velocities(const BodyKinematics& k) {
  Vec6 u;
  u << k.v_W, k.w_B;
  return u;
}

// s(t) = s0 + s1 t + s2 t^2 / 2 with its derivatives; zero for undriven kinds
struct MotionLaw {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0;
  MotionSample at(double t) const { return {s0 + s1 * t + 0.5 * s2 * t * t, s1 + s2 * t, s2}; }
};

struct Kind {
  std::string name;
  std::function<std::unique_ptr<ElementaryConstraint>(Random&)> make;
};

std::vector<Kind> all_kinds() {
  return {
      {"point_on_plane",
       [](Random& r) {
         return std::make_unique<PointOnPlane>(r.vec3(0.5), r.unit3(), r.vec3(0.5));
       }},
      {"translation_driver",
       [](Random& r) {
         return std::make_unique<PointOnPlane>(r.vec3(0.5), r.unit3(), r.vec3(0.5), true);
       }},
      {"rotation_lock",
       [](Random& r) { return std::make_unique<RotationLock>(r.unit3(), r.unit3()); }},
      {"rotation_driver",
       [](Random& r) { return std::make_unique<RotationLock>(r.unit3(), r.unit3(), true); }},
      {"point_coincidence",
       [](Random& r) { return std::make_unique<PointCoincidence>(r.vec3(0.5), r.vec3(0.5)); }},
      {"distance",
       [](Random& r) {
         return std::make_unique<Distance>(r.vec3(0.5), r.vec3(0.5), r.uniform(0.5, 2.0));
       }},
      {"distance_driver",
       [](Random& r) { return std::make_unique<Distance>(r.vec3(0.5), r.vec3(0.5), 1.0, true); }},
      {"perpendicular",
       [](Random& r) { return std::make_unique<Perpendicular>(r.unit3(), r.unit3()); }},
  };
}

// One random configuration: constraint, two bodies and a motion law.
struct Trial {
  std::unique_ptr<ElementaryConstraint> constraint;
  BodyKinematics base;
  BodyKinematics follower;
  MotionLaw law;

  std::vector<ConstraintRow> rows_at(double t) const {
    const BodyKinematics bi = advance(base, t);
    const BodyKinematics bj = advance(follower, t);
    std::vector<ConstraintRow> rows(static_cast<std::size_t>(constraint->row_count()));
    constraint->evaluate(ConstraintContext{bi, bj, t, law.at(t)}, rows);
    return rows;
  }
  // D u of one row with the (constant) velocities of the trial
  double row_rate(const ConstraintRow& row) const {
    return row.J_base.dot(velocities(base)) + row.J_follower.dot(velocities(follower));
  }
  // |J_base u_base| + |J_follower u_follower|: the size of the terms in D u
  double rate_scale(const ConstraintRow& row) const {
    return std::abs(row.J_base.dot(velocities(base))) +
           std::abs(row.J_follower.dot(velocities(follower)));
  }
};

Trial make_trial(const Kind& kind, Random& rng, int index) {
  Trial trial;
  trial.constraint = kind.make(rng);
  // bodies centred 4 m apart along x, so a distance never degenerates to 0
  if (index != 0) trial.base = random_body(rng, Vec3::Zero());
  if (index != 1) trial.follower = random_body(rng, Vec3(4.0, 0.0, 0.0));
  if (trial.constraint->driven())
    trial.law = {rng.uniform(-1, 1) + (kind.name == "distance_driver" ? 4.0 : 0.0),
                 rng.uniform(-2, 2), rng.uniform(-3, 3)};
  return trial;
}

std::string describe(const Kind& kind, int trial, int row) {
  return kind.name + ", trial " + std::to_string(trial) + ", row " + std::to_string(row);
}

// (a) d/dt Delta = D u - h for every holonomic row.
TEST(ElementaryConstraints, VelocityRowIsTimeDerivativeOfPositionError) {
  Random rng(20240611);
  for (const Kind& kind : all_kinds()) {
    for (int i = 0; i < kTrials; ++i) {
      const Trial trial = make_trial(kind, rng, i);
      if (!trial.constraint->holonomic()) continue;
      const auto now = trial.rows_at(0.0);
      const auto ahead = trial.rows_at(kStep);
      const auto behind = trial.rows_at(-kStep);
      for (std::size_t k = 0; k < now.size(); ++k) {
        SCOPED_TRACE(describe(kind, i, static_cast<int>(k)));
        ASSERT_TRUE(now[k].has_position_error);
        const double numeric = (ahead[k].position_error - behind[k].position_error) / (2 * kStep);
        const double analytic = trial.row_rate(now[k]) - now[k].target;
        const double scale = 1.0 + trial.rate_scale(now[k]) + std::abs(now[k].target);
        EXPECT_NEAR(numeric, analytic, kFirstDerivativeTolerance * scale);
      }
    }
  }
}

// (b) gamma = h' - D'u: the change of D u along the motion at fixed u.
TEST(ElementaryConstraints, GammaIsPrescribedRateMinusConvectiveTerm) {
  Random rng(7);
  for (const Kind& kind : all_kinds()) {
    for (int i = 0; i < kTrials; ++i) {
      const Trial trial = make_trial(kind, rng, i);
      const auto now = trial.rows_at(0.0);
      const auto ahead = trial.rows_at(kStep);
      const auto behind = trial.rows_at(-kStep);
      for (std::size_t k = 0; k < now.size(); ++k) {
        SCOPED_TRACE(describe(kind, i, static_cast<int>(k)));
        const double du_dt = (trial.row_rate(ahead[k]) - trial.row_rate(behind[k])) / (2 * kStep);
        const double dh_dt = (ahead[k].target - behind[k].target) / (2 * kStep);
        // the driver law is the only source of h; its h' is the sampled s''
        EXPECT_NEAR(dh_dt, trial.law.s2, kFirstDerivativeTolerance * (1.0 + std::abs(dh_dt)));
        const double scale = 1.0 + std::abs(now[k].gamma) + trial.rate_scale(now[k]);
        EXPECT_NEAR(du_dt, dh_dt - now[k].gamma, kFirstDerivativeTolerance * scale);
      }
    }
  }
}

// (c) Delta'' = -gamma at u' = 0: gamma checked at position level, without J.
TEST(ElementaryConstraints, PositionErrorCurvatureIsMinusGammaAtConstantVelocity) {
  Random rng(31337);
  for (const Kind& kind : all_kinds()) {
    for (int i = 0; i < kTrials; ++i) {
      const Trial trial = make_trial(kind, rng, i);
      if (!trial.constraint->holonomic()) continue;
      const auto now = trial.rows_at(0.0);
      const auto ahead = trial.rows_at(kCurvatureStep);
      const auto behind = trial.rows_at(-kCurvatureStep);
      for (std::size_t k = 0; k < now.size(); ++k) {
        SCOPED_TRACE(describe(kind, i, static_cast<int>(k)));
        const double curvature =
            (ahead[k].position_error - 2 * now[k].position_error + behind[k].position_error) /
            (kCurvatureStep * kCurvatureStep);
        const double scale = 1.0 + std::abs(now[k].gamma) + trial.rate_scale(now[k]);
        EXPECT_NEAR(curvature, -now[k].gamma, kCurvatureTolerance * scale);
      }
    }
  }
}

// A single rotation lock is velocity-level only (rotation_lock.h): no
// position error of its own, not holonomic, and its row is the relative world
// angular velocity about the base axis n = R_i a, minus the driver rate.
TEST(ElementaryConstraints, RotationLockIsVelocityLevelOnly) {
  // the two velocity paths differ only by rounding of O(1) products
  constexpr double kRoundingTolerance = 1e-13;
  Random rng(99);
  for (const bool driven : {false, true}) {
    for (int i = 0; i < kTrials; ++i) {
      SCOPED_TRACE("driven " + std::to_string(driven) + ", trial " + std::to_string(i));
      const Vec3 axis = rng.unit3();
      Trial trial;
      trial.constraint = std::make_unique<RotationLock>(axis, rng.unit3(), driven);
      if (i != 0) trial.base = random_body(rng, Vec3::Zero());
      if (i != 1) trial.follower = random_body(rng, Vec3::Zero());
      if (driven) trial.law = {rng.uniform(-1, 1), rng.uniform(-2, 2), rng.uniform(-3, 3)};
      EXPECT_FALSE(trial.constraint->holonomic());
      EXPECT_EQ(trial.constraint->driven(), driven);
      EXPECT_EQ(trial.constraint->kind(), driven ? "rotation_driver" : "rotation_lock");

      const ConstraintRow row = trial.rows_at(0.0)[0];
      EXPECT_FALSE(row.has_position_error);
      EXPECT_EQ(row.position_error, 0.0);
      // a lock never couples translations
      EXPECT_EQ(row.J_base.head<3>(), Vec3::Zero());
      EXPECT_EQ(row.J_follower.head<3>(), Vec3::Zero());
      const Vec3 n = trial.base.R_WB * axis;
      const double world = n.dot(trial.follower.w_W - trial.base.w_W);
      EXPECT_NEAR(trial.row_rate(row), world, kRoundingTolerance);
      EXPECT_EQ(row.target, driven ? trial.law.s1 : 0.0);
    }
  }
}

// The other kinds are holonomic on their own and always report Delta.
TEST(ElementaryConstraints, OtherKindsAreHolonomicWithRowMetadata) {
  Random rng(5);
  for (const Kind& kind : all_kinds()) {
    const Trial trial = make_trial(kind, rng, 2);
    if (kind.name.starts_with("rotation")) continue;
    SCOPED_TRACE(kind.name);
    EXPECT_TRUE(trial.constraint->holonomic());
    EXPECT_EQ(trial.constraint->kind(), kind.name);
    EXPECT_EQ(trial.constraint->driven(), kind.name.ends_with("driver"));
    for (const ConstraintRow& row : trial.rows_at(0.0)) EXPECT_TRUE(row.has_position_error);
  }
  const PointCoincidence ball(Vec3::Zero(), Vec3::Zero());
  EXPECT_EQ(ball.row_count(), 3);
  EXPECT_EQ(ball.row_label(0), "x");
  EXPECT_EQ(ball.row_label(1), "y");
  EXPECT_EQ(ball.row_label(2), "z");
}

// evaluate_gamma (the System's path when only the velocities changed,
// docs/performance.md "Evaluation skipping") writes gamma and nothing else,
// and gives, at the same positions and time but other velocities, the very
// gamma (bit for bit) that evaluate gives there: the rows' other fields from
// the old velocities are then those of the new.
TEST(ElementaryConstraints, GammaAloneEqualsAFullEvaluationAtNewVelocities) {
  Random rng(2026);
  std::vector<Kind> kinds = all_kinds();
  kinds.push_back({"rotation_hold", [](Random&) { return std::make_unique<RotationHold>(); }});
  for (const Kind& kind : kinds) {
    for (int i = 0; i < kTrials; ++i) {
      SCOPED_TRACE(kind.name + ", trial " + std::to_string(i));
      const Trial trial = make_trial(kind, rng, i);
      const MotionSample motion = trial.law.at(0.3);
      BodyKinematics base = trial.base, follower = trial.follower;
      const auto count = static_cast<std::size_t>(trial.constraint->row_count());
      std::vector<ConstraintRow> rows(count), fresh(count);
      trial.constraint->evaluate(ConstraintContext{base, follower, 0.3, motion}, rows);
      // new velocities at the same poses (the ground stays at rest)
      if (i != 0) base = random_body_velocities(rng, base);
      if (i != 1) follower = random_body_velocities(rng, follower);
      const ConstraintContext moved{base, follower, 0.3, motion};
      trial.constraint->evaluate(moved, fresh);
      std::vector<ConstraintRow> kept = rows;
      for (ConstraintRow& row : kept) row.gamma = std::nan("");
      trial.constraint->evaluate_gamma(moved, kept);
      for (std::size_t k = 0; k < count; ++k) {
        EXPECT_EQ(kept[k].gamma, fresh[k].gamma) << "row " << k;
        EXPECT_EQ(kept[k].J_base, rows[k].J_base) << "row " << k;
        EXPECT_EQ(kept[k].J_follower, rows[k].J_follower) << "row " << k;
        EXPECT_EQ(kept[k].J_follower, fresh[k].J_follower) << "row " << k;
        EXPECT_EQ(kept[k].target, fresh[k].target) << "row " << k;
        EXPECT_EQ(kept[k].position_error, fresh[k].position_error) << "row " << k;
      }
      if (i > 1) {
        EXPECT_NE(rows[0].gamma, fresh[0].gamma);  // the velocities did matter
      }
    }
  }
}

// Hand-computed values: a follower point at height 0.3 above a ground plane
// z = 0, moving at v_z = 2, with a driver prescribing s = 0.1, s' = 0.5,
// s'' = 4. Delta = 0.3 - 0.1, D u = 2, h = 0.5, gamma = s'' (no rotation).
TEST(ElementaryConstraints, TranslationDriverHandComputed) {
  constexpr double kExact = 1e-15;  // exact arithmetic up to one rounding
  const PointOnPlane driver(Vec3::Zero(), Vec3::UnitZ(), Vec3::Zero(), true);
  const BodyKinematics ground;
  BodyKinematics slider;
  slider.p_W = Vec3(0.7, -0.2, 0.3);
  slider.v_W = Vec3(0.0, 0.0, 2.0);
  ConstraintRow row;
  driver.evaluate(ConstraintContext{ground, slider, 0.0, MotionSample{0.1, 0.5, 4.0}},
                  std::span<ConstraintRow>(&row, 1));
  EXPECT_NEAR(row.position_error, 0.2, kExact);
  EXPECT_NEAR(row.J_follower.dot(velocities(slider)), 2.0, kExact);
  EXPECT_EQ(row.target, 0.5);
  EXPECT_EQ(row.gamma, 4.0);
}

}  // namespace
}  // namespace ictus
