// Study files (YAML, docs/studies.md): read with the model file's located
// readers, so every error names file:line:column and the entry.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../io/yaml_reader.h"
#include "../text_util.h"
#include "ictus/study.h"

namespace ictus::study {

namespace {

namespace fs = std::filesystem;
using internal::FileContext;
using internal::MapReader;

const std::vector<std::string> kTopKeys{"ictus_study", "model",      "set",    "parameters",
                                        "sampling",    "metrics",    "output", "threads",
                                        "optimize",    "description"};

std::string resolve_beside(const std::string& source, const std::string& path) {
  const fs::path p(path);
  if (p.is_absolute()) return p.string();
  return (fs::path(source).parent_path() / p).lexically_normal().string();
}

double number(const YAML::Node& node, const FileContext& ctx, const std::string& element,
              const std::string& what) {
  return internal::read_number(node, ctx, element, what);
}

StudyParameter read_parameter(const std::string& name, const YAML::Node& key,
                              const YAML::Node& node, const FileContext& ctx) {
  const std::string element = fmt::format("parameter '{}'", name);
  StudyParameter p;
  p.name = name;
  p.where = ctx.at(key);
  if (node.IsSequence()) {
    if (node.size() == 0)
      throw ModelError(ctx.at(node), element, "the list of values is empty; give at least one");
    for (const YAML::Node& v : node) p.values.push_back(number(v, ctx, element, "value"));
    return p;
  }
  if (node.IsScalar()) {
    p.values.push_back(number(node, ctx, element, "value"));
    return p;
  }
  if (!node.IsMap())
    throw ModelError(ctx.at(node), element,
                     fmt::format("expected a list of values [a, b, ...] or a range {{from: a, to: "
                                 "b, count: n}}, got {}",
                                 internal::describe(node)));
  MapReader r(node, ctx, element);
  if (r.has("values")) {
    const YAML::Node list = r.get("values");
    r.finish();
    return read_parameter(name, key, list, ctx);
  }
  const YAML::Node from = r.required("from", "the start of the range");
  const YAML::Node to = r.required("to", "the end of the range");
  p.is_range = true;
  p.low = number(from, ctx, element, "from");
  p.high = number(to, ctx, element, "to");
  if (!(p.low < p.high))
    throw ModelError(ctx.at(to), element,
                     fmt::format("the range is empty: from {} to {}; 'from' must be less than 'to' "
                                 "(a single value is a list: [{}])",
                                 p.low, p.high, p.low));
  if (const YAML::Node n = r.get("count")) {
    const double c = number(n, ctx, element, "count");
    if (c < 1.0 || c != std::floor(c) || c > 1e6)
      throw ModelError(ctx.at(n), element,
                       fmt::format("'count' must be a whole number from 1 to 10^6, got {}", c));
    p.count = static_cast<int>(c);
    for (int k = 0; k < p.count; ++k)
      p.values.push_back(p.count == 1       ? 0.5 * (p.low + p.high)
                         : k == p.count - 1 ? p.high
                                            : p.low + (p.high - p.low) * k / (p.count - 1));
  }
  r.finish();
  return p;
}

void read_sampling(const YAML::Node& node, const FileContext& ctx, Study& study) {
  if (!node) return;
  const std::string element = "sampling";
  if (node.IsScalar() && node.Scalar() == "grid") return;
  if (!node.IsMap())
    throw ModelError(ctx.at(node), element,
                     fmt::format("expected 'grid', {{latin_hypercube: N, seed: S}} or {{random: "
                                 "N, seed: S}}, got {}",
                                 internal::describe(node)));
  MapReader r(node, ctx, element);
  YAML::Node n;
  if (r.has("latin_hypercube")) {
    study.sampling = Sampling::kLatinHypercube;
    n = r.get("latin_hypercube");
  } else if (r.has("random")) {
    study.sampling = Sampling::kRandom;
    n = r.get("random");
  } else {
    throw ModelError(ctx.at(node), element,
                     "give 'latin_hypercube: N' or 'random: N' (the number of cases), with "
                     "'seed'");
  }
  const double count = number(n, ctx, element, "the number of cases");
  if (count < 1.0 || count != std::floor(count) || count > 1e7)
    throw ModelError(ctx.at(n), element,
                     fmt::format("the number of cases must be a whole number from 1 to 10^7, "
                                 "got {}",
                                 count));
  study.samples = static_cast<int>(count);
  const double seed = r.number("seed", 1.0);
  if (seed < 0.0 || seed != std::floor(seed) || seed > 9e15)
    throw ModelError(r.where(), element, "'seed' must be a whole number >= 0");
  study.seed = static_cast<std::uint64_t>(seed);
  r.finish({"latin_hypercube", "random"});
}

SummaryPeak::Kind read_extremum(MapReader& r) {
  const std::string e = r.string("extremum", "abs");
  if (e == "abs") return SummaryPeak::Kind::kLargestMagnitude;
  if (e == "min") return SummaryPeak::Kind::kMinimum;
  if (e == "max") return SummaryPeak::Kind::kMaximum;
  throw ModelError(r.context().at(r.get("extremum")), r.element(),
                   fmt::format("'extremum' is 'abs' (the signed value of the largest |value|), "
                               "'min' or 'max', got '{}'",
                               e));
}

Metric read_metric(const std::string& name, const YAML::Node& key, const YAML::Node& node,
                   const FileContext& ctx) {
  const std::string element = fmt::format("metric '{}'", name);
  Metric m;
  m.name = name;
  m.where = ctx.at(key);
  if (node.IsScalar() && node.Scalar() == "energy_lost") {
    m.kind = Metric::Kind::kEnergyLost;
    m.channel = "energy.dissipated";
    return m;
  }
  if (!node.IsMap())
    throw ModelError(ctx.at(node), element,
                     fmt::format("expected a mapping such as {{channel: guide.x, extremum: max}}, "
                                 "{{time_of: EVENT}} or 'energy_lost', got {}",
                                 internal::describe(node)));
  MapReader r(node, ctx, element);
  const std::vector<std::string> keys{"channel",  "extremum", "from",    "to", "limit", "abs",
                                      "at_event", "side",     "time_of", "at", "scale"};
  if (r.has("time_of")) {
    m.kind = Metric::Kind::kEventTime;
    m.event = r.required_string("time_of", "an event's name");
    r.finish(keys);
    return m;
  }
  m.channel = r.required_string("channel", "a channel of the model (ictus channels MODEL)");
  m.magnitude = r.boolean("abs", false);
  if (const YAML::Node f = r.get("scale")) {
    m.scale = ctx.text(f);
    m.scale_where = ctx.text_at(f);
  }
  if (r.has("at_event")) {
    m.kind = Metric::Kind::kAtEvent;
    m.event = r.required_string("at_event", "an event's name");
    const std::string side = r.string("side", "before");
    if (side != "before" && side != "after")
      throw ModelError(
          ctx.at(r.get("side")), element,
          fmt::format("'side' is 'before' or 'after' the event's actions, got '{}'", side));
    m.after_event = side == "after";
  } else if (r.has("at")) {
    const std::string at = r.string("at", "end");
    if (at != "end")
      throw ModelError(ctx.at(r.get("at")), element,
                       fmt::format("'at' is 'end' (the value at the end of the run), got '{}'; "
                                   "for a value at an event use 'at_event: NAME'",
                                   at));
    m.kind = Metric::Kind::kFinal;
  } else {
    m.kind = Metric::Kind::kExtremum;
    m.extremum = read_extremum(r);
    if (const YAML::Node f = r.get("from")) {
      m.from = ctx.text(f);
      m.from_where = ctx.text_at(f);
    }
    if (const YAML::Node t = r.get("to")) {
      m.to = ctx.text(t);
      m.to_where = ctx.text_at(t);
    }
    const std::string limit = r.string("limit", "extreme");
    if (limit == "left") {
      m.limit = Metric::Limit::kLeft;
    } else if (limit == "right") {
      m.limit = Metric::Limit::kRight;
    } else if (limit != "extreme") {
      throw ModelError(ctx.at(r.get("limit")), element,
                       fmt::format("'limit' is 'extreme' (the larger one-sided limit at a jump), "
                                   "'left' or 'right', got '{}'",
                                   limit));
    }
  }
  r.finish(keys);
  return m;
}

void read_optimization(const YAML::Node& node, const FileContext& ctx, Study& study) {
  if (!node) return;
  Optimization& o = study.optimize;
  o.given = true;
  o.where = ctx.at(node);
  MapReader r(node, ctx, "optimize");
  if (r.has("minimize") == r.has("maximize"))
    throw ModelError(ctx.at(node), "optimize",
                     "give one of 'minimize: METRIC' or 'maximize: METRIC'");
  o.maximize = r.has("maximize");
  o.objective = r.required_string(o.maximize ? "maximize" : "minimize", "a metric's name");
  o.algorithm = r.string("algorithm", "cobyla");
  if (o.algorithm != "cobyla" && o.algorithm != "isres" && o.algorithm != "direct")
    throw ModelError(ctx.at(r.get("algorithm")), "optimize",
                     fmt::format("'algorithm' is cobyla (local, derivative-free), isres or "
                                 "direct (global), got '{}'",
                                 o.algorithm));
  o.xtol_rel = r.positive("xtol_rel", 1e-4);
  const double evals = r.number("max_evaluations", 200);
  if (evals < 1.0 || evals != std::floor(evals))
    throw ModelError(ctx.at(r.get("max_evaluations")), "optimize",
                     "'max_evaluations' must be a whole number >= 1");
  o.max_evaluations = static_cast<int>(evals);
  const double starts = r.number("starts", 1);
  if (starts < 1.0 || starts != std::floor(starts) || starts > 10000)
    throw ModelError(ctx.at(r.get("starts")), "optimize",
                     "'starts' must be a whole number from 1 to 10000");
  o.starts = static_cast<int>(starts);
  if (const YAML::Node h = r.get("history")) o.history = resolve_beside(ctx.file, ctx.text(h));
  if (const YAML::Node s = r.get("start")) {
    if (!s.IsMap())
      throw ModelError(ctx.at(s), "optimize",
                       "'start' maps parameter names to values, e.g. {K: 800, C: 16}");
    o.start.assign(study.parameters.size(), std::nan(""));
    for (const auto& kv : s) {
      const std::string name = kv.first.as<std::string>();
      auto it = std::find_if(study.parameters.begin(), study.parameters.end(),
                             [&](const StudyParameter& p) { return p.name == name; });
      if (it == study.parameters.end())
        throw ModelError(ctx.at(kv.first), "optimize",
                         fmt::format("'start' names '{}', not a parameter of the study", name));
      o.start[static_cast<std::size_t>(it - study.parameters.begin())] =
          number(kv.second, ctx, "optimize", "start");
    }
  }
  if (const YAML::Node cs = r.get("constraints")) {
    if (!cs.IsSequence())
      throw ModelError(ctx.at(cs), "optimize",
                       "'constraints' is a list such as [{metric: u_max, max: 0.3}]");
    for (const YAML::Node& c : cs) {
      MapReader cr(c, ctx, "optimize constraint");
      MetricConstraint mc;
      mc.where = ctx.at(c);
      mc.metric = cr.required_string("metric", "a metric's name");
      if (cr.has("min")) mc.min = cr.required_number("min");
      if (cr.has("max")) mc.max = cr.required_number("max");
      if (!mc.min && !mc.max)
        throw ModelError(mc.where, "optimize constraint", "give 'min', 'max' or both");
      cr.finish({"min", "max"});
      o.constraints.push_back(mc);
    }
  }
  r.finish({"minimize", "maximize"});
}

// The names a study refers to, checked among its own entries.
void check_metric_references(const Study& study) {
  std::vector<std::string> names;
  for (const Metric& m : study.metrics) names.push_back(m.name);
  auto check = [&](const std::string& name, const SourceLocation& where) {
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw ModelError(
          where, "optimize",
          fmt::format("'{}' is not a metric of the study{}; its metrics are: {}", name,
                      internal::did_you_mean(name, names), internal::join_names(names)));
  };
  if (!study.optimize.given) return;
  check(study.optimize.objective, study.optimize.where);
  for (const MetricConstraint& c : study.optimize.constraints) check(c.metric, c.where);
  for (const StudyParameter& p : study.parameters)
    if (!p.is_range)
      throw ModelError(p.where, fmt::format("parameter '{}'", p.name),
                       "an optimisation needs a range {from: a, to: b} for every parameter");
}

}  // namespace

Study parse_study(const std::string& text, const std::string& source_name) {
  FileContext ctx;
  ctx.file = source_name;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ModelError({source_name, e.mark.line + 1, e.mark.column + 1}, "",
                     fmt::format("not valid YAML: {}", e.msg));
  }
  if (!root.IsMap())
    throw ModelError({source_name, 1, 1}, "",
                     "a study file is a YAML mapping with 'model', 'parameters' and 'metrics'");
  Study study;
  study.source = source_name;
  try {
    MapReader top(root, ctx, "study");
    top.finish(kTopKeys);  // a misspelt key before the keys it misses
    if (const YAML::Node v = top.get("ictus_study"))
      if (internal::read_number(v, ctx, "study", "ictus_study") != 1.0)
        throw ModelError(ctx.at(v), "study", "this version of ictus reads study format 1");
    (void)top.string("description", "");
    study.model_path =
        resolve_beside(source_name, top.required_string("model", "the model file (YAML)"));
    study.model_where = ctx.at(top.get("model"));
    if (const YAML::Node set = top.get("set")) {
      if (!set.IsMap())
        throw ModelError(ctx.at(set), "set",
                         "'set' maps model parameters to the values every case takes");
      for (const auto& kv : set)
        study.fixed.emplace_back(kv.first.as<std::string>(), ctx.text(kv.second));
    }
    const YAML::Node params = top.required("parameters", "the parameters varied");
    if (!params.IsMap() || params.size() == 0)
      throw ModelError(ctx.at(params), "parameters",
                       "'parameters' maps model parameters to lists or ranges, e.g. "
                       "{K: {from: 400, to: 1600, count: 10}, C: [8, 16]}");
    for (const auto& kv : params)
      study.parameters.push_back(
          read_parameter(kv.first.as<std::string>(), kv.first, kv.second, ctx));
    read_sampling(top.get("sampling"), ctx, study);
    if (study.sampling != Sampling::kGrid) {
      for (const StudyParameter& p : study.parameters)
        if (!p.is_range)
          throw ModelError(p.where, fmt::format("parameter '{}'", p.name),
                           "sampling draws from ranges: give {from: a, to: b}");
    }
    const YAML::Node metrics = top.required("metrics", "what each case measures");
    if (!metrics.IsMap() || metrics.size() == 0)
      throw ModelError(ctx.at(metrics), "metrics",
                       "'metrics' maps names to what is measured, e.g. {u_max: {channel: "
                       "guide.x, extremum: max}}");
    for (const auto& kv : metrics)
      study.metrics.push_back(read_metric(kv.first.as<std::string>(), kv.first, kv.second, ctx));
    const fs::path stem = fs::path(source_name).stem();
    study.output = resolve_beside(source_name, top.string("output", stem.string() + ".csv"));
    const double threads = top.number("threads", 0);
    if (threads < 0.0 || threads != std::floor(threads) || threads > 4096)
      throw ModelError(ctx.at(top.get("threads")), "study",
                       "'threads' must be a whole number from 0 (every core) to 4096");
    study.threads = static_cast<int>(threads);
    read_optimization(top.get("optimize"), ctx, study);
    if (study.optimize.given && study.optimize.history.empty())
      study.optimize.history = resolve_beside(source_name, stem.string() + ".history.csv");
    top.finish(kTopKeys);
  } catch (const YAML::Exception& e) {
    throw ModelError({source_name, e.mark.line + 1, e.mark.column + 1}, "",
                     fmt::format("cannot read this part of the study: {}", e.msg));
  }
  check_metric_references(study);
  return study;
}

Study load_study(const std::string& path) {
  if (fs::is_directory(path))
    throw ModelError({path, 0, 0}, "", "is a directory; expected a study file (YAML)");
  std::ifstream in(path);
  if (!in) throw ModelError({path, 0, 0}, "", "cannot open the study file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_study(buffer.str(), path);
}

}  // namespace ictus::study
