#include "ictus/observers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "../text_util.h"

namespace ictus {

namespace {

// '*' matches any run of characters (dots included)
bool glob_match(const std::string& pattern, const std::string& text) {
  std::size_t p = 0, s = 0, star = std::string::npos, mark = 0;
  while (s < text.size()) {
    if (p < pattern.size() && (pattern[p] == text[s])) {
      ++p;
      ++s;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = s;
    } else if (star != std::string::npos) {
      p = star + 1;
      s = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<int> resolve(const System& system, const std::vector<std::string>& names) {
  std::vector<int> out;
  for (const std::string& n : names) {
    const int k = system.find_channel(n);
    if (k < 0) throw std::invalid_argument(fmt::format("unknown channel '{}'", n));
    out.push_back(k);
  }
  return out;
}

// what a summary peak maximises: |v|, -v (minimum) or v
double peak_score(const SummaryPeak& p, double v) {
  switch (p.kind) {
    case SummaryPeak::Kind::kMinimum:
      return -v;
    case SummaryPeak::Kind::kMaximum:
      return v;
    case SummaryPeak::Kind::kLargestMagnitude:
      break;
  }
  return std::abs(v);
}

// "cannot write 'path': No space left on device"
std::runtime_error write_error(const std::filesystem::path& path, int error) {
  return std::runtime_error(fmt::format("cannot write '{}': {}", path.string(),
                                        error != 0 ? std::strerror(error) : "write failed"));
}

// "42 s", "12 min 5 s", "3 h 20 min"
std::string duration_text(double seconds) {
  if (!(seconds < 1e9)) return "unknown";
  const long s = std::lround(seconds);
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {} s", s / 60, s % 60);
  return fmt::format("{} h {} min", s / 3600, (s % 3600) / 60);
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::vector<std::string> select_channels(const System& system,
                                         const std::vector<OutputRequest>& requests) {
  std::vector<std::string> all;
  for (int k = 0; k < system.channel_count(); ++k) all.push_back(system.channel_info(k).name);
  std::vector<std::string> out;
  auto add = [&](const std::string& n) {
    if (n != "t" && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  };
  if (requests.empty()) {
    // default: body motion, joint coordinates and reactions, drivers, forces,
    // the energy audit and the constraint violation
    const Model& m = system.model();
    for (const Body& b : m.bodies())
      for (const char* c : {"x", "y", "z", "vx", "vy", "vz", "wx", "wy", "wz"})
        add(fmt::format("{}.{}", b.name, c));
    for (const Joint& j : m.joints()) {
      if (j.has_angle) {
        add(j.name + ".angle");
        add(j.name + ".omega");
      }
      if (j.has_translation) {
        add(j.name + ".x");
        add(j.name + ".v");
      }
      for (const char* c : {"Fx", "Fy", "Fz", "Mx", "My", "Mz"})
        add(fmt::format("{}.{}", j.name, c));
    }
    for (const Driver& d : m.drivers()) add(d.name + ".load");
    for (const auto& f : m.forces())
      for (const std::string& c : all)
        if (c.rfind(f->name() + ".", 0) == 0) add(c);
    for (const char* c : {"energy.kinetic", "energy.potential", "energy.work", "energy.dissipated",
                          "energy.balance", "system.violation"})
      add(c);
    return out;
  }
  for (const OutputRequest& r : requests) {
    bool matched = false;
    for (const std::string& c : all)
      if (glob_match(r.pattern, c)) {
        add(c);
        matched = true;
      }
    if (!matched && r.pattern != "t")
      throw ModelError(r.where, "simulate",
                       fmt::format("output '{}' matches no channel{}; see docs/channels.md "
                                   "(or 'ictus channels MODEL')",
                                   r.pattern, internal::did_you_mean(r.pattern, all)));
  }
  return out;
}

void check_summary_entry(const System& system, std::string_view what, const std::string& label,
                         const std::string& channel, double from, double to,
                         const SourceLocation& where) {
  if (system.find_channel(channel) < 0) {
    std::vector<std::string> all;
    for (int k = 0; k < system.channel_count(); ++k) all.push_back(system.channel_info(k).name);
    throw ModelError(where, "summary",
                     fmt::format("{} '{}': unknown channel '{}'{}; see docs/channels.md (or "
                                 "'ictus channels MODEL')",
                                 what, label, channel, internal::did_you_mean(channel, all)));
  }
  const SimulationSettings& run = system.model().settings();
  if (to < run.start || from > run.until)
    throw ModelError(where, "summary",
                     fmt::format("{} '{}': the window {:g} .. {:g} s lies outside the run "
                                 "({:g} .. {:g} s); give 'from' and 'to' within it",
                                 what, label, from, to, run.start, run.until));
}

void check_summary_peaks(const System& system, const std::vector<SummaryPeak>& peaks) {
  for (const SummaryPeak& p : peaks)
    check_summary_entry(system, "peak", p.label, p.channel, p.from, p.to, p.where);
}

// --- Recorder -----------------------------------------------------------------

Recorder::Recorder(std::vector<std::string> channels) : names_(std::move(channels)) {}

void Recorder::on_start(System& system, double, double) {
  indices_ = resolve(system, names_);
  values_.assign(names_.size(), {});
  times_.clear();
}

void Recorder::on_sample(double t, System& system) {
  times_.push_back(t);
  for (std::size_t k = 0; k < indices_.size(); ++k)
    values_[k].push_back(system.channel_value(indices_[k]));
}

const std::vector<double>& Recorder::series(const std::string& name) const {
  for (std::size_t k = 0; k < names_.size(); ++k)
    if (names_[k] == name) return values_[k];
  throw std::out_of_range(fmt::format("channel '{}' was not recorded", name));
}

// --- CsvWriter ----------------------------------------------------------------

CsvWriter::CsvWriter(std::filesystem::path directory, std::vector<std::string> channels,
                     std::string stem)
    : directory_(std::move(directory)), stem_(std::move(stem)), names_(std::move(channels)) {}

CsvWriter::~CsvWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

void CsvWriter::on_start(System& system, double, double) {
  indices_ = resolve(system, names_);
  std::filesystem::create_directories(directory_);
  // results of an earlier run must not be mistaken for this one's
  std::filesystem::remove(final_path());
  std::filesystem::remove(directory_ / (stem_ + ".incomplete.csv"));
  const std::filesystem::path tmp = partial_path();
  file_ = std::fopen(tmp.c_str(), "w");
  if (file_ == nullptr) throw write_error(tmp, errno);
  // buffer_ collects 32 kB per write: stdio's own buffer would only copy it
  // (and be allocated at the first write, inside the step loop)
  std::setvbuf(file_, nullptr, _IONBF, 0);
  buffer_.clear();
  buffer_.push_back('t');
  for (const std::string& n : names_) {
    buffer_ += ',';
    buffer_ += n;
  }
  buffer_ += "\n";
  buffer_.reserve(1 << 16);
  held_.reserve(32 * (names_.size() + 1));  // a row: at most 25 characters a number
  count_ = 0;
}

void CsvWriter::on_sample(double t, System& system) {
  // with a stride, the row is formatted after the buffer and moved to held_
  // if it is skipped (held_ is reserved in on_start: no allocation here)
  const bool event_pair = count_ > 0 && t == last_t_;
  if (event_pair && !held_.empty()) {
    buffer_ += held_;
    held_.clear();
  }
  const std::size_t own_start = buffer_.size();
  fmt::format_to(std::back_inserter(buffer_), "{}", t);
  for (const int k : indices_) {
    const double v = system.channel_value(k);
    // never write a NaN as if it were a result
    if (!std::isfinite(v))
      throw SimulationError(t,
                            fmt::format("channel '{}' is not finite", system.channel_info(k).name));
    fmt::format_to(std::back_inserter(buffer_), ",{}", v);
  }
  buffer_ += '\n';
  const bool keep = stride_ == 1 || count_ % stride_ == 0 || event_pair;
  ++count_;
  last_t_ = t;
  if (!keep) {
    held_.assign(buffer_, own_start, std::string::npos);
    buffer_.resize(own_start);
  } else {
    held_.clear();
  }
  if (buffer_.size() > (1 << 15)) flush();
}

void CsvWriter::flush() {
  if (file_ == nullptr || buffer_.empty()) return;
  errno = 0;
  const bool written = std::fwrite(buffer_.data(), 1, buffer_.size(), file_) == buffer_.size();
  const int error = errno;
  buffer_.clear();
  if (!written) throw write_error(partial_path(), error);
}

void CsvWriter::on_finish(double, bool completed) {
  if (file_ == nullptr) return;
  buffer_ += held_;  // the last sample is always written
  held_.clear();
  int error = 0;
  try {
    flush();
  } catch (const std::runtime_error&) {
    error = errno != 0 ? errno : EIO;
  }
  errno = 0;
  if (std::fflush(file_) != 0 || std::ferror(file_) != 0) error = errno != 0 ? errno : EIO;
  std::fclose(file_);
  file_ = nullptr;
  const std::filesystem::path tmp = partial_path();
  const std::filesystem::path target =
      completed && error == 0 ? final_path() : directory_ / (stem_ + ".incomplete.csv");
  std::filesystem::rename(tmp, target);
  // a run that failed already has its error; a completed one fails here
  if (completed && error != 0) throw write_error(tmp, error);
}

// --- EventLogWriter -------------------------------------------------------------

EventLogWriter::EventLogWriter(std::filesystem::path directory)
    : directory_(std::move(directory)) {}

EventLogWriter::~EventLogWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

// records can arrive before on_start (warnings while the run starts)
void EventLogWriter::open() {
  if (file_ != nullptr) return;
  std::filesystem::create_directories(directory_);
  const std::filesystem::path tmp = directory_ / "events.csv.partial";
  file_ = std::fopen(tmp.c_str(), "w");
  if (file_ == nullptr) throw write_error(tmp, errno);
  failed_ = false;
  write({0.0, "", "", ""});  // the header (write() knows it by the empty kind)
}

void EventLogWriter::write(const EventRecord& r) {
  auto quoted = [this](const std::string& text) {
    line_ += '"';
    for (char c : text) {
      if (c == '"') line_ += '"';
      line_ += c;
    }
    line_ += '"';
  };
  line_.clear();
  if (r.kind.empty()) {
    line_ = "time,kind,name,detail\n";
  } else {
    fmt::format_to(std::back_inserter(line_), "{},{},", r.t, r.kind);
    quoted(r.name);
    line_ += ',';
    quoted(r.detail);
    line_ += '\n';
  }
  if (failed_) return;  // the failure has been reported; the run is ending
  errno = 0;
  if (std::fwrite(line_.data(), 1, line_.size(), file_) != line_.size()) {
    failed_ = true;
    throw write_error(directory_ / "events.csv.partial", errno);
  }
}

void EventLogWriter::on_event(const EventRecord& record) {
  open();
  write(record);
}

void EventLogWriter::on_finish(double t, bool completed) {
  open();
  int error = 0;
  try {
    write({t, completed ? "end" : "incomplete", "",
           completed ? "run completed" : "run did not complete"});
  } catch (const std::runtime_error&) {
    error = errno != 0 ? errno : EIO;
  }
  errno = 0;
  if (std::fflush(file_) != 0 || std::ferror(file_) != 0 || failed_)
    error = error != 0 ? error : (errno != 0 ? errno : EIO);
  std::fclose(file_);
  file_ = nullptr;
  std::filesystem::rename(directory_ / "events.csv.partial", directory_ / "events.csv");
  if (completed && error != 0) throw write_error(directory_ / "events.csv", error);
}

// --- Summary ----------------------------------------------------------------------

Summary::Summary(std::vector<std::string> channels, std::vector<SummaryPeak> peaks)
    : names_(std::move(channels)) {
  for (SummaryPeak& p : peaks) {
    PeakState state;
    state.result.peak = std::move(p);
    peaks_.push_back(std::move(state));
  }
}

void Summary::on_start(System& system, double, double) {
  indices_ = resolve(system, names_);
  extrema_.clear();
  for (std::size_t k = 0; k < names_.size(); ++k) {
    ChannelExtrema e;
    e.name = names_[k];
    e.unit = system.channel_info(indices_[k]).unit;
    extrema_.push_back(std::move(e));
  }
  ends_.resize(indices_.size());
  // integrator.step is the size of the step just taken, not a function of
  // the motion: its extrema are those of the samples
  locatable_.clear();
  for (const std::string& name : names_)
    locatable_.push_back(name.rfind("integrator.", 0) == 0 ? 0 : 1);
  // each channel is evaluated only as far as it needs (kinematic channels
  // without the dynamics), the probe of them all as far as the last needs
  stages_.clear();
  probe_stage_ = Stage::kKinematics;
  for (const int k : indices_) {
    stages_.push_back(system.channel_info(k).stage);
    probe_stage_ = std::max(probe_stage_, stages_.back());
  }
  for (PeakState& p : peaks_) {
    const int k = system.find_channel(p.result.peak.channel);
    if (k < 0)
      throw std::invalid_argument(fmt::format("unknown channel '{}'", p.result.peak.channel));
    PeakState fresh;
    fresh.index = k;
    fresh.result.peak = p.result.peak;
    fresh.result.unit = system.channel_info(k).unit;
    fresh.channel = {k};
    fresh.stage = system.channel_info(k).stage;
    fresh.ends.resize(1);
    p = std::move(fresh);
  }
  balance_ = system.find_channel("energy.balance");
  kinetic_ = system.find_channel("energy.kinetic");
  potential_ = system.find_channel("energy.potential");
  dissipated_ = system.find_channel("energy.dissipated");
  switching_ = system.find_channel("energy.switching");
  balance_error_.reset();
  fall_.reset();
  dissipation_peak_ = -std::numeric_limits<double>::infinity();  // from the first sample
  energy_scale_ = 0.0;
}

void Summary::on_sample(double t, System& system) {
  for (std::size_t k = 0; k < indices_.size(); ++k) {
    const double v = system.channel_value(indices_[k]);
    ChannelExtrema& e = extrema_[k];
    // a sample counts too: it is on the dense output, or a state just after
    // an event that ends the run
    consider(e.low, -1.0, v, t, false, 0);
    consider(e.high, 1.0, v, t, false, 0);
    e.min = e.low.value;
    e.t_min = e.low.t;
    e.max = e.high.value;
    e.t_max = e.high.t;
    e.final = v;
  }
  for (PeakState& p : peaks_) {
    const double v = system.channel_value(p.index);
    PeakResult& r = p.result;
    if (p.awaiting_next) {
      p.t_next = t;
      p.v_next = v;
      p.has_next = true;
      p.awaiting_next = false;
    }
    if (t >= r.peak.from && t <= r.peak.to) {
      consider(p.low, -1.0, v, t, false, 0);
      consider(p.high, 1.0, v, t, false, 0);
    }
    if (t >= r.peak.from && t <= r.peak.to &&
        (!r.found || peak_score(r.peak, v) > peak_score(r.peak, r.sampled))) {
      r.found = true;
      r.sampled = v;
      r.t_sampled = t;
      p.has_prev = p.has_last;
      p.t_prev = p.t_last;
      p.v_prev = p.v_last;
      p.has_next = false;
      p.awaiting_next = true;
    }
    p.t_last = t;
    p.v_last = v;
    p.has_last = true;
  }
  balance_error_.add(t, std::abs(system.channel_value(balance_)));
  // dampers, friction and impacts (and a time-stepping scheme's own
  // dissipation); switched elements may bring energy
  const double dissipation = system.channel_value(dissipated_) - system.channel_value(switching_);
  dissipation_peak_ = std::max(dissipation_peak_, dissipation);
  fall_.add(t, dissipation_peak_ - dissipation);
  energy_scale_ = std::max(energy_scale_, std::abs(system.channel_value(kinetic_)) +
                                              std::abs(system.channel_value(potential_)));
}

namespace {

// The extremum `e` (sign +1: max, -1: min) of channel `k` of `ends` over the
// piece [ends.a, ends.b]; at an event between two pieces, the other
// one-sided limit is kept beside a one-sided extremum.
void locate_over(LocatedExtremum& e, double sign, DenseMotion& motion, int channel, Stage stage,
                 const PieceEnds& ends, std::size_t k, bool after_event, bool at_event) {
  if (after_event && e.found && e.side == -1 && e.t == ends.a) e.other_side = ends.value_a[k];
  locate_in_piece(e, motion, channel, stage, sign, ends.a, ends.b, ends.value_a[k], ends.rate_a[k],
                  ends.value_b[k], ends.rate_b[k], after_event ? 1 : 0, at_event ? -1 : 0);
  if (after_event && e.side == 1 && e.t == ends.a) e.other_side = ends.previous_b[k];
}

}  // namespace

void Summary::on_piece(double t0, double t1, bool after_event, bool at_event, DenseMotion& motion) {
  if (!indices_.empty()) {
    ends_.probe(motion, indices_, probe_stage_, t0, t1, !after_event);
    for (std::size_t k = 0; k < indices_.size(); ++k) {
      if (!locatable_[k]) continue;
      ChannelExtrema& e = extrema_[k];
      const Stage stage = stages_[k];
      locate_over(e.low, -1.0, motion, indices_[k], stage, ends_, k, after_event, at_event);
      locate_over(e.high, 1.0, motion, indices_[k], stage, ends_, k, after_event, at_event);
      e.min = e.low.value;
      e.t_min = e.low.t;
      e.max = e.high.value;
      e.t_max = e.high.t;
    }
  }
  for (PeakState& p : peaks_) {
    const double lo = std::max(t0, p.result.peak.from), hi = std::min(t1, p.result.peak.to);
    if (lo > hi) continue;
    // the window's part of the piece; its ends inside the piece are no events
    const bool from_event = after_event && lo == t0, to_event = at_event && hi == t1;
    p.ends.probe(motion, p.channel, p.stage, lo, hi, lo == t0 && !after_event);
    const SummaryPeak::Kind kind = p.result.peak.kind;
    if (kind != SummaryPeak::Kind::kMaximum)
      locate_over(p.low, -1.0, motion, p.index, p.stage, p.ends, 0, from_event, to_event);
    if (kind != SummaryPeak::Kind::kMinimum)
      locate_over(p.high, 1.0, motion, p.index, p.stage, p.ends, 0, from_event, to_event);
  }
}

void Summary::on_event(const EventRecord& record) {
  if (record.kind == "event") ++events_;
  if (record.kind != "warning") return;
  ++warning_count_;
  if (warnings_.size() < kMaxWarnings &&
      std::find(warnings_.begin(), warnings_.end(), record.detail) == warnings_.end())
    warnings_.push_back(record.detail);
}

double Summary::relative_energy_balance_error() const {
  return energy_scale_ > 0.0 ? balance_error_.max() / energy_scale_ : balance_error_.max();
}

EnergyAudit Summary::energy_audit(double tolerance) const {
  EnergyAudit a;
  const double scale = energy_scale_ > 0.0 ? energy_scale_ : 1.0;
  const double level = tolerance * scale;
  a.tolerance = tolerance;
  a.error = balance_error_.max();
  a.relative = relative_energy_balance_error();
  a.balance_passed = !(a.relative > tolerance);  // a NaN fails
  if (!a.balance_passed) {
    const internal::RisingMaximum::Bracket b = balance_error_.first_above(level);
    a.from = b.from;
    a.to = b.to;
  }
  a.fall = fall_.max();
  a.fall_relative = a.fall / scale;
  a.fall_passed = !(a.fall_relative > tolerance);
  if (!a.fall_passed) {
    const internal::RisingMaximum::Bracket b = fall_.first_above(level);
    a.fall_from = b.from;
    a.fall_to = b.to;
  }
  a.passed = a.balance_passed && a.fall_passed;
  return a;
}

std::string energy_audit_message(const EnergyAudit& a) {
  std::string out = "energy audit failed: ";
  if (!a.balance_passed)
    out += fmt::format(
        "the balance error {:.3g} J is {:.3g} of the largest kinetic + potential energy, more "
        "than the tolerance {:.3g} (simulate: energy_tolerance); it first exceeded the tolerance "
        "between t = {:.6g} s and t = {:.6g} s",
        a.error, a.relative, a.tolerance, a.from, a.to);
  if (!a.balance_passed && !a.fall_passed) out += "; and ";
  if (!a.fall_passed)
    out += fmt::format(
        "the energy dissipated by dampers, friction and impacts fell by {:.3g} J, {:.3g} of the "
        "largest kinetic + potential energy, more than the tolerance {:.3g} (simulate: "
        "energy_tolerance): something put energy in (friction pushing a slip along, an impact "
        "law that gives energy, or the time-stepping scheme itself); it first fell that far "
        "between t = {:.6g} s and t = {:.6g} s",
        a.fall, a.fall_relative, a.tolerance, a.fall_from, a.fall_to);
  return out;
}

namespace internal {

void RisingMaximum::reset() {
  rises_.clear();
  rises_.reserve(kMaxRecords);
  last_rise_ = {};
  max_ = 0.0;
  t_last_ = 0.0;
  first_ = true;
}

void RisingMaximum::add(double t, double v) {
  if (v > max_) {
    last_rise_ = {first_ ? t : t_last_, t, max_, v};
    if (rises_.empty() || v >= kRatio * rises_.back().v) rises_.push_back(last_rise_);
    max_ = v;
  }
  first_ = false;
  t_last_ = t;
}

RisingMaximum::Bracket RisingMaximum::first_above(double level) const {
  // the recorded rises, then the last rise of the maximum (which need not be one)
  for (std::size_t k = 0; k <= rises_.size(); ++k) {
    const Rise& r = k < rises_.size() ? rises_[k] : last_rise_;
    if (!(r.v > level)) continue;
    if (!(r.max_before > level)) return {r.t_before, r.t};  // crossed since the sample before
    // crossed after the previous recorded rise, by the sample before this one
    return {k > 0 ? rises_[k - 1].t : r.t_before, r.t_before};
  }
  return {};
}

}  // namespace internal

namespace {

// how an extremum was found: "located", "sampled", or at an event where the
// channel jumps "jump -92.37821 -> -32.45721" (the limits before and after
// it, the extremum one of them)
std::string found_as(const LocatedExtremum& e) {
  if (!e.located) return "sampled";
  // a one-sided extremum where the channel is continuous is no jump
  const bool jumps =
      std::abs(e.other_side - e.value) > 1e-9 * std::max(std::abs(e.value), std::abs(e.other_side));
  if (e.side != 0 && std::isnan(e.other_side))  // the run ended at the event
    return e.side < 0 ? "located, limit before an event" : "located, limit after an event";
  if (e.side == 0 || !jumps) return "located";
  const double before = e.side < 0 ? e.value : e.other_side;
  const double after = e.side < 0 ? e.other_side : e.value;
  return fmt::format("jump {:.7g} -> {:.7g}", before, after);
}

// the found_as of a channel's min and max, once if they agree
std::string found_as(const ChannelExtrema& e) {
  const std::string low = found_as(e.low), high = found_as(e.high);
  return low == high ? low : fmt::format("min {}, max {}", low, high);
}

}  // namespace

std::string Summary::table() const {
  std::size_t width = 7, unit_width = 4;
  for (const ChannelExtrema& e : extrema_) {
    width = std::max(width, e.name.size());
    unit_width = std::max(unit_width, e.unit.size());
  }
  std::string out =
      fmt::format("{:<{}}  {:>14}  {:>10}  {:>14}  {:>10}  {:>14}  {:<{}}  {}\n", "channel", width,
                  "min", "at t [s]", "max", "at t [s]", "final", "unit", unit_width, "extrema");
  for (const ChannelExtrema& e : extrema_)
    out += fmt::format(
        "{:<{}}  {:>14.7g}  {:>10.6g}  {:>14.7g}  {:>10.6g}  {:>14.7g}  {:<{}}  {}\n", e.name,
        width, e.min, e.t_min, e.max, e.t_max, e.final, e.unit, unit_width, found_as(e));
  return out;
}

std::vector<PeakResult> Summary::peaks() const {
  std::vector<PeakResult> out;
  for (const PeakState& p : peaks_) {
    PeakResult r = p.result;
    const SummaryPeak::Kind kind = r.peak.kind;
    r.located = kind == SummaryPeak::Kind::kMinimum   ? p.low
                : kind == SummaryPeak::Kind::kMaximum ? p.high
                : !p.low.found || (p.high.found && std::abs(p.high.value) >= std::abs(p.low.value))
                    ? p.high
                    : p.low;
    if (r.located.found && r.located.located) {
      r.found = true;
      r.value = r.located.value;
      r.t = r.located.t;
      out.push_back(std::move(r));
      continue;
    }
    r.value = r.sampled;
    r.t = r.t_sampled;
    // between samples: the vertex of the parabola through the best sample and
    // its neighbours, if equally spaced (an event's pair of samples is not:
    // there the sample just before stands, a one-sided limit) and the best
    // is a local extremum
    const double v = r.sampled;
    if (r.found && p.has_prev && p.has_next &&
        peak_score(r.peak, v) >= peak_score(r.peak, p.v_prev) &&
        peak_score(r.peak, v) >= peak_score(r.peak, p.v_next)) {
      const double h0 = r.t_sampled - p.t_prev, h1 = p.t_next - r.t_sampled;
      const double d = p.v_prev - 2.0 * v + p.v_next;
      if (h0 > 0.0 && std::abs(h0 - h1) <= 1e-9 * h1 && d != 0.0) {
        const double step = 0.5 * (p.v_prev - p.v_next) / d;  // in steps from t_sampled
        const double tv = r.t_sampled + step * h1;
        if (std::abs(step) <= 1.0 && tv >= r.peak.from && tv <= r.peak.to) {
          r.value = v - 0.25 * (p.v_prev - p.v_next) * step;
          r.t = tv;
        }
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::string Summary::peak_table() const {
  const std::vector<PeakResult> results = peaks();
  if (results.empty()) return {};
  std::size_t width = 4, cwidth = 7;
  for (const PeakResult& r : results) {
    width = std::max(width, r.peak.label.size());
    cwidth = std::max(cwidth, r.peak.channel.size());
  }
  auto bound = [](double x) {
    return std::isinf(x) ? std::string(x < 0 ? "start" : "end") : fmt::format("{:.6g}", x);
  };
  std::string out =
      fmt::format("{:<{}}  {:<{}}  {:<7}  {:>14}  {:>10}  {:<21}  {:<4}  {}\n", "peak", width,
                  "channel", cwidth, "of", "value", "at t [s]", "window [s]", "unit", "found");
  for (const PeakResult& r : results) {
    const char* kind = r.peak.kind == SummaryPeak::Kind::kMinimum   ? "min"
                       : r.peak.kind == SummaryPeak::Kind::kMaximum ? "max"
                                                                    : "max |.|";
    const std::string window = fmt::format("{} .. {}", bound(r.peak.from), bound(r.peak.to));
    if (!r.found) {
      out +=
          fmt::format("{:<{}}  {:<{}}  {:<7}  {:>14}  {:>10}  {:<21}  {}\n", r.peak.label, width,
                      r.peak.channel, cwidth, kind, "-", "-", window, "(no sample in the window)");
      continue;
    }
    const std::string how = r.located.found && r.located.located ? found_as(r.located) : "sampled";
    out += fmt::format("{:<{}}  {:<{}}  {:<7}  {:>14.8g}  {:>10.6g}  {:<21}  {:<4}  {}\n",
                       r.peak.label, width, r.peak.channel, cwidth, kind, r.value, r.t, window,
                       r.unit, how);
  }
  return out;
}

// --- ProgressBar -------------------------------------------------------------------

ProgressBar::ProgressBar(std::FILE* stream, double delay) : stream_(stream), delay_(delay) {}

void ProgressBar::on_start(System&, double t0, double t_end) {
  t0_ = t0;
  t_end_ = t_end;
  started_ = now_seconds();
  last_draw_ = 0.0;
  drawn_ = false;
}

void ProgressBar::on_sample(double t, System&) {
  draw(t);
}

void ProgressBar::on_step(double, double t1) {
  draw(t1);
}

void ProgressBar::draw(double t) {
  const double now = now_seconds();
  if (now - started_ < delay_ || now - last_draw_ < 0.1) return;
  last_draw_ = now;
  drawn_ = true;
  const double fraction = std::clamp((t - t0_) / (t_end_ - t0_), 0.0, 1.0);
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(fraction * kWidth);
  const double elapsed = now - started_;
  // at the mean rate so far (simulated seconds per wall second)
  const std::string left =
      fraction > 0.0 ? duration_text(elapsed * (1.0 - fraction) / fraction) : "unknown";
  fmt::print(stream_, "\r[{:=<{}}{:<{}}] {:5.1f}%  t = {:.6g} s  {} left   ", "", filled, "",
             kWidth - filled, 100.0 * fraction, t, left);
  std::fflush(stream_);
}

void ProgressBar::clear() {
  if (!drawn_) return;
  fmt::print(stream_, "\r{:<90}\r", "");
  std::fflush(stream_);
  last_draw_ = 0.0;  // redrawn at the next step
}

void ProgressBar::on_finish(double, bool) {
  clear();
  drawn_ = false;
}

}  // namespace ictus
