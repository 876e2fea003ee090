#include "run_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "exit_status.h"
#include "ictus/model_file.h"
#include "ictus/observers.h"
#include "ictus/simulation.h"
#include "ictus/spectrum_summary.h"
#include "interruption.h"
#include "output_budget.h"
#include "output_directory.h"
#include "parameter_overrides.h"
#include "report/report_assets.h"
#include "report/report_page.h"
#include "run_manifest.h"
#include "version.h"

namespace ictus::cli {

namespace fs = std::filesystem;

namespace {

// Options given on the command line replace the model file's keys; errors in
// what they set point at the options, not at the file.
void apply_options(const RunOptions& ro, SimulationSettings& s) {
  if (ro.given.until) {
    s.until = ro.until;
    s.where = {"--until", 0, 0};
  }
  if (ro.given.integrator) {
    s.integrator.name = ro.integrator;
    s.integrator.where = {"--integrator", 0, 0};
    // the file's options for its own integrator do not bind another one
    const std::vector<std::string>& keys = stepper_option_keys(ro.integrator);
    for (std::size_t k = s.integrator.given.size(); k-- > 0;)
      if (std::find(keys.begin(), keys.end(), s.integrator.given[k]) == keys.end()) {
        s.integrator.given.erase(s.integrator.given.begin() + static_cast<std::ptrdiff_t>(k));
        if (k < s.integrator.given_where.size())
          s.integrator.given_where.erase(s.integrator.given_where.begin() +
                                         static_cast<std::ptrdiff_t>(k));
      }
  }
  if (ro.given.rtol) s.integrator.rtol = ro.rtol;
  if (ro.given.atol) s.integrator.atol = ro.atol;
  if (ro.given.step) s.integrator.step = ro.step;
  for (const auto& [given, key] :
       {std::pair{ro.given.rtol, "rtol"}, std::pair{ro.given.atol, "atol"},
        std::pair{ro.given.step, "step"}})
    if (given) {
      s.integrator.given.emplace_back(key);
      s.integrator.given_where.push_back({"--rtol/--atol/--step", 0, 0});
    }
  if (ro.given.rtol || ro.given.atol || ro.given.step)
    s.integrator.where = {"--rtol/--atol/--step", 0, 0};
  if (ro.given.max_steps) {
    s.max_steps = ro.max_steps;
    s.max_steps_where = {"--max-steps", 0, 0};
  }
}

// Warnings as they happen, on stderr (a run creeping with tiny steps says so
// while it creeps), clearing the progress bar's line first.
class WarningPrinter : public Observer {
 public:
  explicit WarningPrinter(ProgressBar* progress) : progress_(progress) {}
  void on_event(const EventRecord& r) override {
    if (r.kind != "warning") return;
    if (++count_ > kMaxPrinted) return;
    if (progress_ != nullptr) progress_->clear();
    std::fflush(stdout);
    fmt::print(stderr, "warning: {}\n", r.detail);
    if (count_ == kMaxPrinted) fmt::print(stderr, "(further warnings only in events.csv)\n");
  }

