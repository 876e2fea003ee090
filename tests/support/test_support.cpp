#include "support/test_support.h"

#include "ictus/system.h"

#include <fmt/format.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

namespace ictus::test {

std::string source_path(const std::string& relative) {
  return std::string(ICTUS_SOURCE_DIR) + "/" + relative;
}

std::string reference_path(const std::string& relative) {
  return std::string(ICTUS_REFERENCE_DIR) + "/" + relative;
}

std::vector<std::string> bundled_model_names() {
  std::vector<std::string> names;
  for (const char* folder : {"examples", "tests/models"})
    for (const auto& entry : std::filesystem::directory_iterator(source_path(folder)))
      if (entry.path().extension() == ".yaml")
        names.push_back(std::string(folder) + "/" + entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string ModelTestName::name(const std::string& model) {
  std::string out = model;
  std::replace(out.begin(), out.end(), '/', '_');
  return out;
}

const std::vector<double>& RecordedRun::operator[](const std::string& channel) const {
  for (std::size_t k = 0; k < channels.size(); ++k)
    if (channels[k] == channel) return values[k];
  throw std::out_of_range(fmt::format("channel '{}' was not recorded", channel));
}

double RecordedRun::final(const std::string& channel) const {
  return (*this)[channel].back();
}

double RecordedRun::max_abs(const std::string& channel) const {
  double m = 0.0;
  for (double v : (*this)[channel]) m = std::max(m, std::abs(v));
  return m;
}

double channel_now(Simulation& simulation, const std::string& name) {
  System& system = simulation.system();
  const int k = system.find_channel(name);
  if (k < 0) throw std::invalid_argument("channel_now: no channel " + name);
  system.evaluate(simulation.time(), simulation.state(), Stage::kDynamics);
  return system.channel_value(k);
}

RecordedRun run_and_record(const Model& model, const std::vector<std::string>& channels) {
  Simulation simulation(model);
  Recorder recorder(channels);
  simulation.add_observer(recorder);
  RecordedRun out;
  out.stats = simulation.run();
  out.t = recorder.times();
  out.channels = channels;
  for (const std::string& c : channels) out.values.push_back(recorder.series(c));
  out.events = simulation.events();
  return out;
}

std::vector<double> upward_zero_crossings(const std::vector<double>& t,
                                          const std::vector<double>& series) {
  std::vector<double> out;
  for (std::size_t i = 1; i < t.size(); ++i)
    if (series[i - 1] < 0.0 && series[i] >= 0.0)
      out.push_back(t[i - 1] + (t[i] - t[i - 1]) * (-series[i - 1]) / (series[i] - series[i - 1]));
  return out;
}

double relative_error(double a, double b, double floor) {
  return std::abs(a - b) / std::max(std::abs(b), floor);
}

double elliptic_k(double m) {
  // K(m) = pi / (2 AGM(1, sqrt(1 - m)))
  double a = 1.0;
  double b = std::sqrt(1.0 - m);
  for (int i = 0; i < 40 && std::abs(a - b) > 1e-16 * a; ++i) {
    const double an = 0.5 * (a + b);
    b = std::sqrt(a * b);
    a = an;
  }
  return std::acos(-1.0) / (2.0 * a);
}

double accumulation_point(const EventRecord& record) {
  const std::string key = "at t_inf = ";
  const auto at = record.detail.find(key);
  if (at == std::string::npos) return std::nan("");
  return std::stod(record.detail.substr(at + key.size()));
}

void expect_checkpoint_continues_bitwise(const Model& model, Simulation& original,
                                         const Recorder& in_place) {
  const auto checkpoint = original.save();
  const std::size_t first_after = in_place.size();  // samples up to the save
  original.run();

  Simulation copy(model);
  Recorder restored(in_place.channels());
  copy.add_observer(restored);
  copy.restore(*checkpoint);
  copy.run();

  ASSERT_GT(restored.size(), 0u);
  ASSERT_EQ(restored.size(), in_place.size() - first_after);
  const auto tail = [first_after](const std::vector<double>& v) {
    return std::vector<double>(v.begin() + static_cast<std::ptrdiff_t>(first_after), v.end());
  };
  EXPECT_EQ(restored.times(), tail(in_place.times()));
  for (const std::string& name : in_place.channels())
    EXPECT_EQ(restored.series(name), tail(in_place.series(name))) << name;
  EXPECT_EQ(copy.events().size(), original.events().size());
  EXPECT_EQ(copy.state(), original.state());
}

}  // namespace ictus::test
