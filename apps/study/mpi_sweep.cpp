// The sweep across MPI ranks: every rank reads and checks the study (so that
// a bad one stops them all with the same status, without messages between
// them); rank 0 keeps the journal and hands out the cases one at a time to
// the ranks that ask (dynamic load balancing: a rank with slow cases simply
// asks less often), gathers their rows and writes the one CSV. The other
// ranks run the cases they are given. Rank 0 polls instead of blocking in a
// receive, which in Open MPI spins and would take a core from the workers.
#include <fmt/format.h>
#include <mpi.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "../exit_status.h"
#include "../interruption.h"
#include "sweep_plan.h"

namespace ictus::cli {

namespace {

enum Tag : int { kReady = 1, kResult = 2, kWork = 3, kStop = 4 };

// MPI_Init and MPI_Finalize around the sweep (also when it throws).
class MpiSession {
 public:
  MpiSession() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized == 0) MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0, size_ = 1;
};

void send_text(const std::string& text, int to, int tag) {
  MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD);
}

std::string receive_text(const MPI_Status& probed) {
  int count = 0;
  MPI_Get_count(&probed, MPI_CHAR, &count);
  std::string text(static_cast<std::size_t>(count), '\0');
  MPI_Recv(text.data(), count, MPI_CHAR, probed.MPI_SOURCE, probed.MPI_TAG, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  return text;
}

void work(const SweepPlan& plan) {
  MPI_Send(nullptr, 0, MPI_CHAR, 0, kReady, MPI_COMM_WORLD);
  for (;;) {
    int index = 0;
    MPI_Status status;
    MPI_Recv(&index, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    if (status.MPI_TAG == kStop) return;
    const study::CaseResult r = plan.runner->run(plan.cases[static_cast<std::size_t>(index)]);
    send_text(study::csv_row(r), 0, kResult);
  }
}

int coordinate(const SweepPlan& plan, int ranks, bool quiet) {
  SweepJournal journal(plan.study.output, plan.study, plan.cases);
  std::map<int, study::CaseResult> rows = journal.done();
  std::vector<int> pending;
  for (const study::Case& c : plan.cases)
    if (rows.count(c.index) == 0) pending.push_back(c.index);
  if (!quiet) {
    fmt::print("ictus sweep: {} cases of {} on {} MPI ranks (rank 0 hands out the cases){}\n",
               plan.cases.size(), plan.study.model_path, ranks,
               rows.empty() ? "" : fmt::format("; {} done before", rows.size()));
    std::fflush(stdout);
  }
  install_interruption_handlers();
  SweepProgress progress(plan.cases.size(), rows, quiet);
  std::size_t next = 0;
  int working = ranks - 1;  // ranks not yet told to stop
  std::string journal_error;
  while (working > 0) {
    int arrived = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &status);
    if (arrived == 0) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      continue;
    }
    const std::string text = receive_text(status);
    if (status.MPI_TAG == kResult) {
      const std::optional<study::CaseResult> r = study::parse_csv_row(
          text.substr(0, text.size() - 1), plan.study.parameters.size(), plan.study.metrics.size());
      if (!r)
        throw std::runtime_error(fmt::format("rank {} sent a malformed row", status.MPI_SOURCE));
      rows[r->index] = *r;
      progress.case_done(*r);
      if (journal_error.empty()) {
        try {
          journal.append(*r);
        } catch (const std::exception& e) {
          journal_error = e.what();
        }
      }
    }
    if (next < pending.size() && !interruption_flag().load()) {
      MPI_Send(&pending[next++], 1, MPI_INT, status.MPI_SOURCE, kWork, MPI_COMM_WORLD);
    } else {
      int none = -1;
      MPI_Send(&none, 1, MPI_INT, status.MPI_SOURCE, kStop, MPI_COMM_WORLD);
      --working;
    }
  }
  progress.finish();
  if (!journal_error.empty()) fmt::print(stderr, "warning: {}\n", journal_error);
  return finish_sweep(plan, journal, rows, interruption_flag().load(), quiet);
}

}  // namespace

int command_sweep_mpi(const StudyCommandOptions& options) {
  MpiSession mpi;
  const bool quiet = options.quiet || mpi.rank() != 0;
  SweepPlan plan;
  try {
    plan = plan_sweep(options);
  } catch (...) {
    if (mpi.rank() == 0) throw;  // reported by main; the others exit with it
    return kExitRefused;
  }
  if (static_cast<std::size_t>(mpi.size()) > plan.cases.size()) {
    if (mpi.rank() == 0)
      fmt::print(stderr,
                 "error: {}: more MPI ranks ({}) than cases ({}); start at most {} ranks (rank 0 "
                 "hands out the cases, the others run them)\n",
                 options.study_path, mpi.size(), plan.cases.size(), plan.cases.size());
    return kExitRefused;
  }
  if (mpi.size() == 1) {
    throw std::runtime_error("an MPI sweep needs at least two ranks (one hands out the cases)");
  }
  if (mpi.rank() != 0) {
    work(plan);
    return kExitOk;
  }
  try {
    return coordinate(plan, mpi.size(), quiet);
  } catch (const std::exception& e) {
    // the other ranks wait for cases: end them all
    fmt::print(stderr, "error: {}\n", e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, kExitOther);
    return kExitOther;
  }
}

}  // namespace ictus::cli
