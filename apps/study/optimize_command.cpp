// `ictus optimize STUDY.yaml`: the study's `optimize:` (include/ictus/study.h,
// optimize_study), with the history of every evaluation in a CSV.
#include <fmt/format.h>

#include <cmath>

#include "../exit_status.h"
#include "ictus/study.h"
#include "sweep_command.h"
#include "sweep_journal.h"

namespace ictus::cli {

namespace {

std::string history_header(const study::Study& s) {
  std::string h = "evaluation";
  for (const study::StudyParameter& p : s.parameters) h += "," + p.name;
  for (const study::Metric& m : s.metrics) h += "," + m.name;
  return h + ",feasible,status,error,wall_s\n";
}

// The study's CSV row with the feasibility after the metrics (the fields
// before the status are numbers, without commas).
std::string history_row(const study::Evaluation& e, std::size_t numbers) {
  study::CaseResult r = e.result;
  r.index = e.number;
  const std::string row = study::csv_row(r);
  std::size_t status = 0;
  for (std::size_t k = 0; k < numbers; ++k) status = row.find(',', status) + 1;
  return row.substr(0, status) + (e.feasible ? "1," : "0,") + row.substr(status);
}

}  // namespace

int command_optimize(const StudyCommandOptions& options) {
  study::Study s = study::load_study(options.study_path);
  if (!s.optimize.given)
    throw ModelError({options.study_path, 0, 0}, "study",
                     "has no 'optimize:' entry (the metric to minimise, the constraints); "
                     "docs/studies.md");
  if (!options.out.empty()) s.optimize.history = options.out;
  const study::StudyRunner runner(s);
  const int threads = options.threads >= 0 ? options.threads : s.threads;
  if (!options.quiet) {
    fmt::print("ictus optimize: {} {} of {} over {} parameters with {}\n",
               s.optimize.maximize ? "maximise" : "minimise", s.optimize.objective, s.model_path,
               s.parameters.size(), s.optimize.algorithm);
    std::fflush(stdout);
  }
  std::string history = history_header(s);
  int failed = 0, audit_failed = 0;
  const auto report = [&](const study::Evaluation& e) {
    history += history_row(e, 1 + s.parameters.size() + s.metrics.size());
    if (!e.result.ok) ++failed;
    if (e.result.ok && !e.result.audit_passed) ++audit_failed;
    if (options.quiet) return;
    std::string x;
    for (std::size_t i = 0; i < s.parameters.size(); ++i)
      x += fmt::format("{}{}={:.6g}", i > 0 ? " " : "", s.parameters[i].name,
                       e.result.parameters[i]);
    fmt::print(stderr, "  {:>4}  {}  {} = {}{}\n", e.number, x, s.optimize.objective,
               e.result.ok ? fmt::format("{:.8g}", e.objective) : "failed",
               !e.result.ok             ? ""
               : !e.result.audit_passed ? " (infeasible: its energy audit failed)"
               : !e.feasible            ? " (infeasible)"
                                        : "");
  };
  const study::OptimizationResult result = study::optimize_study(runner, threads, report);
  write_whole_file(s.optimize.history, history);
  if (!result.found) {
    fmt::print(
        stderr, "error: no feasible evaluation in {} ({}{}); history: {}\n", result.evaluations,
        result.stop_reason,
        fmt::format(
            "{}{}", failed > 0 ? fmt::format(", {} runs failed", failed) : "",
            audit_failed > 0 ? fmt::format(", {} failed their energy audit", audit_failed) : ""),
        s.optimize.history);
    return kExitOther;
  }
  if (options.quiet) return kExitOk;
  fmt::print("{} evaluations, stopped: {}\n", result.evaluations, result.stop_reason);
  fmt::print("best:");
  for (std::size_t i = 0; i < s.parameters.size(); ++i)
    fmt::print(" {} = {}", s.parameters[i].name, result.best[i]);
  fmt::print("\n");
  for (std::size_t k = 0; k < s.metrics.size(); ++k)
    fmt::print("  {:<20} {}\n", s.metrics[k].name, result.metrics[k]);
  fmt::print("history: {}\n", s.optimize.history);
  return kExitOk;
}

}  // namespace ictus::cli
