// The simulation step loop must not allocate (README, DESIGN.md): memory is
// sized when the structure changes, never per step. This binary replaces
// malloc and the global operator new with counting versions and runs whole
// simulations, counting the allocations made between the first output sample
// (set-up done) and the end of the run. (Not built with sanitizers, which
// bring their own allocator.)
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <new>

#include "ictus/model_file.h"
#include "ictus/observers.h"
#include "support/reference_models.h"
#include "support/test_support.h"

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
void count() {
  if (!g_counting.load(std::memory_order_relaxed)) return;
  ++g_allocations;
  // to find an allocation: ICTUS_ABORT_ON_ALLOCATION=1 gdb -ex run -ex bt ...
  static const bool abort_on_allocation = std::getenv("ICTUS_ABORT_ON_ALLOCATION") != nullptr;
  if (abort_on_allocation) std::abort();
}
}  // namespace

// Every heap allocation goes through these: operator new and Eigen's aligned
// allocator both end in malloc. They forward to glibc's implementation.
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);

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
int posix_memalign(void** out, std::size_t align, std::size_t size) {
  count();
  *out = __libc_memalign(align, size);
  return *out == nullptr ? 12 /* ENOMEM */ : 0;
}
void free(void* p) {
  __libc_free(p);
}
}

void* operator new(std::size_t size) {
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  return operator new(size);
}
void* operator new(std::size_t size, std::align_val_t align) {
  const auto a = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(a, (size + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}

namespace ictus {
namespace {

// Counts allocations from the first sample at or after `from` (set-up
// finished; by default the first) to the end. It does not allocate itself.
class AllocationCounter final : public Observer {
 public:
  explicit AllocationCounter(double from = 0.0) : from_(from) {}
  void on_sample(double t, System&) override {
    if (!started_ && t >= from_) {
      started_ = true;
      g_allocations = 0;
      g_counting = true;
    }
    ++samples_;
  }
  void on_finish(double, bool) override { g_counting = false; }
  long samples() const { return samples_; }

 private:
  double from_ = 0.0;
  bool started_ = false;
  long samples_ = 0;
};

long allocations_during_run(const Model& model, long* steps, double from = 0.0) {
  Simulation simulation(model);
  AllocationCounter counter(from);
  simulation.add_observer(counter);
  const RunStatistics stats = simulation.run();
  *steps = stats.integrator.steps;
  EXPECT_GT(counter.samples(), 10);
  return g_allocations.load();
}

// The instrument itself: an observer that allocates on every sample must be
// seen, or the zero counts below would prove nothing.
class AllocatingObserver final : public Observer {
 public:
  void on_sample(double t, System&) override { samples_.push_back(t); }

 private:
  std::vector<double> samples_;
};

TEST(StepLoopAllocation, CounterSeesAllocationsInTheLoop) {
  Model model = load_model(test::source_path("examples/pendulum.yaml"));
  model.settings().until = 0.5;
  Simulation simulation(model);
  AllocationCounter counter;
  AllocatingObserver allocating;
  simulation.add_observer(counter);
  simulation.add_observer(allocating);
  simulation.run();
  EXPECT_GT(g_allocations.load(), 0);
}

// Counts the samples whose evaluation was solved on the tree
// (tree_kkt_solver.h), and those of them with loops closed on cut rows, so
// that the zero counts cover that path.
class TreeUseCounter final : public Observer {
 public:
  void on_sample(double, System& system) override {
    if (system.tree_dynamics_used()) ++tree_samples_;
    if (system.tree_dynamics_cut_rows() > 0) ++loop_samples_;
  }
  long tree_samples() const { return tree_samples_; }
  long loop_samples() const { return loop_samples_; }

 private:
  long tree_samples_ = 0;
  long loop_samples_ = 0;
};

long allocations_during_run(const Model& model, long* steps, long* tree_samples,
                            long* loop_samples = nullptr) {
  Simulation simulation(model);
  AllocationCounter counter;
  TreeUseCounter tree;
  simulation.add_observer(counter);
  simulation.add_observer(tree);
  const RunStatistics stats = simulation.run();
  *steps = stats.integrator.steps;
  *tree_samples = tree.tree_samples();
  if (loop_samples != nullptr) *loop_samples = tree.loop_samples();
  EXPECT_GT(counter.samples(), 10);
  return g_allocations.load();
}

TEST(StepLoopAllocation, ChainOfPendulumsWithRk4) {
  Model model = test::make_chain(30);
  model.settings().until = 0.2;
  model.settings().integrator.name = "rk4";
  model.settings().integrator.step = 1e-3;
  long steps = 0;
  long tree_samples = 0;
  EXPECT_EQ(allocations_during_run(model, &steps, &tree_samples), 0);
  EXPECT_GT(steps, 100);
  EXPECT_GT(tree_samples, 10);  // the linear-time tree solve
}

// Loops: solved on a spanning tree, closed by the Schur complement of the
// cut rows (the four-bar's redundant rows dropped first).
TEST(StepLoopAllocation, SliderCrankWithDriverAndFormulaLoads) {
  Model model = load_model(test::source_path("examples/slider_crank.yaml"));
  model.settings().until = 0.5;
  long steps = 0;
  long tree_samples = 0;
  long loop_samples = 0;
  EXPECT_EQ(allocations_during_run(model, &steps, &tree_samples, &loop_samples), 0);
  EXPECT_GT(steps, 50);
  EXPECT_GT(loop_samples, 10);
}

TEST(StepLoopAllocation, FourBarWithRedundantRowsAndAnArmedEvent) {
  Model model = load_model(test::source_path("examples/four_bar_redundant.yaml"));
  model.settings().until = 0.5;
  long steps = 0;
  long tree_samples = 0;
  long loop_samples = 0;
  EXPECT_EQ(allocations_during_run(model, &steps, &tree_samples, &loop_samples), 0);
  EXPECT_GT(steps, 20);
  EXPECT_GT(loop_samples, 10);
}

// Stick/slip elements (seed 003): their switching functions are evaluated
// after every step and on the dense output, stuck (the hold row's force
// against F_max) and slipping (the rate), before their first switch.
TEST(StepLoopAllocation, StuckDryFrictionMount) {
  Model model = load_model(test::source_path("examples/suspension.yaml"), {{"fT", "44.2"}});
  model.settings().until = 0.02;  // stuck until 0.0227 s
  model.settings().output_step = 1e-3;
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps), 0);
  EXPECT_GT(steps, 5);
}

// The same mount between two points: stuck, held by a distance row of no joint.
TEST(StepLoopAllocation, StuckDryFrictionMountBetweenPoints) {
  Model model = load_model(test::source_path("tests/models/suspension_between_points.yaml"),
                           {{"fT", "44.2"}});
  model.settings().until = 0.02;  // stuck until 0.0227 s
  model.settings().output_step = 1e-3;
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps), 0);
  EXPECT_GT(steps, 5);
}