 private:
  static constexpr long kMaxPrinted = 20;
  ProgressBar* progress_;
  long count_ = 0;
};

void describe_settings(const SimulationSettings& s, RunManifest& m) {
  m.settings = {{"start", s.start},
                {"until", s.until},
                {"output_step", s.output_step},
                {"integrator", s.integrator.name}};
  const IntegratorSettings& in = s.integrator;
  for (const std::string& key : stepper_option_keys(s.integrator.name)) {
    if (key == "rtol") m.settings[key] = in.rtol;
    if (key == "atol") m.settings[key] = in.atol;
    if (key == "step") m.settings[key] = in.step;
    if (key == "max_step") m.settings[key] = in.max_step;
  }
  m.settings["max_steps"] = s.max_steps;
}

bool has_any_results(const fs::path& dir) {
  return fs::exists(dir / "results.csv") || fs::exists(dir / "results.incomplete.csv");
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

int command_run(const RunOptions& ro) {
  const std::string started = utc_now();
  if (ro.report && !report_available()) throw OutputRefused(report_unavailable_message());
  Model model = load_model(ro.model_path, parse_sets(ro.sets));
  SimulationSettings& s = model.settings();
  apply_options(ro, s);
  model.validate();
  const double max_output = ro.max_output.empty() ? kDefaultMaxOutput : parse_size(ro.max_output);
  const double tolerance = energy_tolerance(s);

  const fs::path out =
      ro.out.empty() ? fs::path("out") / fs::path(ro.model_path).stem() : fs::path(ro.out);
  Simulation simulation(model);
  const std::vector<std::string> channels = select_channels(simulation.system(), s.outputs);
  check_summary_peaks(simulation.system(), s.peaks);
  check_summary_spectra(simulation.system(), s.spectra);
  const OutputEstimate estimate = estimate_output(s, channels.size());
  // the report's body poses: 7 more columns per body, in poses.csv
  const std::vector<std::string> poses =
      ro.report ? pose_channels(model) : std::vector<std::string>{};
  check_output_budget(estimate, out, max_output);

  OutputDirectory directory(out);
  CsvWriter csv(directory.staging(), channels);
  EventLogWriter events(directory.staging());
  CsvWriter pose_writer(directory.staging(), poses, "poses");
  // a long run of many bodies keeps about kPoseValues body poses (the page
  // shows at most ReportLimits::animation_values of them)
  constexpr double kPoseValues = 2e5;
  pose_writer.set_stride(static_cast<std::size_t>(
      std::ceil(estimate.rows * static_cast<double>(model.bodies().size()) / kPoseValues)));
  Summary summary(channels, s.peaks);
  SpectrumSummary spectra(s.spectra);
  ProgressBar progress(stderr);
  const bool show_progress =
      !ro.quiet && !ro.no_progress && (ro.progress || isatty(STDERR_FILENO) != 0);
  WarningPrinter warnings(show_progress ? &progress : nullptr);
  simulation.add_observer(csv);
  simulation.add_observer(events);
  simulation.add_observer(summary);
  if (!s.spectra.empty()) simulation.add_observer(spectra);
  if (ro.report) simulation.add_observer(pose_writer);
  if (!ro.quiet) simulation.add_observer(warnings);
  if (show_progress) simulation.add_observer(progress);
  // events go to events.csv as they happen; the summary keeps counts
  simulation.keep_event_log(false);
  install_interruption_handlers();
  simulation.set_interrupt_flag(&interruption_flag());

  RunManifest manifest;
  manifest.ictus_version = kVersion;
  manifest.model_file = fs::absolute(ro.model_path).lexically_normal().string();
  manifest.model_sha256 = sha256_of_file(ro.model_path);
  manifest.arguments = ro.arguments;
  describe_settings(s, manifest);
  for (const std::string& set : ro.sets) {
    const auto eq = set.find('=');
    manifest.parameters_set.emplace_back(set.substr(0, eq), set.substr(eq + 1));
  }
  manifest.started = started;

  if (!ro.quiet)
    fmt::print("ictus {}: model '{}' ({}); results into {}, about {}\n", kVersion, model.name(),
               ro.model_path, directory.target().string(), size_text(estimate.bytes));
  RunStatistics stats;
  int status = kExitOk;
  std::exception_ptr bad_input;
  try {
    stats = simulation.run();
  } catch (const SimulationError& e) {
    status = kExitSimulationFailed;
    manifest.message = fmt::format("error: {}", e.what());
  } catch (const ModelError& e) {
    // the start of the run (assembly): bad input, reported by main once the
    // set with its events.csv is put aside
    status = kExitRefused;
    manifest.message = e.what();
    bad_input = std::current_exception();
  } catch (const std::exception& e) {
    status = kExitOther;  // I/O: a full disk, a file size limit
    manifest.message = fmt::format("error: {}", e.what());
  }
  const EnergyAudit audit = summary.energy_audit(tolerance);
  if (status == kExitOk && stats.interrupted) {
    status = kExitSignalBase + interruption_signal();
    manifest.message = fmt::format("interrupted by signal {} at t = {:.6g} s",
                                   interruption_signal(), simulation.time());
  } else if (status == kExitOk && !audit.passed) {
    status = kExitAuditFailed;
    manifest.message = energy_audit_message(audit);
  }
  manifest.status = status == kExitOk            ? "completed"
                    : status == kExitAuditFailed ? "audit_failed"
                    : status >= kExitSignalBase  ? "interrupted"
                                                 : "failed";
  manifest.exit_status = status;
  manifest.simulated_until = simulation.time();
  manifest.steps = stats.integrator.steps;
  manifest.events = stats.events;
  manifest.energy_audit = audit;
  manifest.ended = utc_now();

  // the set: complete (audit failed or not) replaces DIR, anything else
  // goes to DIR.incomplete and leaves DIR as it was
  bool complete = status == kExitOk || status == kExitAuditFailed;
  const bool has_results = fs::exists(directory.staging() / "results.incomplete.csv");
  try {
    manifest.write(directory.staging());
  } catch (const std::exception& e) {
    // a set without its manifest never replaces DIR
    complete = false;
    status = kExitOther;
    manifest.message = fmt::format("error: {}", e.what());
  }
  // the report is part of the set: of what was computed, whether the run
  // completed or not; the manifest is written again to list it
  bool reported = false;
  if (ro.report && has_any_results(directory.staging())) {
    try {
      ReportSources sources;
      sources.model = &simulation.system().model();
      sources.system = &simulation.system();
      sources.located = &summary.extrema();
      sources.spectra = &spectra.results();
      sources.manifest_json = read_text(directory.staging() / "run.json");
      write_report(directory.staging(), sources);
      manifest.write(directory.staging());
      reported = true;
    } catch (const std::exception& e) {
      if (complete) {  // the set is not whole: it does not replace DIR
        complete = false;
        status = kExitOther;
        manifest.status = "failed";
        manifest.exit_status = status;
        manifest.message = fmt::format("error: the report: {}", e.what());
        try {
          manifest.write(directory.staging());
        } catch (const std::exception&) {  // the run.json of before stays
        }
      } else {  // the run's own error is printed below; this one too
        fmt::print(stderr, "error: the report: {}\n", e.what());
      }
    }
  }
  if (complete) {
    directory.commit();
  } else {
    directory.abandon();
  }
  const fs::path where = complete ? directory.target() : directory.incomplete();

  std::fflush(stdout);
  if (bad_input) std::rethrow_exception(bad_input);
  if (!complete) {
    fmt::print(stderr, "{}\n", manifest.message);
    if (has_results)
      fmt::print(stderr, "partial results: {} (incomplete), event log: {}; {} is unchanged\n",
                 (where / "results.incomplete.csv").string(), (where / "events.csv").string(),
                 directory.target().string());
    else
      fmt::print(stderr, "no results written; event log: {}\n", (where / "events.csv").string());
    if (reported)
      fmt::print(stderr, "report of what was computed (marked incomplete): {}\n",
                 (where / "report.html").string());
    return status;
  }
  if (status == kExitAuditFailed) fmt::print(stderr, "warning: {}\n", manifest.message);
  if (ro.quiet) return status;

  const StructureReport rep =
      simulation.system().structure_report(simulation.time(), simulation.state());
  fmt::print("  {} {}, {} constraint rows ({} independent), {} degrees of freedom at the end\n",
             rep.bodies, rep.bodies == 1 ? "body" : "bodies", rep.rows, rep.independent_rows,
             rep.dof);
  fmt::print(
      "  simulated {:.6g} -> {:.6g} s with {} (rtol {:.1g}): {} steps, {} rejected, {} "
      "evaluations, {:.3f} s wall time\n",
      s.start, stats.end_time, s.integrator.name, s.integrator.rtol, stats.integrator.steps,
      stats.integrator.rejected, stats.integrator.evaluations, stats.wall_seconds);
  if (stats.events > 0)
    fmt::print("  {} event(s){}; see {}\n", stats.events,
               stats.stopped_by_event ? ", stopped by an event" : "",
               (where / "events.csv").string());
  if (summary.warning_count() > 0)
    fmt::print("  {} warning(s) (printed above; all in events.csv)\n", summary.warning_count());
  fmt::print("\n{}\n", summary.table());
  // the model's windowed peaks (summary: peaks:), e.g. seed 003's columns
  if (const std::string peaks = summary.peak_table(); !peaks.empty()) fmt::print("{}\n", peaks);
  // the dominant frequencies of the model's spectra (summary: spectra:)
  if (const std::string lines = spectra.table(); !lines.empty()) fmt::print("{}\n", lines);
  fmt::print(
      "energy balance error: {:.3g} J ({:.3g} relative to the largest kinetic + potential "
      "energy; tolerance {:.3g}); dissipation fall {:.3g} J ({:.3g} relative)\n",
      audit.error, audit.relative, audit.tolerance, audit.fall, audit.fall_relative);
  fmt::print("results: {} ({} channels)\n", (where / "results.csv").string(), channels.size() + 1);
  if (reported) fmt::print("report: {}\n", (where / "report.html").string());
  return status;
}

}  // namespace ictus::cli
