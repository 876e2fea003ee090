// `ictus run`: simulate a model file into an output directory (docs/cli.md).
#pragma once

#include <string>
#include <vector>

namespace ictus::cli {

struct RunOptions {
  struct Given {  // which options were on the command line
    bool until = false, integrator = false, rtol = false, atol = false, step = false,
         max_steps = false;
  } given;
  std::string model_path;
  std::vector<std::string> sets;
  std::vector<std::string> arguments;  // the whole command line, for the manifest
  double until = -1.0;
  std::string out;
  std::string integrator;
  double rtol = -1.0, atol = -1.0, step = -1.0;
  double max_steps = 0.0;
  std::string max_output;
  bool quiet = false;
  bool progress = false;
  bool no_progress = false;
  bool report = false;  ///< also poses.csv and report.html (docs/report.md)
};

/// Runs; returns the exit status (exit_status.h). Throws ModelError for bad
/// input found before the run starts.
int command_run(const RunOptions& options);

}  // namespace ictus::cli
