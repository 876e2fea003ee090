#include "report_page.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <stdexcept>

#include "../run_manifest.h"
#include "csv_table.h"
#include "decimation.h"
#include "ictus/shape.h"
#include "report_assets.h"

namespace ictus::cli {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxSeriesPerPlot = 8;

// a JSON number; JSON has no inf or NaN
std::string num(double v) {
  return std::isfinite(v) ? fmt::format("{}", v) : "null";
}

std::string vec(const Vec3& v) {
  return fmt::format("[{},{},{}]", num(v.x()), num(v.y()), num(v.z()));
}

std::string quat(const Quat& q) {
  return fmt::format("[{},{},{},{}]", num(q.w()), num(q.x()), num(q.y()), num(q.z()));
}

// doubles as base64 of their little-endian bytes (a Float64Array in the page)
std::string base64_doubles(const std::vector<double>& values) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
  const std::size_t size = values.size() * sizeof(double);
  std::string out(4 * ((size + 2) / 3) + 1, '\0');
  const int written =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), bytes, static_cast<int>(size));
  out.resize(static_cast<std::size_t>(std::max(written, 0)));
  return "\"" + out + "\"";
}

std::vector<double> pick(const std::vector<double>& column, const std::vector<std::size_t>& rows) {
  std::vector<double> out(rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) out[k] = column[rows[k]];
  return out;
}

// results.csv, or the incomplete one of a run that did not complete
fs::path set_file(const fs::path& dir, const std::string& stem, bool& complete) {
  complete = fs::exists(dir / (stem + ".csv"));
  return complete ? dir / (stem + ".csv") : dir / (stem + ".incomplete.csv");
}

std::string unit_of(const System& system, const std::string& channel) {
  const int k = system.find_channel(channel);
  return k >= 0 ? system.channel_info(k).unit : std::string();
}

bool plottable(const std::vector<double>& column) {
  if (column.size() < 2) return false;
  const auto [lo, hi] = std::minmax_element(column.begin(), column.end());
  return std::isfinite(*lo) && std::isfinite(*hi) && *lo != *hi;
}

// A uniform box of the body's mass and inertia: half extents along the
// principal axes, J_i = m/3 (b_j^2 + b_k^2) solved for b.
std::string inertia_box(const Body& body) {
  if (body.point_mass) return "null";
  const Eigen::SelfAdjointEigenSolver<Mat3> eig(body.inertia);
  Mat3 axes = eig.eigenvectors();
  if (axes.determinant() < 0.0) axes.col(2) = -axes.col(2);
  const Vec3 J = eig.eigenvalues();
  Vec3 half;
  for (int i = 0; i < 3; ++i) {
    const double sq = 1.5 * (J((i + 1) % 3) + J((i + 2) % 3) - J(i)) / body.mass;
    half(i) = std::sqrt(std::max(sq, 0.0));
  }
  // a flat body (triangle equality) keeps a visible thickness
  const double floor = 0.02 * half.maxCoeff();
  for (int i = 0; i < 3; ++i) half(i) = std::max(half(i), floor);
  return fmt::format("{{\"half\":{},\"q\":{}}}", vec(half), quat(Quat(axes)));
}

std::string shape_json(const Shape& s) {
  return fmt::format(
      "{{\"name\":{},\"type\":\"{}\",\"center\":{},\"radius\":{},\"half_extents\":{},"
      "\"half_length\":{},\"axis\":{},\"normal\":{}}}",
      json_string(s.name), shape_type_name(s.type), vec(s.center_B), num(s.radius),
      vec(s.half_extents), num(s.half_length), vec(s.axis_B), vec(s.normal_B));
}

std::string frame_json(const Frame& f) {
  return fmt::format("{{\"origin\":{},\"q\":{}}}", vec(f.origin), quat(Quat(f.axes)));
}

// bodies, shapes, joints and markers: what the animation draws
std::string geometry_json(const Model& model) {
  std::string bodies;
  for (const Body& b : model.bodies())
    bodies += fmt::format("{}{{\"name\":{},\"mass\":{},\"box\":{}}}", bodies.empty() ? "" : ",",
                          json_string(b.name), num(b.mass), inertia_box(b));
  std::string shapes;
  for (const Shape& s : model.shapes())
    shapes += fmt::format("{}{{\"body\":{},\"shape\":{}}}", shapes.empty() ? "" : ",", s.body,
                          shape_json(s));
  std::string joints;
  for (const Joint& j : model.joints())
    joints += fmt::format(
        "{}{{\"name\":{},\"type\":{},\"base\":{},\"follower\":{},\"frame_base\":{},"
        "\"frame_follower\":{}}}",
        joints.empty() ? "" : ",", json_string(j.name), json_string(j.type), j.base, j.follower,
        frame_json(j.frame_base), frame_json(j.frame_follower));
  std::string markers;
  for (const Marker& m : model.markers())
    markers += fmt::format("{}{{\"name\":{},\"body\":{},\"point\":{}}}", markers.empty() ? "" : ",",
                           json_string(m.name), m.body, vec(m.point_B));
  return fmt::format("\"bodies\":[{}],\"shapes\":[{}],\"joints\":[{}],\"markers\":[{}]", bodies,
                     shapes, joints, markers);
}

