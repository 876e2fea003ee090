// The bouncing ball to rest (shared/peers/PEERS.md, model c): a sphere of
// R = 0.1 m and 1 kg dropped from a gap of 1 m onto a plane, e = 0.8, 10 s,
// by ictus event-driven (dopri5, impacts located) or by Moreau-Jean time
// stepping. Prints the first five apex heights against h0 e^(2n) and the CPU
// time per run; the Siconos side is bench/siconos/ (docs/benchmarks.md).
//   ictus_ball_bench event [repeats]
//   ictus_ball_bench moreau_jean STEP THETA [repeats]
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "ictus/observers.h"
#include "ictus/simulation.h"
#include "ictus/system.h"

namespace {

constexpr double kG = 9.81, kH0 = 1.0, kE = 0.8;

// Apexes from samples of (gap, vertical velocity): where the velocity turns
// from rising to falling, the free flight from the sample before reaches
// gap + v^2 / (2 g). The same rule reads the Siconos run.
class ApexObserver final : public ictus::Observer {
 public:
  void on_start(ictus::System& system, double, double) override {
    gap_ = system.find_channel("floor.gap");
    rate_ = system.find_channel("floor.gap_rate");
  }
  void on_sample(double, ictus::System& system) override {
    const double gap = system.channel_value(gap_);
    const double rate = system.channel_value(rate_);
    if (rate_before_ > 0.0 && rate <= 0.0 && apexes.size() < 5)
      apexes.push_back(gap_before_ + rate_before_ * rate_before_ / (2.0 * kG));
    gap_before_ = gap;
    rate_before_ = rate;
  }
  std::vector<double> apexes;

 private:
  int gap_ = -1, rate_ = -1;
  double gap_before_ = 0.0, rate_before_ = 0.0;
};

ictus::Model ball(const std::string& integrator, double step, double theta) {
  const std::string settings =
      integrator == "moreau_jean"
          ? fmt::format("integrator: moreau_jean, step: {}, theta: {}, output_step: {}", step,
                        theta, step)
          : std::string("integrator: dopri5, rtol: 1e-10, atol: 1e-12, output_step: 1e-3");
  return ictus::parse_model(fmt::format(R"(
gravity: [0, -{}, 0]
bodies:
  ball: {{mass: 1, inertia: [0.004, 0.004, 0.004], position: [0, 1.1, 0]}}
shapes:
  ball_shape: {{body: ball, type: sphere, radius: 0.1}}
  floor_plane: {{body: ground, type: plane, normal: [0, 1, 0]}}
contacts:
  floor: {{type: shapes, between: [ball, ground], restitution: {}}}
simulate: {{until: 10, {}}}
)",
                                        kG, kE, settings),
                            "ball.yaml");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string method = argc > 1 ? argv[1] : "event";
  const bool mj = method == "moreau_jean";
  const double step = mj && argc > 2 ? std::atof(argv[2]) : 1e-3;
  const double theta = mj && argc > 3 ? std::atof(argv[3]) : 0.5;
  const int repeats = std::atoi(argc > (mj ? 4 : 2) ? argv[mj ? 4 : 2] : "1");
  const ictus::Model model = ball(mj ? "moreau_jean" : "dopri5", step, theta);
  ApexObserver apex;
  long steps = 0;
  const std::clock_t start = std::clock();
  for (int r = 0; r < repeats; ++r) {
    ictus::Simulation simulation(model);
    if (r == 0) simulation.add_observer(apex);
    steps = simulation.run().integrator.steps;
  }
  const double cpu = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC / repeats;
  double worst = 0.0;
  std::string heights;
  for (std::size_t n = 0; n < apex.apexes.size(); ++n) {
    const double exact = kH0 * std::pow(kE, 2.0 * static_cast<double>(n + 1));
    worst = std::max(worst, std::abs(apex.apexes[n] - exact));
    heights += fmt::format(" {:.5f}", apex.apexes[n]);
  }
  fmt::print(
      "ictus {} step {} theta {}: apexes{} max error {:.2e} m, {} steps, cpu {:.3g} ms/run\n",
      method, mj ? step : 0.0, mj ? theta : 0.0, heights, worst, steps, 1e3 * cpu);
  return 0;
}
