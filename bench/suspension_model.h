// examples/suspension.yaml (seed 003) set up for one integrator, shared by
// the seed-003 claim benchmarks: dopri5 at rtol 1e-12 (the event-driven
// reference), any other stepper at a fixed step.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ictus/model_file.h"

namespace ictus::bench {

using Sets = std::vector<std::pair<std::string, std::string>>;

inline Model suspension_model(const Sets& sets, const std::string& integrator, double step,
                              bool two_pass = false) {
  Model model = load_model(std::string(ICTUS_SOURCE_DIR) + "/examples/suspension.yaml", sets);
  SimulationSettings& s = model.settings();
  s.integrator.name = integrator;
  s.integrator.given.clear();  // the file's rtol and atol are dopri5's
  if (integrator == "dopri5") {
    s.integrator.rtol = 1e-12;
    s.integrator.atol = 1e-14;
  } else {
    s.integrator.step = step;
    s.integrator.two_pass = two_pass;
    s.integrator.given = {"step"};
    if (two_pass) s.integrator.given.push_back("two_pass");
  }
  model.validate();
  return model;
}

}  // namespace ictus::bench