// events grouped by instant (the end line of the log is the run's end, not an event)
std::string events_json(const std::vector<EventLine>& lines, std::vector<double>& times) {
  std::string out;
  std::size_t k = 0;
  while (k < lines.size()) {
    if (lines[k].kind == "end" || lines[k].kind == "incomplete") {
      ++k;
      continue;
    }
    const double t = lines[k].t;
    std::string records;
    for (; k < lines.size() && lines[k].t == t; ++k) {
      if (lines[k].kind == "end" || lines[k].kind == "incomplete") continue;
      records += fmt::format("{}{{\"kind\":{},\"name\":{},\"detail\":{}}}",
                             records.empty() ? "" : ",", json_string(lines[k].kind),
                             json_string(lines[k].name), json_string(lines[k].detail));
    }
    times.push_back(t);
    out += fmt::format("{}{{\"t\":{},\"records\":[{}]}}", out.empty() ? "" : ",", num(t), records);
  }
  std::sort(times.begin(), times.end());
  return "[" + out + "]";
}

std::string how_found(const LocatedExtremum& e) {
  if (e.found && e.side != 0)
    return fmt::format("jump {} -> {}", e.side < 0 ? num(e.value) : num(e.other_side),
                       e.side < 0 ? num(e.other_side) : num(e.value));
  return e.found && e.located ? "located" : "sampled";
}

std::string extrema_json(const NumberTable& results, const ReportSources& src) {
  std::string out;
  for (std::size_t c = 1; c < results.names.size(); ++c) {
    const std::string& name = results.names[c];
    const std::vector<double>& v = results.columns[c];
    if (v.empty()) continue;
    const ChannelExtrema* located = nullptr;
    if (src.located != nullptr)
      for (const ChannelExtrema& e : *src.located)
        if (e.name == name) located = &e;
    double lo = 0, t_lo = 0, hi = 0, t_hi = 0;
    std::string how_lo = "sampled", how_hi = "sampled";
    if (located != nullptr) {
      lo = located->min, t_lo = located->t_min, hi = located->max, t_hi = located->t_max;
      how_lo = how_found(located->low);
      how_hi = how_found(located->high);
    } else {
      const auto [a, b] = std::minmax_element(v.begin(), v.end());
      lo = *a, hi = *b;
      t_lo = results.columns[0][static_cast<std::size_t>(a - v.begin())];
      t_hi = results.columns[0][static_cast<std::size_t>(b - v.begin())];
    }
    out += fmt::format(
        "{}{{\"name\":{},\"unit\":{},\"min\":{},\"t_min\":{},\"how_min\":{},\"max\":{},"
        "\"t_max\":{},\"how_max\":{},\"final\":{}}}",
        out.empty() ? "" : ",", json_string(name), json_string(unit_of(*src.system, name)), num(lo),
        num(t_lo), json_string(how_lo), num(hi), num(t_hi), json_string(how_hi), num(v.back()));
  }
  return "[" + out + "]";
}

// The run's spectra (summary: spectra:), each at most `max_points` points:
// where there are more bins, each group of bins keeps its largest, so no
// peak is lost.
std::string spectra_json(const ReportSources& src, std::size_t max_points) {
  std::string out;
  if (src.spectra != nullptr)
    for (const SpectrumResult& r : *src.spectra) {
      if (!r.found) continue;
      const std::vector<double>& f = r.spectrum.frequency;
      const std::vector<double>& a = r.spectrum.amplitude;
      const std::size_t group = std::max<std::size_t>(1, (f.size() + max_points - 1) / max_points);
      std::vector<double> fk, ak;
      for (std::size_t k = 0; k < f.size(); k += group) {
        const auto end = a.begin() + static_cast<std::ptrdiff_t>(std::min(k + group, a.size()));
        const auto best = std::max_element(a.begin() + static_cast<std::ptrdiff_t>(k), end);
        fk.push_back(f[static_cast<std::size_t>(best - a.begin())]);
        ak.push_back(*best);
      }
      std::string peaks;
      for (const SpectralPeak& p : r.peaks)
        peaks += fmt::format("{}{{\"frequency\":{},\"amplitude\":{}}}", peaks.empty() ? "" : ",",
                             num(p.frequency), num(p.amplitude));
      out += fmt::format(
          "{}{{\"label\":{},\"channel\":{},\"unit\":{},\"from\":{},\"to\":{},"
          "\"resolution\":{},\"bins\":{},\"frequency\":{},\"amplitude\":{},"
          "\"peaks\":[{}]}}",
          out.empty() ? "" : ",", json_string(r.request.label), json_string(r.request.channel),
          json_string(r.unit), num(r.from), num(r.to), num(r.spectrum.resolution), f.size(),
          base64_doubles(fk), base64_doubles(ak), peaks);
    }
  return "[" + out + "]";
}