// Unilateral contacts (docs/theory/contact.md): a closed stop's normal
// force and an open contact's gap are switching functions evaluated after
// every step and on the dense output.
TEST(StepLoopAllocation, PistonRestingOnItsStop) {
  Model model = load_model(test::source_path("examples/piston.yaml"));
  model.settings().until = 1.9;  // closed, the normal force falling to 0 at 2 s
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps), 0);
  EXPECT_GT(steps, 5);
}

TEST(StepLoopAllocation, BallFallingTowardAPlane) {
  Model model = parse_model(R"(
gravity: [0, 0, -9.81]
bodies:
  ball: {mass: 1, inertia: [4e-3, 4e-3, 4e-3], position: [0, 0, 1]}
shapes:
  ball_shape: {body: ball, type: sphere, radius: 0.1}
  floor_plane: {body: ground, type: plane, normal: [0, 0, 1]}
contacts:
  floor: {type: shapes, between: [ball, ground], restitution: 0.9}
simulate: {until: 0.4, output_step: 0.01, rtol: 1e-10}
)",
                            "ball.yaml");
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps), 0);  // open until 0.428 s
  EXPECT_GT(steps, 2);
}

// Joint friction (seed 004): the slip force solved with the reactions by one
// more back-substitution per slipping joint; the first reversal is at 0.2711 s.
TEST(StepLoopAllocation, DiskSliderSlippingInItsFrictionalGuide) {
  Model model = load_model(test::source_path("examples/disk_slider.yaml"), {{"Mmax", "0"}});
  model.settings().until = 0.27;
  model.settings().output_step = 1e-2;
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps), 0);
  EXPECT_GT(steps, 20);
}

