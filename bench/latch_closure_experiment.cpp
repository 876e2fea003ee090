// Seed 000's comparison (its figure 4): a latch that closes with the bodies'
// velocities violating it, handled (a) by the impulse of eqs. (3)-(5), or
// (b) by integrating through the closure and letting large Baumgarte gains
// pull the velocities onto the constraint. Prints a Markdown table of the
// accuracy (velocities after the closure against the impulse solution) and
// the cost of each; docs/experiments/latch-closure.md records one run.
//
//   build/release/bench/ictus_latch_experiment [examples/docking_pair.yaml]
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <string>

#include "ictus/model_file.h"
#include "ictus/observers.h"
#include "ictus/simulation.h"

namespace {

struct Outcome {
  ictus::VecX velocities;
  long steps = 0;
  long evaluations = 0;
  double seconds = 0.0;
  double max_violation = 0.0;
};

// Runs to `until` and returns the velocities there and the cost.
Outcome run(ictus::Model model, double until) {
  model.settings().until = until;
  model.settings().output_step = until / 2000.0;
  ictus::Simulation simulation(model);
  ictus::Recorder recorder({"system.violation"});
  simulation.add_observer(recorder);
  const auto start = std::chrono::steady_clock::now();
  const ictus::RunStatistics stats = simulation.run();
  Outcome out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int n = simulation.system().body_count();
  out.velocities = simulation.state().segment(7 * n, 6 * n);
  out.steps = stats.integrator.steps;
  out.evaluations = stats.integrator.evaluations;
  for (double v : recorder.series("system.violation"))
    out.max_violation = std::max(out.max_violation, v);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string file =
      argc > 1 ? argv[1] : std::string(ICTUS_SOURCE_DIR) + "/examples/docking_pair.yaml";
  const ictus::Model base = ictus::load_model(file);
  constexpr double kUntil = 1.0;  // s after the latch closes at t = 0

  const Outcome impulse = run(base, kUntil);
  fmt::print("model: {}; latch closes at t = 0, compared at t = {} s\n\n", base.name(), kUntil);
  fmt::print(
      "| closure | beta_k [1/s] | beta_c [1/s^2] | max velocity error at t = {} s "
      "(relative) | largest constraint violation | steps | evaluations | wall [ms] |\n",
      kUntil);
  fmt::print("|---|---|---|---|---|---|---|---|\n");
  fmt::print("| impulse, eqs. (3)-(5) | {} | {} | reference | {:.1e} | {} | {} | {:.2f} |\n",
             base.settings().stabilisation.baumgarte_velocity,
             base.settings().stabilisation.baumgarte_position, impulse.max_violation, impulse.steps,
             impulse.evaluations, 1e3 * impulse.seconds);
  const double scale = impulse.velocities.cwiseAbs().maxCoeff();
  for (const double beta_k : {20.0, 200.0, 2000.0, 20000.0}) {
    ictus::Model model = base;
    model.settings().closure = ictus::SimulationSettings::Closure::kBaumgarte;
    model.settings().stabilisation.baumgarte_velocity = beta_k;
    model.settings().stabilisation.baumgarte_position = beta_k * beta_k / 4.0;  // critical
    const Outcome soft = run(model, kUntil);
    const double error = (soft.velocities - impulse.velocities).cwiseAbs().maxCoeff() / scale;
    fmt::print("| Baumgarte | {:g} | {:g} | {:.1e} | {:.1e} | {} | {} | {:.2f} |\n", beta_k,
               beta_k * beta_k / 4.0, error, soft.max_violation, soft.steps, soft.evaluations,
               1e3 * soft.seconds);
  }
  return 0;
}
