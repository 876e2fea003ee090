#include "sweep_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "../exit_status.h"
#include "../interruption.h"
#include "sweep_plan.h"

namespace ictus::cli {

namespace fs = std::filesystem;

SweepPlan plan_sweep(const StudyCommandOptions& options) {
  SweepPlan plan;
  plan.study = study::load_study(options.study_path);
  if (!options.out.empty()) plan.study.output = options.out;
  plan.runner = std::make_unique<study::StudyRunner>(plan.study);
  plan.cases = study::study_cases(plan.study);
  const int threads = options.threads >= 0 ? options.threads : plan.study.threads;
  plan.threads =
      threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return plan;
}

SweepProgress::SweepProgress(std::size_t total, const std::map<int, study::CaseResult>& before,
                             bool quiet)
    : total_(total),
      done_(before.size()),
      done_before_(before.size()),
      quiet_(quiet),
      tty_(isatty(STDERR_FILENO) != 0),
      started_(std::chrono::steady_clock::now()),
      last_print_(started_) {
  for (const auto& [index, row] : before) {
    if (!row.ok) ++failed_;
    if (row.ok && !row.audit_passed) ++audit_failed_;
  }
}

void SweepProgress::case_done(const study::CaseResult& result) {
  ++done_;
  if (!result.ok || !result.audit_passed) {
    ++(result.ok ? audit_failed_ : failed_);
    if (!quiet_) {
      if (tty_) fmt::print(stderr, "\r\033[K");
      fmt::print(stderr, "case {} {}: {}\n", result.index, result.ok ? "warning" : "failed",
                 result.error);
    }
  }
  if (std::chrono::steady_clock::now() - last_print_ >= std::chrono::seconds(1)) print(false);
}

void SweepProgress::finish() {
  print(true);
}

void SweepProgress::print(bool last) {
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  last_print_ = now;
  const double elapsed = std::chrono::duration<double>(now - started_).count();
  const std::size_t run = done_ - done_before_;
  std::string left;
  if (!last && run > 0 && done_ < total_)
    left = fmt::format(", about {:.0f} s left",
                       elapsed / static_cast<double>(run) * static_cast<double>(total_ - done_));
  std::string failed = failed_ > 0 ? fmt::format(" ({} failed)", failed_) : "";
  if (audit_failed_ > 0) failed += fmt::format(" ({} failed the energy audit)", audit_failed_);
  fmt::print(stderr, "{}sweep: {}/{} cases{}, {:.1f} s{}{}", tty_ ? "\r\033[K" : "", done_, total_,
             failed, elapsed, left, tty_ && !last ? "" : "\n");
  std::fflush(stderr);
}

int finish_sweep(const SweepPlan& plan, SweepJournal& journal,
                 std::map<int, study::CaseResult>& rows, bool interrupted, bool quiet) {
  if (interrupted) {
    fmt::print(stderr,
               "interrupted by signal {}: {} of {} cases done, kept in {}; the same command "
               "continues the sweep\n",
               interruption_signal(), rows.size(), plan.cases.size(), journal.path().string());
    return kExitSignalBase + interruption_signal();
  }
  std::string csv = study::csv_header(plan.study);
  std::size_t failed = 0, audit_failed = 0;
  for (const auto& [index, row] : rows) {
    csv += study::csv_row(row);
    if (!row.ok) ++failed;
    if (row.ok && !row.audit_passed) ++audit_failed;
  }
  write_whole_file(plan.study.output, csv);
  journal.remove();
  if (!quiet)
    fmt::print(
        "{} cases{}{} into {}\n", rows.size(),
        failed > 0 ? fmt::format(" ({} failed: see the status and error columns)", failed) : "",
        audit_failed > 0
            ? fmt::format(" ({} failed the energy audit: status audit_failed)", audit_failed)
            : "",
        plan.study.output);
  return kExitOk;
}

int launched_ranks() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"})
    if (const char* v = std::getenv(name)) return std::max(1, std::atoi(v));
  return 1;
}

int command_sweep(const StudyCommandOptions& options) {
  if (launched_ranks() > 1) return command_sweep_mpi(options);
  SweepPlan plan = plan_sweep(options);
  SweepJournal journal(plan.study.output, plan.study, plan.cases);
  std::map<int, study::CaseResult> rows = journal.done();
  std::vector<study::Case> pending;
  for (const study::Case& c : plan.cases)
    if (rows.count(c.index) == 0) pending.push_back(c);
  if (!options.quiet) {
    fmt::print(
        "ictus sweep: {} cases of {} on {} thread(s){}\n", plan.cases.size(), plan.study.model_path,
        std::min<std::size_t>(plan.threads, std::max<std::size_t>(1, pending.size())),
        rows.empty()
            ? ""
            : fmt::format("; {} done before (journal {})", rows.size(), journal.path().string()));
    std::fflush(stdout);
  }
  install_interruption_handlers();
  SweepProgress progress(plan.cases.size(), rows, options.quiet);
  study::SweepOptions so;
  so.threads = plan.threads;
  so.stop = &interruption_flag();
  std::string journal_error;  // a failed write: the sweep goes on, the CSV is still written
  so.on_case = [&](const study::CaseResult& r) {
    rows[r.index] = r;
    progress.case_done(r);
    if (!journal_error.empty()) return;
    try {
      journal.append(r);
    } catch (const std::exception& e) {
      journal_error = e.what();
    }
  };
  (void)study::run_cases(*plan.runner, pending, so);
  progress.finish();
  if (!journal_error.empty()) fmt::print(stderr, "warning: {}\n", journal_error);
  return finish_sweep(plan, journal, rows, interruption_flag().load(), options.quiet);
}

}  // namespace ictus::cli