// Two pins slipping together whose radial reactions turn in their plane:
// the friction forces solved as a fixed point of the reactions' lengths
// (spatial_slip.h), its Newton systems in the workspace made at build.
TEST(StepLoopAllocation, DoublePendulumOnTwoFrictionalPins) {
  Model model = load_model(test::source_path("examples/double_pendulum_friction.yaml"));
  model.settings().until = 0.3;  // before the first reversal, at 0.34 s
  model.settings().output_step = 1e-2;
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps), 0);
  EXPECT_GT(steps, 20);
}

// Three: the set padded to four in the workspace.
TEST(StepLoopAllocation, TriplePendulumOnThreeFrictionalPins) {
  Model model = load_model(test::source_path("tests/models/triple_pendulum_friction.yaml"));
  model.settings().until = 0.025;  // before the first reversal, at 0.028 s
  model.settings().output_step = 1e-3;
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps), 0);
  EXPECT_GT(steps, 5);
}

// A pendulum stuck by its pin friction from the start (held by the hold row).
TEST(StepLoopAllocation, PendulumStuckByPinFriction) {
  Model model =
      load_model(test::source_path("tests/models/pin_friction_pendulum.yaml"), {{"th0", "0.01"}});
  model.settings().until = 1.0;
  model.settings().output_step = 1e-2;
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps), 0);
  EXPECT_GT(steps, 2);
}

// Ball friction (a spherical joint): slipping, the slip moment along w/|w|
// and the slip axis following w after every step; stuck, the three-row hold.
TEST(StepLoopAllocation, DiskSpinningDownOnABallWithFriction) {
  Model model = load_model(test::source_path("tests/models/ball_friction_spin.yaml"));
  model.settings().until = 1.0;  // it sticks at 1.529 s
  model.settings().output_step = 1e-2;
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps), 0);
  EXPECT_GT(steps, 2);
}

TEST(StepLoopAllocation, PendulumStuckByBallFriction) {
  Model model =
      load_model(test::source_path("tests/models/ball_friction_pendulum.yaml"), {{"th0", "0.01"}});
  model.settings().until = 1.0;
  model.settings().output_step = 1e-2;
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps), 0);
  EXPECT_GT(steps, 2);
}

// Moreau-Jean: the per-step contact problem (the Delassus matrix over the
// index set, siconos' pivoting solver with preallocated work, the
// least-norm refinement) allocates nothing; the ball bounces and comes to
// rest, the piston is held on its stop, the box rests on four corners.
TEST(StepLoopAllocation, MoreauJeanBallBouncingToRest) {
  Model model = parse_model(R"(
gravity: [0, 0, -9.81]
bodies:
  ball: {mass: 1, inertia: [4e-3, 4e-3, 4e-3], position: [0, 0, 1]}
shapes:
  ball_shape: {body: ball, type: sphere, radius: 0.1}
  floor_plane: {body: ground, type: plane, normal: [0, 0, 1]}
contacts:
  floor: {type: shapes, between: [ball, ground], restitution: 0.8}
simulate: {until: 8, output_step: 0.01, integrator: moreau_jean, step: 1e-3}
)",
                            "ball.yaml");
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps), 0);
  EXPECT_GT(steps, 7000);
}

// (before the event of the push at x = L/2: events log records, and may allocate)
TEST(StepLoopAllocation, MoreauJeanPistonHeldOnItsStop) {
  Model model = load_model(test::source_path("examples/piston.yaml"));
  model.settings().until = 1.9;
  IntegratorSettings& in = model.settings().integrator;
  in.name = "moreau_jean";
  in.step = 1e-3;
  in.given = {"step"};
  in.given_where = {in.where};
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps), 0);
  EXPECT_GT(steps, 1800);
}

TEST(StepLoopAllocation, MoreauJeanBoxOnFourCorners) {
  Model model = parse_model(R"(
gravity: [0, 0, -9.81]
bodies:
  box: {mass: 4, inertia: [0.05, 0.06, 0.07], position: [0, 0, 0.3]}
shapes:
  body_box: {body: box, type: box, size: [0.4, 0.3, 0.2]}
  floor_plane: {body: ground, type: plane, normal: [0, 0, 1]}
contacts:
  floor: {type: shapes, between: [ground, box], restitution: 0}
simulate: {until: 1, output_step: 0.01, integrator: moreau_jean, step: 1e-3}
)",
                            "box.yaml");
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps), 0);
  EXPECT_GT(steps, 900);
}