// One plot of some columns (all of one unit), decimated.
std::string plot_json(const std::string& title, const std::string& unit, const NumberTable& table,
                      const std::vector<int>& columns, const std::vector<char>& at_event,
                      std::size_t max_points) {
  std::vector<const std::vector<double>*> data;
  for (const int c : columns) data.push_back(&table.columns[static_cast<std::size_t>(c)]);
  const std::vector<std::size_t> rows = plot_rows(table.columns[0], data, at_event, max_points);
  std::string series;
  for (const int c : columns)
    series += fmt::format("{}{{\"name\":{},\"y\":{}}}", series.empty() ? "" : ",",
                          json_string(table.names[static_cast<std::size_t>(c)]),
                          base64_doubles(pick(table.columns[static_cast<std::size_t>(c)], rows)));
  return fmt::format("{{\"title\":{},\"unit\":{},\"rows\":{},\"x\":{},\"series\":[{}]}}",
                     json_string(title), json_string(unit), table.rows(),
                     base64_doubles(pick(table.columns[0], rows)), series);
}

// the time histories by unit (energy.* on their own), and the constants
std::string plots_json(const NumberTable& results, const System& system,
                       const std::vector<char>& at_event, std::size_t max_points) {
  std::vector<std::string> units;
  std::map<std::string, std::vector<int>> by_unit;
  std::vector<int> energy;
  std::string constants;
  for (std::size_t c = 1; c < results.names.size(); ++c) {
    const std::string& name = results.names[c];
    const std::string unit = unit_of(system, name);
    if (!plottable(results.columns[c])) {
      const double value = results.columns[c].empty() ? std::nan("") : results.columns[c][0];
      constants +=
          fmt::format("{}{{\"name\":{},\"unit\":{},\"value\":{}}}", constants.empty() ? "" : ",",
                      json_string(name), json_string(unit), num(value));
      continue;
    }
    if (name.rfind("energy.", 0) == 0) {
      energy.push_back(static_cast<int>(c));
      continue;
    }
    if (by_unit.find(unit) == by_unit.end()) units.push_back(unit);
    by_unit[unit].push_back(static_cast<int>(c));
  }
  std::string plots;
  auto add = [&](const std::string& title, const std::string& unit, const std::vector<int>& cs) {
    if (!plots.empty()) plots += ',';
    plots += plot_json(title, unit, results, cs, at_event, max_points);
  };
  if (!energy.empty()) add("energy audit", "J", energy);
  for (const std::string& unit : units) {
    const std::vector<int>& cs = by_unit[unit];
    const std::size_t parts = (cs.size() + kMaxSeriesPerPlot - 1) / kMaxSeriesPerPlot;
    for (std::size_t p = 0; p < parts; ++p) {
      const auto first = cs.begin() + static_cast<std::ptrdiff_t>(p * kMaxSeriesPerPlot);
      const auto last = cs.begin() + static_cast<std::ptrdiff_t>(
                                         std::min(cs.size(), (p + 1) * kMaxSeriesPerPlot));
      const std::string title =
          fmt::format("{}{}", unit.empty() ? std::string("no unit") : unit,
                      parts > 1 ? fmt::format(" ({} of {})", p + 1, parts) : std::string());
      add(title, unit, std::vector<int>(first, last));
    }
  }
  return fmt::format("\"plots\":[{}],\"constants\":[{}]", plots, constants);
}

