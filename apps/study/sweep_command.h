// `ictus sweep STUDY.yaml` and `ictus optimize STUDY.yaml` (docs/studies.md):
// the command line around the study library (include/ictus/study.h). Under
// `mpirun -n K` the sweep spreads its cases over the ranks (mpi_sweep.cpp).
#pragma once

#include <string>

namespace ictus::cli {

struct StudyCommandOptions {
  std::string study_path;
  std::string out;   ///< replaces the study's `output:` (sweep) or `history:` (optimize)
  int threads = -1;  ///< -1: the study's `threads:` (0: every core)
  bool quiet = false;
};

/// Returns the exit status (exit_status.h); throws ModelError for a bad study.
int command_sweep(const StudyCommandOptions& options);
int command_optimize(const StudyCommandOptions& options);

}  // namespace ictus::cli