// Contact friction: event-driven, a block sliding down an incline (the
// slip force solved with the contact's normal force); Moreau-Jean, a block
// pushed along a floor, stuck and then sliding (the friction pyramid in the
// step's complementarity problem, its matrix in preallocated buffers).
TEST(StepLoopAllocation, BlockSlidingDownAnInclineWithContactFriction) {
  Model model = load_model(test::source_path("examples/incline_block.yaml"));
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps), 0);
  EXPECT_GT(steps, 2);
}

// A box sliding flat on four rough corners, event-driven, until just before
// it stops: the normal forces of its dependent corners shared out on every
// solve (system_dependent_contacts.cpp), from buffers built at the start.
// Counted from 0.01 s: the redundancy warnings of the start's
// decisions are written to the log at the end of the first step.
TEST(StepLoopAllocation, BoxSlidingFlatOnFourRoughCorners) {
  Model model = parse_model(R"(
gravity: [0, 0, -9.81]
bodies:
  box: {mass: 4, inertia: [0.05, 0.06, 0.07], position: [0, 0, 0.1], velocity: [0.5, 0, 0]}
shapes:
  body_box: {body: box, type: box, size: [0.4, 0.3, 0.2]}
  floor_plane: {body: ground, type: plane, normal: [0, 0, 1]}
contacts:
  floor: {type: shapes, between: [ground, box], friction: 0.5}
simulate: {until: 0.09, output_step: 0.001, rtol: 1e-10, atol: 1e-12}
)",
                            "box.yaml");
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps, 0.01), 0);
  EXPECT_GT(steps, 2);
}

// The box at rest on those corners, pushed at its centre of mass by 10 t N
// (mu_s = 0.5): from 1.6 s, where the solved split leaves corners beyond
// their cones, the split of the stuck tangents is a linear program on every
// solve (system_dependent_holds.cpp), in buffers sized with the structure,
// until just before the box slips at 1.962 s.
TEST(StepLoopAllocation, PushedBoxStuckOnFourRoughCornersNearItsLimit) {
  Model model = parse_model(R"(
gravity: [0, 0, -9.81]
bodies:
  box: {mass: 4, inertia: [0.05, 0.06, 0.07], position: [0, 0, 0.1]}
shapes:
  body_box: {body: box, type: box, size: [0.4, 0.3, 0.2]}
  floor_plane: {body: ground, type: plane, normal: [0, 0, 1]}
contacts:
  floor: {type: shapes, between: [ground, box], friction: {mu: 0.3, mu_static: 0.5}}
forces:
  push: {type: force, on: box, direction: [1, 0, 0], value: 10*t}
simulate: {until: 1.95, output_step: 0.01, rtol: 1e-10, atol: 1e-12}
)",
                            "pushed_box.yaml");
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps, 1.6), 0);
  EXPECT_GT(steps, 2);
}

// A plank on four box feet (16 corners, 29 self-stress modes of their 32
// stuck tangents in one program of 61 unknowns), pushed the same way: the
// program starts from the last optimal basis (linear_program.h), whose
// factorisation is held in the program's own fixed-capacity storage.
TEST(StepLoopAllocation, PlankStuckOnFourRoughFeetNearItsLimit) {
  Model model = parse_model(R"(
gravity: [0, 0, -9.81]
bodies:
  plank: {mass: 4, inertia: [0.1, 0.5, 0.55], position: [0, 0, 0.15]}
shapes:
  slab: {body: plank, type: box, size: [1.2, 0.5, 0.05]}
  foot0: {body: plank, type: box, at: [-0.5, -0.2, -0.1], size: [0.1, 0.1, 0.1]}
  foot1: {body: plank, type: box, at: [0.5, -0.2, -0.1], size: [0.1, 0.1, 0.1]}
  foot2: {body: plank, type: box, at: [-0.5, 0.2, -0.1], size: [0.1, 0.1, 0.1]}
  foot3: {body: plank, type: box, at: [0.5, 0.2, -0.1], size: [0.1, 0.1, 0.1]}
  floor_plane: {body: ground, type: plane, normal: [0, 0, 1]}
contacts:
  floor: {type: shapes, between: [ground, plank], friction: {mu: 0.3, mu_static: 0.5}}
forces:
  push: {type: force, on: plank, direction: [1, 0, 0], value: 10*t}
simulate: {until: 1.95, output_step: 0.01, rtol: 1e-10, atol: 1e-12}
)",
                            "plank.yaml");
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps, 1.6), 0);
  EXPECT_GT(steps, 2);
}

