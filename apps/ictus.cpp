// The ictus command line: run (run_command.cpp), check, static equilibrium,
// modes and the channels of a model file. Exit statuses: exit_status.h.
#include <fmt/format.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numbers>

#include "exit_status.h"
#include "ictus/analysis.h"
#include "ictus/model_file.h"
#include "ictus/observers.h"
#include "ictus/simulation.h"
#include "ictus/spectrum_summary.h"
#include "output_directory.h"
#include "parameter_overrides.h"
#include "report/report_command.h"
#include "run_command.h"
#include "spectrum_command.h"
#include "study/sweep_command.h"
#include "version.h"

namespace {

using namespace ictus::cli;  // NOLINT: the command line's own namespace

struct CommonOptions {
  std::string model_path;
  std::vector<std::string> sets;
};

void print_structure(const ictus::System& system, const ictus::StructureReport& rep) {
  const ictus::Model& m = system.model();
  fmt::print("  bodies:              {}\n", rep.bodies);
  fmt::print("  joints:              {} ({} drivers, {} force elements)\n", m.joints().size(),
             m.drivers().size(), m.forces().size());
  fmt::print("  constraint rows:     {} active, {} independent (rank of D)\n", rep.rows,
             rep.independent_rows);
  fmt::print("  degrees of freedom:  {} from the rank of D (Gruebler count: {})\n", rep.dof,
             rep.gruebler_dof);
  if (rep.nonholonomic_rows > 0)
    fmt::print("  lone rotation locks: {} (velocity-level only, not integrable)\n",
               rep.nonholonomic_rows);
  if (!rep.redundant_rows.empty()) {
    fmt::print("  redundant rows:      {} eliminated as dependent (consistent):\n",
               rep.redundant_rows.size());
    for (std::size_t k = 0; k < rep.redundant_rows.size(); ++k) {
      std::string deps;
      for (const std::string& d : rep.dependencies[k]) deps += (deps.empty() ? "" : ", ") + d;
      fmt::print("    {} (depends on {})\n", rep.redundant_rows[k], deps);
    }
    fmt::print("  reaction components not unique (world axes):\n");
    for (const std::string& j : rep.non_unique_components) fmt::print("    {}\n", j);
  }
  fmt::print("  condition estimate:  {:.4g} (of the scaled D, geometry only)\n",
             rep.condition_estimate);
  fmt::print("  Cholesky factor:     {} non-zeros\n", rep.factor_nonzeros);
}

int command_check(const CommonOptions& opt) {
  const ictus::Model model = ictus::load_model(opt.model_path, parse_sets(opt.sets));
  ictus::Simulation simulation(model);
  ictus::System& system = simulation.system();
  (void)ictus::select_channels(system, model.settings().outputs);  // outputs that match nothing
  ictus::check_summary_peaks(system, model.settings().peaks);
  ictus::check_summary_spectra(system, model.settings().spectra);
  const double t0 = model.settings().start;
  const double before = system.position_violation(t0, system.initial_state());
  fmt::print("model '{}' ({})\n", model.name(), opt.model_path);
  // the start of a run: assembly, and what switches or closes at t0
  simulation.prepare();
  ictus::VecX y = simulation.state();
  for (const ictus::EventRecord& r : simulation.events()) {
    if (r.kind == "warning") fmt::print("warning: {}\n", r.detail);
    if (r.kind == "switch") fmt::print("at t0: {} {}\n", r.name, r.detail);
    if (r.kind == "impact") fmt::print("at t0: impact: {}\n", r.detail);
  }
  const ictus::StructureReport rep = system.structure_report(t0, y);
  print_structure(system, rep);
  fmt::print("  initial violation:   {:.3g} as written, {:.3g} after assembly", before,
             rep.max_position_violation);
  if (!rep.worst_row.empty() && rep.max_position_violation > 0.0)
    fmt::print(" (largest in {})", rep.worst_row);
  fmt::print("\n  velocity violation:  {:.3g} after assembly\n", system.velocity_violation(t0, y));
  fmt::print("  channels:            {}\n", system.channel_count());
  fmt::print("ok\n");
  return 0;
}

int command_channels(const CommonOptions& opt) {
  const ictus::Model model = ictus::load_model(opt.model_path, parse_sets(opt.sets));
  const ictus::System system(model);
  for (int k = 0; k < system.channel_count(); ++k) {
    const ictus::ChannelInfo& c = system.channel_info(k);
    fmt::print("{:<32} {:<10} {}{}\n", c.name, c.unit, c.description,
               c.stage == ictus::Stage::kDynamics ? " [needs the dynamics]" : "");
  }
  return 0;
}

// Writes `text` to dir/name whole: a temporary file renamed into place.
void write_whole(const std::filesystem::path& dir, const std::string& name,
                 const std::string& text) {
  std::filesystem::create_directories(dir);
  const std::filesystem::path tmp = dir / (name + ".partial");
  {
    std::ofstream f(tmp);
    f << text;
    if (!f) throw std::runtime_error(fmt::format("cannot write {}", tmp.string()));
  }
  std::filesystem::rename(tmp, dir / name);
}

// The start of a run (assembly, what switches at t0), as `check` does.
ictus::VecX prepared_state(ictus::Simulation& simulation) {
  simulation.prepare();
  for (const ictus::EventRecord& r : simulation.events())
    if (r.kind == "warning") fmt::print("warning: {}\n", r.detail);
  return simulation.state();
}

struct AnalysisOptions {
  std::string out;
  std::string about = "static";
};

void print_static(const ictus::StaticResult& res) {
  fmt::print(
      "  {} degrees of freedom; equilibrium in {} Newton iterations; largest unbalanced "
      "force {:.3g} N, moment {:.3g} N m (load scale {:.4g} N, length scale {:.4g} m)\n",
      res.dof, res.iterations, res.unbalanced_force, res.unbalanced_moment, res.load_scale,
      res.length_scale);
  fmt::print("  {}\n", res.stable ? "stable" : "UNSTABLE");
  for (const std::string& note : res.notes) fmt::print("note: {}\n", note);
  auto find = [&](const std::string& name) -> const ictus::ChannelValue* {
    for (const ictus::ChannelValue& c : res.channels)
      if (c.name == name) return &c;
    return nullptr;
  };
  // joint coordinates, reactions, driver loads, force elements
  std::string coords, reactions, drivers, forces;
  for (const ictus::ChannelValue& c : res.channels) {
    const auto dot = c.name.rfind('.');
    if (dot == std::string::npos) continue;
    const std::string what = c.name.substr(dot + 1);
    if (what == "angle")
      coords += fmt::format("  {:<28} {:>14.8g} rad ({:.6g} deg)\n", c.name, c.value,
                            c.value * 180.0 / std::numbers::pi);
    if (what == "x" && c.unit == "m" && find(c.name.substr(0, dot) + ".Fx") != nullptr)
      coords += fmt::format("  {:<28} {:>14.8g} m\n", c.name, c.value);
    if (what == "Fx" && find(c.name.substr(0, dot) + ".Mz") != nullptr) {
      const std::string j = c.name.substr(0, dot);
      reactions += fmt::format("  {:<20}", j);
      for (const char* k : {".Fx", ".Fy", ".Fz", ".Mx", ".My", ".Mz"})
        reactions += fmt::format(" {:>12.6g}", find(j + k)->value);
      reactions += "\n";
    }
    if (what == "load" && c.unit != "N s")
      (c.name.find('.') == dot && find(c.name.substr(0, dot) + ".power") != nullptr &&
               find(c.name.substr(0, dot) + ".Fx") == nullptr
           ? drivers
           : forces) += fmt::format("  {:<28} {:>14.8g} {}\n", c.name, c.value, c.unit);
    if (what == "force" || what == "length")
      forces += fmt::format("  {:<28} {:>14.8g} {}\n", c.name, c.value, c.unit);
  }
  if (!coords.empty()) fmt::print("\njoint coordinates:\n{}", coords);
  if (!reactions.empty())
    fmt::print(
        "\nreactions (base on follower, at the follower's joint point, world axes):\n  {:<20} "
        "{:>12} {:>12} {:>12} {:>12} {:>12} {:>12}\n{}",
        "joint", "Fx [N]", "Fy [N]", "Fz [N]", "Mx [N m]", "My [N m]", "Mz [N m]", reactions);
  if (!drivers.empty()) fmt::print("\ndriver loads (drivers held at their value):\n{}", drivers);
  if (!forces.empty()) fmt::print("\nforce elements:\n{}", forces);
}

int command_static(const CommonOptions& opt, const AnalysisOptions& ao) {
  const ictus::Model model = ictus::load_model(opt.model_path, parse_sets(opt.sets));
  ictus::Simulation simulation(model);
  fmt::print("ictus {}: static equilibrium of model '{}' ({})\n", kVersion, model.name(),
             opt.model_path);
  const ictus::VecX y = prepared_state(simulation);
  const ictus::StaticResult res =
      ictus::solve_static(simulation.system(), model.settings().start, y);
  print_static(res);
  if (!ao.out.empty()) {
    std::string csv = "channel,unit,value\n";
    for (const ictus::ChannelValue& c : res.channels)
      csv += fmt::format("{},{},{:.17g}\n", c.name, c.unit, c.value);
    write_whole(ao.out, "static.csv", csv);
    fmt::print("\nresults: {}\n", (std::filesystem::path(ao.out) / "static.csv").string());
  }
  return 0;
}

const char* kind_name(ictus::Mode::Kind k) {
  switch (k) {
    case ictus::Mode::Kind::kOscillatory:
      return "oscillatory";
    case ictus::Mode::Kind::kRigid:
      return "rigid-body";
    case ictus::Mode::Kind::kReal:
      return "decaying";
    case ictus::Mode::Kind::kDivergent:
      return "divergent";
  }
  return "";
}

int command_modes(const CommonOptions& opt, const AnalysisOptions& ao) {
  const ictus::Model model = ictus::load_model(opt.model_path, parse_sets(opt.sets));
  if (ao.about != "static" && ao.about != "assembled")
    throw ictus::ModelError({"--about", 0, 0}, "",
                            fmt::format("expected static or assembled, got '{}'", ao.about));
  ictus::Simulation simulation(model);
  fmt::print("ictus {}: modes of model '{}' ({}) about the {} state\n", kVersion, model.name(),
             opt.model_path, ao.about);
  const double t = model.settings().start;
  ictus::VecX y = prepared_state(simulation);
  if (ao.about == "static") {
    const ictus::StaticResult st = ictus::solve_static(simulation.system(), t, y);
    fmt::print("  static equilibrium in {} Newton iterations{}\n", st.iterations,
               st.stable ? "" : " (UNSTABLE)");
    y = st.state;
  }
  const ictus::ModalResult res = ictus::compute_modes(simulation.system(), t, y);
  constexpr double kTwoPi = 2.0 * std::numbers::pi;
  fmt::print("  {} degrees of freedom (independent coordinates of the constrained system)\n\n",
             res.dof);
  fmt::print("  {:>4}  {:<12} {:>14} {:>12} {:>10} {:>14} {:>12} {:>12}\n", "mode", "kind",
             "omega_n[rad/s]", "f_n [Hz]", "zeta", "omega_d[rad/s]", "f_d [Hz]", "Re(lambda)");
  std::string csv = "mode,kind,re_lambda,im_lambda,omega_n,f_n,zeta,omega_d,f_d\n";
  std::string shapes = "mode,coordinate,unit,magnitude,phase_deg,real,imag\n";
  int index = 0;
  for (const ictus::Mode& m : res.modes) {
    ++index;
    fmt::print("  {:>4}  {:<12} {:>14.8g} {:>12.6g} {:>10.4g} {:>14.8g} {:>12.6g} {:>12.6g}\n",
               index, kind_name(m.kind), m.omega_n, m.omega_n / kTwoPi,
               std::abs(m.zeta) < 1e-10 ? 0.0 : m.zeta, m.omega_d, m.omega_d / kTwoPi,
               m.eigenvalue.real());
    csv += fmt::format("{},{},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g}\n", index,
                       kind_name(m.kind), m.eigenvalue.real(), m.eigenvalue.imag(), m.omega_n,
                       m.omega_n / kTwoPi, m.zeta, m.omega_d, m.omega_d / kTwoPi);
    std::string line;
    for (std::size_t i = 0; i < m.shape.size(); ++i) {
      const std::complex<double> s = m.shape[i];
      const double phase = std::arg(s) * 180.0 / std::numbers::pi;
      shapes +=
          fmt::format("{},{},{},{:.17g},{:.17g},{:.17g},{:.17g}\n", index, res.coordinates[i].name,
                      res.coordinates[i].unit, std::abs(s), phase, s.real(), s.imag());
      if (std::abs(s) < 1e-6) continue;
      line += fmt::format("{}{} {:.4g}", line.empty() ? "" : ", ", res.coordinates[i].name,
                          std::abs(s));
      if (std::abs(phase) > 0.5) line += fmt::format(" at {:.1f} deg", phase);
    }
    fmt::print("        shape: {}\n", line.empty() ? "-" : line);
  }
  if (!res.undamped_frequencies.empty()) {
    std::string list;
    for (const double w : res.undamped_frequencies)
      list += fmt::format("{}{:.8g}", list.empty() ? "" : ", ", w);
    fmt::print("\n  undamped natural frequencies [rad/s]: {}\n", list);
  }
  if (!ao.out.empty()) {
    write_whole(ao.out, "modes.csv", csv);
    write_whole(ao.out, "mode_shapes.csv", shapes);
    fmt::print("results: {}, {}\n", (std::filesystem::path(ao.out) / "modes.csv").string(),
               (std::filesystem::path(ao.out) / "mode_shapes.csv").string());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ictus: dynamics of mechanisms whose structure and contacts change"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  CommonOptions common;
  RunOptions run_opt;

  CLI::App* run = app.add_subcommand("run", "simulate a model file and write results");
  run->add_option("model", run_opt.model_path, "model file (YAML)")->required();
  run->add_option("--until", run_opt.until, "end time [s] (overrides simulate.until)");
  run->add_option("--out", run_opt.out,
                  "output directory, replaced as a whole when the run completes; an "
                  "incomplete run goes to DIR.incomplete (default: out/<model file stem>)");
  run->add_option("--integrator", run_opt.integrator,
                  "rk4, dopri5, rkf45, newmark, wilson, hht, generalized_alpha, cvode or ida");
  run->add_option("--rtol", run_opt.rtol, "relative tolerance (dopri5)");
  run->add_option("--atol", run_opt.atol, "absolute tolerance (dopri5)");
  run->add_option("--step", run_opt.step, "fixed step [s] (rk4)");
  run->add_option("--set", run_opt.sets, "override a parameter: --set name=value")
      ->allow_extra_args(false);
  run->add_option("--max-output", run_opt.max_output,
                  "largest expected results.csv allowed, e.g. 20G (default 1G)");
  run->add_option("--max-steps", run_opt.max_steps,
                  "largest step count the settings may imply (overrides simulate.max_steps)");
  run->add_flag("--quiet", run_opt.quiet, "print nothing on success (no progress, no warnings)");
  run->add_flag("--progress", run_opt.progress, "always show the progress bar");
  run->add_flag("--no-progress", run_opt.no_progress, "never show the progress bar");
  run->add_flag("--report", run_opt.report,
                "also write report.html (plots, events, energy audit, extrema, 3-D animation) "
                "and the body poses it animates (poses.csv)");

  CLI::App* check =
      app.add_subcommand("check", "validate and assemble a model, report its structure");
  check->add_option("model", common.model_path, "model file (YAML)")->required();
  check->add_option("--set", common.sets, "override a parameter: --set name=value")
      ->allow_extra_args(false);

  CLI::App* channels = app.add_subcommand("channels", "list the output channels of a model");
  channels->add_option("model", common.model_path, "model file (YAML)")->required();
  channels->add_option("--set", common.sets, "override a parameter: --set name=value")
      ->allow_extra_args(false);

  AnalysisOptions analysis_opt;
  CLI::App* statics = app.add_subcommand(
      "static", "static equilibrium under the loads (Newton), with every joint reaction");
  statics->add_option("model", common.model_path, "model file (YAML)")->required();
  statics->add_option("--out", analysis_opt.out, "write static.csv (every channel) into DIR");
  statics->add_option("--set", common.sets, "override a parameter: --set name=value")
      ->allow_extra_args(false);

  CLI::App* modes =
      app.add_subcommand("modes", "linearised natural frequencies, damping ratios and mode shapes");
  modes->add_option("model", common.model_path, "model file (YAML)")->required();
  modes->add_option("--about", analysis_opt.about,
                    "linearise about the static equilibrium (default) or the assembled state");
  modes->add_option("--out", analysis_opt.out, "write modes.csv and mode_shapes.csv into DIR");
  modes->add_option("--set", common.sets, "override a parameter: --set name=value")
      ->allow_extra_args(false);

  ictus::cli::SpectrumOptions spectrum_opt;
  CLI::App* spectrum = app.add_subcommand(
      "spectrum",
      "amplitude spectrum of a channel of a results.csv (CSV and dominant frequencies)");
  spectrum->add_option("results", spectrum_opt.results, "results.csv, or the run directory")
      ->required();
  spectrum->add_option("channel", spectrum_opt.channel, "a channel (column) of the results")
      ->required();
  spectrum->add_option("--from", spectrum_opt.from, "start of the window [s] (default: first row)");
  spectrum->add_option("--to", spectrum_opt.to, "end of the window [s] (default: last row)");
  spectrum->add_option("--lowest", spectrum_opt.lowest,
                       "lowest frequency of interest [Hz]: the window must hold two periods");
  spectrum->add_option("--peaks", spectrum_opt.peaks, "dominant frequencies printed (default 5)");
  spectrum->add_option("--out", spectrum_opt.out,
                       "CSV written (default: spectrum_<channel>.csv beside the results)");

  ictus::cli::ReportOptions report_opt;
  CLI::App* report = app.add_subcommand(
      "report", "write report.html into the output directory of an earlier run (docs/report.md)");
  report->add_option("directory", report_opt.directory, "the run's output directory (--out)")
      ->required();

  ictus::cli::StudyCommandOptions sweep_opt;
  CLI::App* sweep = app.add_subcommand(
      "sweep", "run the cases of a study (parameters, metrics) into one CSV (docs/studies.md)");
  sweep->add_option("study", sweep_opt.study_path, "study file (YAML)")->required();
  sweep->add_option("--out", sweep_opt.out, "the CSV (default: the study's 'output:')");
  sweep->add_option("--threads", sweep_opt.threads,
                    "threads (default: the study's 'threads:', 0: every core)");
  sweep->add_flag("--quiet", sweep_opt.quiet, "print nothing but errors");
  ictus::cli::StudyCommandOptions optimize_opt;
  CLI::App* optimize = app.add_subcommand(
      "optimize", "minimise a metric of a study under constraints (NLopt; docs/studies.md)");
  optimize->add_option("study", optimize_opt.study_path, "study file (YAML) with 'optimize:'")
      ->required();
  optimize->add_option("--out", optimize_opt.out,
                       "the history CSV (default: the study's 'optimize: history:')");
  optimize->add_option("--threads", optimize_opt.threads,
                       "threads for the starts of a multi-start (default: the study's "
                       "'threads:', 0: every core)");
  optimize->add_flag("--quiet", optimize_opt.quiet, "print nothing but errors");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitRefused;
  }
  // --quiet: nothing on stdout, not even a library's line: siconos-numerics'
  // pivoting prints "We are on ray" to stdout wherever it fails, whatever its
  // verbosity (its fallbacks then solve the problem). Errors go to stderr.
  // Done before any thread starts: the stream is the process's.
  if ((run->parsed() && run_opt.quiet) || (sweep->parsed() && sweep_opt.quiet) ||
      (optimize->parsed() && optimize_opt.quiet)) {
    [[maybe_unused]] std::FILE* silenced = std::freopen("/dev/null", "w", stdout);
  }
  if (run->parsed()) common.model_path = run_opt.model_path;
  if (sweep->parsed()) common.model_path = sweep_opt.study_path;
  if (optimize->parsed()) common.model_path = optimize_opt.study_path;
  try {
    run_opt.given = {run->count("--until") > 0, run->count("--integrator") > 0,
                     run->count("--rtol") > 0,  run->count("--atol") > 0,
                     run->count("--step") > 0,  run->count("--max-steps") > 0};
    run_opt.arguments.assign(argv + 1, argv + argc);
    if (run->parsed()) return command_run(run_opt);
    if (check->parsed()) return command_check(common);
    if (channels->parsed()) return command_channels(common);
    if (statics->parsed()) return command_static(common, analysis_opt);
    if (modes->parsed()) return command_modes(common, analysis_opt);
    if (spectrum->parsed()) return ictus::cli::command_spectrum(spectrum_opt);
    if (report->parsed()) return ictus::cli::command_report(report_opt);
    if (sweep->parsed()) return ictus::cli::command_sweep(sweep_opt);
    if (optimize->parsed()) return ictus::cli::command_optimize(optimize_opt);
  } catch (const ictus::ModelError& e) {
    std::fflush(stdout);
    if (e.where().known()) {
      fmt::print(stderr, "{}\n", e.what());
    } else {
      fmt::print(stderr, "{}: {}\n", common.model_path, e.what());
    }
    return kExitRefused;
  } catch (const OutputRefused& e) {
    std::fflush(stdout);
    fmt::print(stderr, "error: {}\n", e.what());
    return kExitRefused;
  } catch (const ictus::SimulationError& e) {
    std::fflush(stdout);
    fmt::print(stderr, "error: {}\n", e.what());
    return kExitSimulationFailed;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "error: {}\n", e.what());
    return kExitOther;
  }
  return 0;
}
