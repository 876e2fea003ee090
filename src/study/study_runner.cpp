// Running the cases of a study: the model checked once, each case loaded
// from the model text held in memory with its parameter values, run, and
// measured (windowed extrema by the Summary's located peaks, the rest by
// CaseMetrics); a pool of threads takes the cases in turn.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "../compiled_expression.h"
#include "../text_util.h"
#include "case_metrics.h"
#include "ictus/observers.h"
#include "ictus/simulation.h"
#include "ictus/study.h"

namespace ictus::study {

namespace {

std::string read_model_file(const Study& study) {
  const std::string& path = study.model_path;
  std::ifstream in(path);
  if (!in || std::filesystem::is_directory(path))
    throw ModelError(study.model_where, "model",
                     fmt::format("cannot open the model file {}", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// A window end or a scale: a formula of the model's parameters, located in
// the study.
double window_end(const std::string& text, const SourceLocation& where, const Model& model,
                  const Metric& m, double fallback) {
  if (text.empty()) return fallback;
  return ictus::internal::evaluate_constant(Expression(text, where), model.parameters(),
                                            fmt::format("metric '{}'", m.name));
}

std::vector<SummaryPeak> peaks_of(const std::vector<Metric>& metrics, const Model& model) {
  std::vector<SummaryPeak> peaks;
  for (const Metric& m : metrics) {
    if (m.kind != Metric::Kind::kExtremum) continue;
    SummaryPeak p;
    p.channel = m.channel;
    p.kind = m.extremum;
    p.from = window_end(m.from, m.from_where, model, m, p.from);
    p.to = window_end(m.to, m.to_where, model, m, p.to);
    p.label = m.name;
    p.where = m.where;
    if (!(p.from < p.to))
      throw ModelError(m.to.empty() ? m.from_where : m.to_where, fmt::format("metric '{}'", m.name),
                       fmt::format("the window is empty: from {} to {} s", p.from, p.to));
    peaks.push_back(p);
  }
  return peaks;
}

// The extremum a metric reports: at a jump (an event), the one-sided limit
// it asks for (issue 16 item 8).
double extremum_value(const PeakResult& r, Metric::Limit limit) {
  if (!r.found) return std::nan("");
  const LocatedExtremum& e = r.located;
  if (!e.found || e.side == 0 || limit == Metric::Limit::kExtreme) return r.value;
  const int wanted = limit == Metric::Limit::kLeft ? -1 : 1;
  return e.side == wanted ? r.value : e.other_side;
}

std::string parameter_text(double v) {
  return fmt::format("{}", v);
}

}  // namespace

StudyRunner::StudyRunner(const Study& study) : study_(study) {
  model_text_ = read_model_file(study_);
  // names first, against the file as written, so that an unknown one is
  // reported at the study's entry (not as a failing case)
  const Model plain = parse_model(model_text_, study_.model_path);
  std::vector<std::string> names;
  for (const auto& [name, value] : plain.parameters()) names.push_back(name);
  auto check_parameter = [&](const std::string& name, const SourceLocation& where,
                             const std::string& element) {
    if (plain.parameters().count(name) == 0)
      throw ModelError(
          where, element,
          fmt::format("the model {} has no parameter '{}'{}; its parameters are: {}",
                      study_.model_path, name, ictus::internal::did_you_mean(name, names),
                      ictus::internal::join_names(names, 40)));
  };
  for (const auto& [name, value] : study_.fixed)
    check_parameter(name, {study_.source, 0, 0}, "set");
  for (const StudyParameter& p : study_.parameters)
    check_parameter(p.name, p.where, fmt::format("parameter '{}'", p.name));

  // which parameters reading the file consumes (numbers of elements), as
  // opposed to those only the formulas of time and state read
  std::set<std::string, std::less<>> consumed;
  Model model;
  {
    const ictus::internal::ParameterUseRecorder recorder;
    model = parse_model(model_text_, study_.model_path, study_.fixed);
    consumed = recorder.names();
  }
  if (std::none_of(study_.parameters.begin(), study_.parameters.end(),
                   [&](const StudyParameter& p) { return consumed.count(p.name) != 0; }))
    parsed_ = std::make_shared<const Model>(model);
  // refused once, here, rather than in every case
  check_integrator_imposes(model);
  const System system(model);
  std::vector<std::string> channels;
  for (int k = 0; k < system.channel_count(); ++k) channels.push_back(system.channel_info(k).name);
  std::vector<std::string> events;
  for (const Event& e : model.events()) events.push_back(e.name);
  for (const Metric& m : study_.metrics) {
    const std::string element = fmt::format("metric '{}'", m.name);
    if (!m.channel.empty() && system.find_channel(m.channel) < 0)
      throw ModelError(m.where, element,
                       fmt::format("the model {} has no channel '{}'{} (ictus channels MODEL "
                                   "lists them)",
                                   study_.model_path, m.channel,
                                   ictus::internal::did_you_mean(m.channel, channels)));
    if (!m.event.empty() && std::find(events.begin(), events.end(), m.event) == events.end())
      throw ModelError(
          m.where, element,
          fmt::format("the model {} has no event '{}'{}; its events are: {}", study_.model_path,
                      m.event, ictus::internal::did_you_mean(m.event, events),
                      ictus::internal::join_names(events)));
  }
  (void)peaks_of(study_.metrics, model);  // the windows' formulas
  for (const Metric& m : study_.metrics) (void)window_end(m.scale, m.scale_where, model, m, 1.0);
}

Model StudyRunner::case_model(const Case& c) const {
  if (parsed_ != nullptr) {
    Model model = *parsed_;
    for (std::size_t i = 0; i < study_.parameters.size(); ++i)
      model.set_parameter(study_.parameters[i].name, c.values[i]);
    return model;
  }
  ParameterOverrides overrides = study_.fixed;
  for (std::size_t i = 0; i < study_.parameters.size(); ++i)
    overrides.emplace_back(study_.parameters[i].name, parameter_text(c.values[i]));
  return parse_model(model_text_, study_.model_path, overrides);
}

CaseResult StudyRunner::run(const Case& c) const {
  const auto started = std::chrono::steady_clock::now();
  CaseResult r;
  r.index = c.index;
  r.parameters = c.values;
  r.metrics.assign(study_.metrics.size(), std::nan(""));
  try {
    const Model model = case_model(c);
    const std::vector<SummaryPeak> peaks = peaks_of(study_.metrics, model);
    Simulation simulation(model);
    simulation.keep_event_log(false);
    Summary summary({}, peaks);
    study::internal::CaseMetrics others(study_.metrics, r.metrics);
    simulation.add_observer(summary);
    simulation.add_observer(others);
    (void)simulation.run();
    const std::vector<PeakResult> measured = summary.peaks();
    std::size_t p = 0;
    for (std::size_t k = 0; k < study_.metrics.size(); ++k)
      if (study_.metrics[k].kind == Metric::Kind::kExtremum)
        r.metrics[k] = extremum_value(measured[p++], study_.metrics[k].limit);
    for (std::size_t k = 0; k < study_.metrics.size(); ++k) {
      const Metric& m = study_.metrics[k];
      r.metrics[k] *= window_end(m.scale, m.scale_where, model, m, 1.0);
      if (m.magnitude) r.metrics[k] = std::abs(r.metrics[k]);
    }
    // last: a row that fails after its audit carries no verdict
    const EnergyAudit audit = summary.energy_audit(energy_tolerance(model.settings()));
    r.audit_passed = audit.passed;
    if (!audit.passed) r.error = energy_audit_message(audit);
    r.ok = true;
  } catch (const std::exception& e) {
    r.ok = false;
    r.error = e.what();
  }
  r.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

std::vector<CaseResult> run_cases(const StudyRunner& runner, const std::vector<Case>& cases,
                                  const SweepOptions& options) {
  std::vector<CaseResult> results(cases.size());
  std::vector<char> ran(cases.size(), 0);
  int threads =
      options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
  threads = std::clamp(threads, 1, std::max(1, static_cast<int>(cases.size())));
  std::atomic<std::size_t> next{0};
  std::mutex report;
  auto work = [&] {
    for (std::size_t k = next++; k < cases.size(); k = next++) {
      if (options.stop != nullptr && options.stop->load()) return;
      results[k] = runner.run(cases[k]);
      ran[k] = 1;
      if (options.on_case) {
        const std::lock_guard<std::mutex> lock(report);
        options.on_case(results[k]);
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  std::vector<CaseResult> done;
  for (std::size_t k = 0; k < cases.size(); ++k)
    if (ran[k] != 0) done.push_back(std::move(results[k]));
  return done;
}

// --- CSV --------------------------------------------------------------------

namespace {

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"') out += '"';
    out += ch == '\n' || ch == '\r' ? ' ' : ch;
  }
  return out + "\"";
}

std::string number(double v) {
  return std::isfinite(v) ? fmt::format("{}", v) : std::string();
}

// Splits one CSV line (quotes as written by field()).
std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        out.back() += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      out.emplace_back();
    } else {
      out.back() += ch;
    }
  }
  return out;
}

bool parse_number(const std::string& text, double& v) {
  if (text.empty()) {
    v = std::nan("");
    return true;
  }
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && ptr == text.data() + text.size();
}

}  // namespace

std::string csv_header(const Study& study) {
  std::string h = "case";
  for (const StudyParameter& p : study.parameters)
    fmt::format_to(std::back_inserter(h), ",{}", field(p.name));
  for (const Metric& m : study.metrics) fmt::format_to(std::back_inserter(h), ",{}", field(m.name));
  h.append(",status,error,wall_s\n");
  return h;
}

std::string csv_row(const CaseResult& r) {
  std::string row = fmt::format("{}", r.index);
  for (double v : r.parameters) fmt::format_to(std::back_inserter(row), ",{}", number(v));
  for (double v : r.metrics) fmt::format_to(std::back_inserter(row), ",{}", number(v));
  const bool clean = r.ok && r.audit_passed;
  fmt::format_to(std::back_inserter(row), ",{},{},{:.6f}\n",
                 !r.ok            ? "failed"
                 : r.audit_passed ? "ok"
                                  : "audit_failed",
                 clean ? std::string() : field(r.error), r.wall_seconds);
  return row;
}

std::optional<CaseResult> parse_csv_row(const std::string& line, std::size_t parameters,
                                        std::size_t metrics) {
  const std::vector<std::string> f = split(line);
  if (f.size() != parameters + metrics + 4) return std::nullopt;
  CaseResult r;
  double index = 0.0;
  if (!parse_number(f[0], index) || !(index >= 0.0) || index != std::floor(index))
    return std::nullopt;
  r.index = static_cast<int>(index);
  r.parameters.resize(parameters);
  r.metrics.resize(metrics);
  for (std::size_t k = 0; k < parameters; ++k)
    if (!parse_number(f[1 + k], r.parameters[k])) return std::nullopt;
  for (std::size_t k = 0; k < metrics; ++k)
    if (!parse_number(f[1 + parameters + k], r.metrics[k])) return std::nullopt;
  const std::string& status = f[1 + parameters + metrics];
  if (status != "ok" && status != "failed" && status != "audit_failed") return std::nullopt;
  r.ok = status != "failed";
  r.audit_passed = status != "audit_failed";
  r.error = f[2 + parameters + metrics];
  if (!parse_number(f[3 + parameters + metrics], r.wall_seconds)) return std::nullopt;
  return r;
}

}  // namespace ictus::study