// Three such boxes on one floor, until just before the first stops: 24
// slipping contact tangents solved together (the workspace of
// src/coupled_slip.h, padded to 32, made when the model is built).
TEST(StepLoopAllocation, ThreeBoxesSlidingFlatOnOneRoughFloor) {
  Model model = load_model(test::source_path("tests/models/three_flat_boxes.yaml"));
  model.settings().until = 0.055;  // box c stops at 0.061 s
  model.settings().output_step = 0.001;
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps, 0.01), 0);
  EXPECT_GT(steps, 2);
}

TEST(StepLoopAllocation, MoreauJeanPushedBlockWithContactFriction) {
  Model model = load_model(test::source_path("examples/pushed_block.yaml"));
  IntegratorSettings& in = model.settings().integrator;
  in.name = "moreau_jean";
  in.step = 1e-3;
  in.given = {"step"};
  in.given_where = {in.where};
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps), 0);
  EXPECT_GT(steps, 1400);
}

TEST(StepLoopAllocation, SlippingStructuralDampingMount) {
  Model model = load_model(test::source_path("examples/suspension.yaml"), {{"psi", "0.24"}});
  model.settings().until = 0.19;  // the first reversal is at 0.1947 s
  model.settings().output_step = 1e-2;
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps), 0);
  EXPECT_GT(steps, 20);
}

}  // namespace
}  // namespace ictus

namespace ictus {
namespace {

TEST(StepLoopAllocation, CoordinateProjectionAfterEachStep) {
  Model model = load_model(test::source_path("examples/slider_crank.yaml"));
  model.settings().until = 0.3;
  model.settings().stabilisation.baumgarte_position = 0.0;
  model.settings().stabilisation.baumgarte_velocity = 0.0;
  model.settings().stabilisation.projection = true;
  model.settings().stabilisation.projection_tolerance = 1e-13;  // projects nearly every step
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps), 0);
  EXPECT_GT(steps, 20);
}

}  // namespace
}  // namespace ictus

namespace ictus {
namespace {

// Every stepper in the loop of a constrained mechanism with a driver: no
// allocation once running (Newton's LU, the finite-difference Jacobian, the
// chart of the explicit methods, the projection after each structural step,
// the two-pass freezing). cvode and ida have their own counting binary.
class EveryStepper : public ::testing::TestWithParam<const char*> {};

TEST_P(EveryStepper, SliderCrankAllocatesNothingInTheStepLoop) {
  Model model = load_model(test::source_path("examples/slider_crank.yaml"));
  model.settings().until = 0.3;
  model.settings().integrator.name = GetParam();
  model.settings().integrator.given.clear();
  model.settings().integrator.step = 2e-3;
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps), 0);
  EXPECT_GT(steps, 20);
}

INSTANTIATE_TEST_SUITE_P(Steppers, EveryStepper,
                         ::testing::Values("rk4", "dopri5", "rkf45", "newmark", "wilson", "hht",
                                           "generalized_alpha"));

// What `ictus run` attaches (docs/cli.md): the CSV writer, the summary with
// its energy-audit record, the progress bar after every step, the interrupt
// flag and the tiny-step watch.
TEST(StepLoopAllocation, TheObserversOfTheCommandLine) {
  Model model = load_model(test::source_path("examples/slider_crank.yaml"));
  model.settings().until = 0.5;
  model.settings().output_step = 1e-4;  // 5000 rows: the CSV writer flushes many times
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "ictus_allocation_observers";
  std::FILE* devnull = std::fopen("/dev/null", "w");
  ASSERT_NE(devnull, nullptr);
  std::setvbuf(devnull, nullptr, _IONBF, 0);  // as stderr is
  long steps = 0;
  {
    Simulation simulation(model);
    AllocationCounter counter;
    CsvWriter csv(dir, select_channels(simulation.system(), model.settings().outputs));
    Summary summary(select_channels(simulation.system(), model.settings().outputs));
    ProgressBar progress(devnull, 0.0);
    std::atomic<bool> interrupt{false};
    simulation.add_observer(counter);
    simulation.add_observer(csv);
    simulation.add_observer(summary);
    simulation.add_observer(progress);
    simulation.set_interrupt_flag(&interrupt);
    simulation.keep_event_log(false);
    steps = simulation.run().integrator.steps;
    EXPECT_GT(counter.samples(), 10);
  }
  std::fclose(devnull);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(g_allocations.load(), 0);
  EXPECT_GT(steps, 50);
}