// the body poses at the kept rows: per row, per body, x y z qw qx qy qz
std::string poses_json(const NumberTable& poses, const Model& model,
                       const std::vector<char>& at_event, std::size_t budget,
                       const std::string& source) {
  const std::size_t n_bodies = model.bodies().size();
  if (n_bodies == 0 || poses.rows() == 0)
    return fmt::format(
        "\"poses\":null,\"poses_note\":{}",
        json_string(n_bodies == 0 ? "the model has no bodies" : source + " holds no samples"));
  std::vector<int> columns;
  for (const std::string& name : pose_channels(model)) {
    const int c = poses.find(name);
    if (c < 0)
      return fmt::format(
          "\"poses\":null,\"poses_note\":{}",
          json_string(fmt::format("{} does not hold the body poses ({} is missing): run with "
                                  "--report to record them in poses.csv",
                                  source, name)));
    columns.push_back(c);
  }
  const std::vector<std::size_t> rows = animation_rows(poses.rows(), n_bodies, at_event, budget);
  std::vector<double> values;
  values.reserve(rows.size() * columns.size());
  for (const std::size_t r : rows)
    for (const int c : columns) values.push_back(poses.columns[static_cast<std::size_t>(c)][r]);
  return fmt::format("\"poses\":{{\"rows\":{},\"t\":{},\"values\":{}}},\"poses_source\":{}",
                     poses.rows(), base64_doubles(pick(poses.columns[0], rows)),
                     base64_doubles(values), json_string(source));
}

// JSON put inside <script>: no "</script" or "<!--" may end or change it.
// '<' occurs only inside JSON strings, where \u003c is the same character.
std::string safe_in_script(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (const char c : json) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

std::string html_text(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::vector<std::string> pose_channels(const Model& model) {
  std::vector<std::string> names;
  for (const Body& b : model.bodies())
    for (const char* c : {"x", "y", "z", "qw", "qx", "qy", "qz"})
      names.push_back(fmt::format("{}.{}", b.name, c));
  return names;
}

void write_report(const fs::path& dir, const ReportSources& src, const ReportLimits& limits) {
  if (!report_available()) throw std::runtime_error(report_unavailable_message());
  bool complete = false;
  const fs::path results_path = set_file(dir, "results", complete);
  if (!fs::exists(results_path))
    throw std::runtime_error(fmt::format(
        "'{}' holds no results (neither results.csv nor results.incomplete.csv)", dir.string()));
  const NumberTable results = read_number_table(results_path);
  std::vector<double> event_times;
  const fs::path events_path = dir / "events.csv";
  const std::string events = fs::exists(events_path)
                                 ? events_json(read_event_lines(events_path), event_times)
                                 : std::string("[]");

  bool poses_complete = false;
  const fs::path poses_path = set_file(dir, "poses", poses_complete);
  const bool have_poses = fs::exists(poses_path);
  const NumberTable poses = have_poses ? read_number_table(poses_path) : NumberTable{};
  const NumberTable& pose_table = have_poses ? poses : results;

  std::string data = "{";
  data += fmt::format("\"title\":{},\"complete\":{},\"results_file\":{},",
                      json_string(src.model->name()), complete ? "true" : "false",
                      json_string(results_path.filename().string()));
  data += fmt::format("\"manifest\":{},",
                      src.manifest_json.empty() ? std::string("null") : src.manifest_json);
  const double t0 = results.rows() > 0 ? results.columns[0].front() : 0.0;
  const double t1 = results.rows() > 0 ? results.columns[0].back() : 0.0;
  data += fmt::format("\"t0\":{},\"t1\":{},\"samples\":{},", num(t0), num(t1), results.rows());
  data += fmt::format("\"events\":{},", events);
  data += plots_json(results, *src.system, event_rows(results.columns[0], event_times),
                     limits.plot_points) +
          ",";
  data += fmt::format("\"extrema\":{},\"extrema_located\":{},", extrema_json(results, src),
                      src.located != nullptr ? "true" : "false");
  data += fmt::format("\"spectra\":{},", spectra_json(src, limits.plot_points));
  data += geometry_json(*src.model) + ",";
  data += poses_json(
      pose_table, *src.model,
      event_rows(pose_table.columns.empty() ? std::vector<double>{} : pose_table.columns[0],
                 event_times),
      limits.animation_values, (have_poses ? poses_path : results_path).filename().string());
  data += "}";

  std::string page;
  page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page += fmt::format("<title>ictus report: {}</title>\n", html_text(src.model->name()));
  page += "<style>\n" + report_style() + "\n</style>\n</head>\n<body>\n";
  page += "<div id=\"app\"></div>\n";
  page +=
      "<script type=\"application/json\" id=\"ictus-data\">" + safe_in_script(data) + "</script>\n";
  page += "<script>\n" + report_script() + "\n</script>\n</body>\n</html>\n";

  const fs::path tmp = dir / "report.html.partial";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << page;
    f.flush();
    if (!f) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw std::runtime_error(fmt::format("cannot write '{}'", tmp.string()));
    }
  }
  fs::rename(tmp, dir / "report.html");
}

}  // namespace ictus::cli
