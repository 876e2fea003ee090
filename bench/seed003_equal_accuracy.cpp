// Seed 003's speed claim for its nonlinear tables measured (issue 17 part 5,
// docs/experiments/papers-claims.md): "Runge-Kutta is 3-4x slower than
// Newmark and Wilson (Tables 2 and 3) at equal accuracy".
//
// Protocol (that of BM_Table1FiveDigits in seed003_bench.cpp, on the
// located peaks of seed003_claims.cpp). For structural damping psi = 0.48
// (Table 2) and dry friction fT = 44.2 N (Table 3) the exact u_max, v_max
// and in-pulse a_max are those of the event-driven run (dopri5, rtol 1e-12,
// the stick/slip switches located; the model's summary peaks 0, 1 and 3).
// For RK4, Newmark (1/4, 1/2) and Wilson-theta (1.4), one pass, the search
// takes steps h = 0.03 / 2^(k/4) and keeps the coarsest at which this step
// and the next two finer ones give all three peaks within half a unit of
// their 5th significant digit. The CPU time (CLOCK_PROCESS_CPUTIME_ID) of
// building and running the Simulation at that step, no observer, is the
// least of 20 repetitions. For comparison, the same at the seed's own step
// pi/960 for every method (equal step, not equal accuracy).
//   build/release/bench/ictus_seed003_equal_accuracy
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <exception>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "ictus/model_file.h"
#include "ictus/observers.h"
#include "ictus/simulation.h"
#include "suspension_model.h"

namespace {

using Sets = ictus::bench::Sets;

// u_max, v_max, in-pulse a_max (the summary peaks 0, 1 and 3 of the file)
std::vector<double> peaks(const Sets& sets, const std::string& integrator, double step) {
  const ictus::Model model = ictus::bench::suspension_model(sets, integrator, step);
  ictus::Simulation simulation(model);
  ictus::Summary summary({}, model.settings().peaks);
  simulation.add_observer(summary);
  simulation.run();
  const std::vector<ictus::PeakResult> r = summary.peaks();
  return {r[0].value, r[1].value, r[3].value};
}

// Largest error of the three peaks in units of half the 5th significant
// digit of the exact value (<= 1: five digits).
double worst_error(const std::vector<double>& got, const std::vector<double>& exact) {
  double worst = 0.0;
  for (std::size_t k = 0; k < 3; ++k) {
    const double half_unit = 0.5 * std::pow(10.0, std::floor(std::log10(std::abs(exact[k]))) - 4);
    worst = std::max(worst, std::abs(got[k] - exact[k]) / half_unit);
  }
  return worst;
}

// Coarsest step that passes together with the next two finer ones (0: none).
double search(const Sets& sets, const std::string& method, const std::vector<double>& exact,
              std::vector<double>& found) {
  double step = 0.03;
  int passed = 0;
  double first = 0.0;
  for (int k = 0; k < 80 && passed < 3; ++k, step *= std::pow(2.0, -0.25)) {
    double worst = 1e300;
    std::vector<double> p;
    try {
      p = peaks(sets, method, step);
      worst = worst_error(p, exact);
    } catch (const std::exception&) {  // too coarse to run at all
    }
    if (worst <= 1.0) {
      if (passed++ == 0) {
        first = step;
        found = p;
      }
    } else {
      passed = 0;
    }
  }
  return passed == 3 ? first : 0.0;
}

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// least CPU time of building and running the Simulation; also its step count
double timed_run(const Sets& sets, const std::string& method, double step, long& steps) {
  ictus::Model model = ictus::bench::suspension_model(sets, method, step);
  model.settings().output_step = 0.01;  // sampling does not change the steps
  double best = 1e300;
  for (int r = 0; r < 20; ++r) {
    const double start = cpu_seconds();
    ictus::Simulation simulation(model);
    const ictus::RunStatistics stats = simulation.run();
    best = std::min(best, cpu_seconds() - start);
    steps = static_cast<long>(stats.integrator.steps);
  }
  return best;
}

// significant digits to which a agrees with b
double digits(double a, double b) {
  const double e = std::abs(a - b) / std::abs(b);
  return e == 0.0 ? 16.0 : -std::log10(e);
}

}  // namespace

int main() {
  const std::pair<const char*, Sets> variants[] = {{"psi = 0.48 (Table 2)", {{"psi", "0.48"}}},
                                                   {"fT = 44.2 N (Table 3)", {{"fT", "44.2"}}}};
  fmt::print(
      "| variant | method | step [s] | steps | u_max | v_max | a_max in pulse | digits (u, v, a) "
      "| CPU [ms] | CPU / RK4's |\n");
  fmt::print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |\n");
  for (const auto& [name, sets] : variants) {
    const std::vector<double> exact = peaks(sets, "dopri5", 0.0);
    fmt::print(
        "| {} | exact (dopri5, rtol 1e-12) | – | – | {:.7g} | {:.7g} | {:.7g} | – | – | – |\n",
        name, exact[0], exact[1], exact[2]);
    double rk4_time = 0.0;
    for (const char* method : {"rk4", "newmark", "wilson"}) {
      std::vector<double> p;
      const double step = search(sets, method, exact, p);
      if (step == 0.0) {
        fmt::print("| {} | {} | no step reaches 5 digits |\n", name, method);
        continue;
      }
      long steps = 0;
      const double cpu = timed_run(sets, method, step, steps);
      if (std::string(method) == "rk4") rk4_time = cpu;
      fmt::print(
          "| {} | {} | {:.6g} | {} | {:.7g} | {:.7g} | {:.7g} | {:.1f}, {:.1f}, {:.1f} | {:.3f} | "
          "{:.2f} |\n",
          name, method, step, steps, p[0], p[1], p[2], digits(p[0], exact[0]),
          digits(p[1], exact[1]), digits(p[2], exact[2]), 1e3 * cpu,
          rk4_time > 0.0 ? cpu / rk4_time : 0.0);
    }
    // the seed's own comparison: every method at its step pi/960
    double rk4_seed_time = 0.0;
    for (const char* method : {"rk4", "newmark", "wilson"}) {
      const double step = std::numbers::pi / 960;
      const std::vector<double> p = peaks(sets, method, step);
      long steps = 0;
      const double cpu = timed_run(sets, method, step, steps);
      if (std::string(method) == "rk4") rk4_seed_time = cpu;
      fmt::print(
          "| {} | {} | pi/960 | {} | {:.7g} | {:.7g} | {:.7g} | {:.1f}, {:.1f}, {:.1f} | {:.3f} | "
          "{:.2f} |\n",
          name, method, steps, p[0], p[1], p[2], digits(p[0], exact[0]), digits(p[1], exact[1]),
          digits(p[2], exact[2]), 1e3 * cpu, cpu / rk4_seed_time);
    }
  }
  return 0;
}
