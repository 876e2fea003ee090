// The SUNDIALS steppers' step loop must not allocate: after the first reset
// and step, steps, dense output and further resets (CVodeReInit / IDAReInit)
// run on memory sized once. This binary counts malloc calls itself (the
// stepper is driven directly, without a Simulation); operator new and
// Eigen's allocator end in malloc. Not built with sanitizers.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <string>

#include "../../src/steppers/sundials_steppers.h"
#include "ictus/mechanical_system.h"
#include "ictus/stepper.h"

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
void count() {
  if (g_counting.load(std::memory_order_relaxed)) ++g_allocations;
}
}  // namespace

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);

void* malloc(std::size_t size) {
  count();
  return __libc_malloc(size);
}
void* calloc(std::size_t n, std::size_t size) {
  count();
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t size) {
  count();
  return __libc_realloc(p, size);
}
void* aligned_alloc(std::size_t align, std::size_t size) {
  count();
  return __libc_memalign(align, size);
}
int posix_memalign(void** out, std::size_t align, std::size_t size) noexcept {
  count();
  *out = __libc_memalign(align, size);
  return *out == nullptr ? 12 /* ENOMEM */ : 0;
}
}

namespace ictus {
namespace {

// two bodies: a stiff spring between the x coordinates (eigenvalue ~ -1e3
// with damping), a tumbling second body (quaternion projection), one audit
// quadrature
class StiffPair final : public MechanicalSystem {
 public:
  StiffPair() {
    layout_.bodies = 2;
    layout_.audit = 1;
  }
  const StateLayout& layout() const override { return layout_; }
  void accelerations(double, const VecX& y, Eigen::Ref<VecX> r) override {
    r.setZero();
    r(0) = -4.0 * y(0);
    r(6) = -1e5 * (y(7) - y(0)) - 1e3 * y(19);
    const Vec3 inertia(1.0, 2.0, 3.0);
    const Vec3 w = y.segment<3>(13 + 3);
    r.segment<3>(9) = -w.cross(inertia.cwiseProduct(w)).cwiseQuotient(inertia);
    r(12) = y(13) * y(13);
  }

 private:
  StateLayout layout_;
};

// "cvode" or "ida", optionally with "/klu" for the sparse linear solver
class SundialsAllocationTest : public testing::TestWithParam<std::string> {};

TEST_P(SundialsAllocationTest, StepLoopDoesNotAllocate) {
  StiffPair system;
  VecX y = VecX::Zero(system.layout().size());
  y(0) = 1.0;
  y(3) = 1.0;
  y(10) = 1.0;
  y.segment<3>(16) << 0.1, 2.0, 0.1;
  StepperOptions options;
  std::string name = GetParam();
  if (const auto slash = name.find('/'); slash != std::string::npos) {
    options.linear_solver = parse_linear_solver(name.substr(slash + 1));
    name.resize(slash);
  }
  auto stepper = make_sundials_stepper(name, system, options);
  ASSERT_NE(stepper, nullptr);
  stepper->reset(0.0, y);
  stepper->step(1.0);
  VecX out(y.size());
  g_allocations = 0;
  g_counting = true;
  while (stepper->t() < 2.0) {
    stepper->step(2.0);
    stepper->interpolate(stepper->t_previous() + 0.5 * stepper->last_step(), out);
  }
  stepper->reset(stepper->t(), stepper->y());  // as after an event
  while (stepper->t() < 4.0) stepper->step(4.0);
  g_counting = false;
  EXPECT_GT(stepper->statistics().jacobian_evaluations, 10);
  EXPECT_EQ(g_allocations.load(), 0) << "in " << stepper->statistics().steps << " steps";
}

INSTANTIATE_TEST_SUITE_P(Cvode, SundialsAllocationTest, testing::Values("cvode"));
INSTANTIATE_TEST_SUITE_P(Ida, SundialsAllocationTest, testing::Values("ida"));
// KLU: refactorisations (klu_refactor) in the loop, the symbolic analysis
// kept across the reset (sundials_support.h: make_klu)
INSTANTIATE_TEST_SUITE_P(Klu, SundialsAllocationTest, testing::Values("cvode/klu", "ida/klu"));

}  // namespace
}  // namespace ictus