TEST(StepLoopAllocation, TwoPassNewmarkOnASlippingMount) {
  Model model =
      load_model(test::source_path("examples/suspension.yaml"), {{"C", "0"}, {"psi", "0.24"}});
  model.settings().until = 0.19;  // before the first reversal at 0.1947 s
  model.settings().output_step = 1e-2;
  model.settings().integrator.name = "newmark";
  model.settings().integrator.given.clear();
  model.settings().integrator.step = 1e-3;
  model.settings().integrator.two_pass = true;
  long steps = 0;
  EXPECT_EQ(allocations_during_run(model, &steps), 0);
  EXPECT_GT(steps, 100);
}

// A parallelogram passes its singular configuration (all links collinear)
// twice per turn; while a row is dropped the rank is decided again at every
// accepted step (issue 13). Only the steps that change the dependent rows
// may allocate (the self-stress modes, the warning at the end of a
// passage); the steps in between, inside the singular window as well, do not.
class QuietStepAllocations final : public Observer {
 public:
  void on_start(System& system, double, double) override { system_ = &system; }
  // A rank change found in a stage is decided when the next step is
  // accepted: a step counts as quiet when neither it nor the next changed.
  void on_step(double, double) override {
    const long changes = system_->rank_changes() + static_cast<long>(system_->warnings().size());
    const long allocations = g_allocations.exchange(0);
    const bool logged = changes != warnings_;
    if (pending_ && !pending_logged_ && !logged) {
      quiet_allocations_ += pending_allocations_;
      ++quiet_steps_;
    } else if (pending_) {
      ++logged_steps_;
    }
    pending_ = g_counting.load();
    pending_logged_ = logged;
    pending_allocations_ = allocations;
    warnings_ = changes;
  }
  long quiet_allocations() const { return quiet_allocations_; }
  long quiet_steps() const { return quiet_steps_; }
  long logged_steps() const { return logged_steps_; }

 private:
  System* system_ = nullptr;
  bool pending_ = false, pending_logged_ = false;
  long pending_allocations_ = 0;
  long warnings_ = 0;  // rank changes and warnings so far
  long quiet_allocations_ = 0, quiet_steps_ = 0, logged_steps_ = 0;
};

TEST(StepLoopAllocation, ParallelogramThroughItsSingularConfiguration) {
  const Model model = parse_model(R"(
bodies:
  crank0: {mass: 0.5, inertia: [0.00375, 0.00375, 0.00375], position: [0, 0.15, 0]}
  crank1: {mass: 0.5, inertia: [0.00375, 0.00375, 0.00375], position: [1, 0.15, 0]}
  coupler: {mass: 1, inertia: [0.0833, 0.0833, 0.0833], position: [0.5, 0.3, 0]}
joints:
  pivot0: {type: revolute, between: [ground, crank0], at: [0, 0, 0], axis: [0, 0, 1]}
  pivot1: {type: revolute, between: [ground, crank1], at: [1, 0, 0], axis: [0, 0, 1]}
  left: {type: revolute, between: [crank0, coupler], at: [0, 0.3, 0], axis: [0, 0, 1]}
  right: {type: revolute, between: [crank1, coupler], at: [1, 0.3, 0], axis: [0, 0, 1]}
gravity: [0, -9.81, 0]
initial_velocities: {pivot0.omega: 4}
simulate: {until: 2, output_step: 0.01}
)",
                                  "parallelogram.yaml");
  Simulation simulation(model);
  AllocationCounter counter;
  QuietStepAllocations steps;
  simulation.add_observer(counter);
  simulation.add_observer(steps);
  simulation.run();
  EXPECT_GE(steps.logged_steps(), 8);  // about five passages, each in and out
  EXPECT_GT(steps.quiet_steps(), 100);
  EXPECT_EQ(steps.quiet_allocations(), 0);
}

}  // namespace
}  // namespace ictus
