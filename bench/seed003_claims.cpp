// Seed 003's accuracy claims measured (issue 17 part 5,
// docs/experiments/papers-claims.md): "halving the step or dividing it by
// ten leaves the results unchanged to five digits" and "the two passes of the
// modified scheme agree". Runs examples/suspension.yaml (each variant of
// Tables 1-3) with Newmark and Wilson-theta at dt = pi/960, pi/1920 and
// pi/9600, with and without the two-pass scheme, and prints u_max, v_max and
// the in-pulse a_max located on the dense output (the model's summary
// peaks), with the significant digits to which each agrees with the event-
// driven solution (dopri5, rtol 1e-12).
//   build/release/bench/ictus_seed003_claims
#include <fmt/format.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "ictus/observers.h"
#include "ictus/simulation.h"
#include "suspension_model.h"

namespace {

struct Variant {
  const char* name;
  std::vector<std::pair<std::string, std::string>> sets;
};

// u_max, v_max, in-pulse a_max (the summary peaks 0, 1 and 3 of the file)
std::vector<double> peaks(const std::vector<std::pair<std::string, std::string>>& sets,
                          const std::string& integrator, double step, bool two_pass) {
  const ictus::Model model = ictus::bench::suspension_model(sets, integrator, step, two_pass);
  const ictus::SimulationSettings& s = model.settings();
  ictus::Simulation simulation(model);
  ictus::Summary summary({}, s.peaks);
  simulation.add_observer(summary);
  simulation.run();
  const std::vector<ictus::PeakResult> r = summary.peaks();
  return {r[0].value, r[1].value, r[3].value};
}

// significant digits to which a agrees with b: -log10 |a - b| / |b|
double digits(double a, double b) {
  const double e = std::abs(a - b) / std::abs(b);
  return e == 0.0 ? 16.0 : -std::log10(e);
}

}  // namespace

int main() {
  const double pi = std::numbers::pi;
  const std::vector<Variant> variants = {
      {"viscous C = 16 (Table 1)", {}},  {"psi = 0.48 (Table 2)", {{"psi", "0.48"}}},
      {"psi = 0.24", {{"psi", "0.24"}}}, {"fT = 44.2 N (Table 3)", {{"fT", "44.2"}}},
      {"fT = 33.6 N", {{"fT", "33.6"}}},
  };
  const std::pair<const char*, double> steps[] = {
      {"pi/960", pi / 960}, {"pi/1920", pi / 1920}, {"pi/9600", pi / 9600}};
  fmt::print(
      "| variant | method | dt | u_max | v_max | a_max in pulse | digits vs exact (u, v, a) |\n");
  fmt::print("| --- | --- | --- | ---: | ---: | ---: | --- |\n");
  for (const Variant& v : variants) {
    const std::vector<double> exact = peaks(v.sets, "dopri5", 0.0, false);
    fmt::print("| {} | event-driven (dopri5, rtol 1e-12) | – | {:.7g} | {:.7g} | {:.7g} | – |\n",
               v.name, exact[0], exact[1], exact[2]);
    for (const char* method : {"newmark", "wilson"})
      for (const bool two_pass : {false, true})
        for (const auto& [label, h] : steps) {
          const std::vector<double> p = peaks(v.sets, method, h, two_pass);
          fmt::print("| {} | {}{} | {} | {:.7g} | {:.7g} | {:.7g} | {:.1f}, {:.1f}, {:.1f} |\n",
                     v.name, method, two_pass ? " two-pass" : "", label, p[0], p[1], p[2],
                     digits(p[0], exact[0]), digits(p[1], exact[1]), digits(p[2], exact[2]));
        }
  }
  return 0;
}
