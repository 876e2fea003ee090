// internal to the study commands: what a sweep runs and how it ends, shared
// by the threaded sweep and the MPI one.
#pragma once

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <vector>

#include "ictus/study.h"
#include "sweep_command.h"
#include "sweep_journal.h"

namespace ictus::cli {

struct SweepPlan {
  study::Study study;
  std::unique_ptr<study::StudyRunner> runner;
  std::vector<study::Case> cases;
  int threads = 1;
};

/// Reads and checks the study (ModelError at its entries) and its cases.
SweepPlan plan_sweep(const StudyCommandOptions& options);

/// Progress on stderr: a line at most once a second, and one at the end.
class SweepProgress {
 public:
  /// `before`: the rows a journal kept from an interrupted sweep, counted
  /// as done (their failures too).
  SweepProgress(std::size_t total, const std::map<int, study::CaseResult>& before, bool quiet);
  void case_done(const study::CaseResult& result);
  void finish();

 private:
  void print(bool last);
  std::size_t total_, done_, failed_ = 0, audit_failed_ = 0, done_before_;
  bool quiet_, tty_;
  std::chrono::steady_clock::time_point started_, last_print_;
};

/// The end of a sweep: the CSV written whole (rows in case order) and the
/// journal removed, or, interrupted, the journal kept. Returns the exit status.
int finish_sweep(const SweepPlan& plan, SweepJournal& journal,
                 std::map<int, study::CaseResult>& rows, bool interrupted, bool quiet);

/// The number of ranks mpirun started this process among (1 outside mpirun),
/// from Open MPI's environment.
int launched_ranks();

/// mpi_sweep.cpp: the sweep across ranks (rank 0 hands out the cases).
int command_sweep_mpi(const StudyCommandOptions& options);

}  // namespace ictus::cli
