// libFuzzer target: a model file through the loader and what `ictus check`
// does with it (build the System, assemble, the start of a run, the structure
// report). Bad input must end in ModelError or SimulationError; anything else
// escaping (a library's exception, a crash, a sanitizer report, a hang) is a
// finding. scripts/fuzz.sh builds and runs it; fuzz/README.md says how.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ictus/error.h"
#include "ictus/model_file.h"
#include "ictus/observers.h"
#include "ictus/simulation.h"

namespace {

void check(const std::string& text) {
  // the name places relative include paths under examples/ (the fuzzer runs
  // from the repository root)
  const ictus::Model model = ictus::parse_model(text, "examples/fuzz_input.yaml");
  ictus::Simulation simulation(model);
  ictus::System& system = simulation.system();
  (void)ictus::select_channels(system, model.settings().outputs);
  ictus::check_summary_peaks(system, model.settings().peaks);
  const double t0 = model.settings().start;
  (void)system.position_violation(t0, system.initial_state());
  simulation.prepare();
  const ictus::VecX y = simulation.state();
  (void)system.structure_report(t0, y);
  (void)system.velocity_violation(t0, y);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    check(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const ictus::ModelError&) {
    // the located message a user gets: expected
  } catch (const ictus::SimulationError&) {
    // a model that cannot start (exit 3): expected
  }
  return 0;
}
