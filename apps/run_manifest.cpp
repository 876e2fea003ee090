#include "run_manifest.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <ctime>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace ictus::cli {

namespace fs = std::filesystem;

std::string sha256_of_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read '{}'", path.string()));
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(),
                                                                    EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 is not available");
  std::array<char, 1 << 16> buffer{};
  while (in) {
    in.read(buffer.data(), buffer.size());
    if (in.gcount() > 0)
      EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  EVP_DigestFinal_ex(ctx.get(), digest.data(), &size);
  std::string hex;
  for (unsigned int k = 0; k < size; ++k) hex += fmt::format("{:02x}", digest[k]);
  return hex;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text.data();
}

namespace {

using Json = nlohmann::ordered_json;

// run.json.partial renamed to run.json: the manifest is replaced whole
void write_whole(const fs::path& directory, const Json& j) {
  const fs::path tmp = directory / "run.json.partial";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << j.dump(2) << '\n';
    f.flush();
    if (!f) throw std::runtime_error(fmt::format("cannot write '{}'", tmp.string()));
  }
  fs::rename(tmp, directory / "run.json");
}

// JSON has no inf or NaN: those become null
Json number(double v) {
  return std::isfinite(v) ? Json(v) : Json(nullptr);
}

}  // namespace

std::string json_string(const std::string& text) {
  return Json(text).dump();
}

std::vector<ManifestFile> files_beside_manifest(const fs::path& directory) {
  std::vector<ManifestFile> files;
  for (const fs::directory_entry& e : fs::directory_iterator(directory)) {
    const std::string name = e.path().filename().string();
    if (name == "run.json" || name == "run.json.partial" || !e.is_regular_file()) continue;
    files.push_back({name, e.file_size()});
  }
  std::sort(files.begin(), files.end(),
            [](const ManifestFile& a, const ManifestFile& b) { return a.name < b.name; });
  return files;
}

void RunManifest::write(const fs::path& directory) const {
  Json j;
  j["ictus_version"] = ictus_version;
  j["status"] = status;
  j["exit_status"] = exit_status;
  if (!message.empty()) j["message"] = message;
  j["model"] = {{"file", model_file}, {"sha256", model_sha256}};
  j["arguments"] = arguments;
  j["settings"] = settings;
  j["parameters_set"] = Json::object();
  for (const auto& [name, value] : parameters_set) j["parameters_set"][name] = value;
  j["started"] = started;
  j["ended"] = ended;
  j["simulated_until"] = number(simulated_until);
  j["steps"] = steps;
  j["events"] = events;
  Json audit = {{"error", number(energy_audit.error)},
                {"relative", number(energy_audit.relative)},
                {"tolerance", number(energy_audit.tolerance)},
                {"passed", energy_audit.passed},
                {"dissipation_fall", number(energy_audit.fall)},
                {"dissipation_fall_relative", number(energy_audit.fall_relative)}};
  if (!energy_audit.balance_passed)
    audit["exceeded_between"] = {number(energy_audit.from), number(energy_audit.to)};
  if (!energy_audit.fall_passed)
    audit["fell_between"] = {number(energy_audit.fall_from), number(energy_audit.fall_to)};
  j["energy_audit"] = audit;
  j["files"] = Json::array();
  for (const ManifestFile& f : files_beside_manifest(directory))
    j["files"].push_back({{"name", f.name}, {"bytes", f.bytes}});

  write_whole(directory, j);
}

namespace {

// DIR/run.json parsed; std::runtime_error with line:column on a syntax error
Json parse_manifest(const fs::path& directory) {
  const fs::path path = directory / "run.json";
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read '{}'", path.string()));
  try {
    return Json::parse(in);
  } catch (const Json::parse_error& e) {
    // e.byte is the offset of the error; say it as line:column
    std::ifstream again(path, std::ios::binary);
    std::size_t line = 1, column = 1;
    for (std::size_t k = 1; k < e.byte && again; ++k) {
      const int c = again.get();
      if (c == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw std::runtime_error(fmt::format("{}:{}:{}: not a valid run.json (a JSON syntax error)",
                                         path.string(), line, column));
  }
}

}  // namespace

ManifestListing read_manifest(const fs::path& directory) {
  const Json j = parse_manifest(directory);
  ManifestListing listing;
  const auto add = [&listing](const Json& files) {
    for (const Json& f : files)
      listing.files.push_back(
          {f.at("name").get<std::string>(), f.at("bytes").get<std::uintmax_t>()});
  };
  try {
    listing.status = j.at("status").get<std::string>();
    add(j.at("files"));
    if (j.contains("derived")) add(j.at("derived"));
    if (j.contains("model")) {
      const Json& model = j.at("model");
      if (model.contains("file")) listing.model_file = model.at("file").get<std::string>();
      if (model.contains("sha256")) listing.model_sha256 = model.at("sha256").get<std::string>();
    }
    if (j.contains("parameters_set")) {
      const Json& sets = j.at("parameters_set");
      for (auto it = sets.begin(); it != sets.end(); ++it)
        listing.parameters_set.emplace_back(it.key(), it.value().get<std::string>());
    }
  } catch (const Json::exception&) {
    throw std::runtime_error(fmt::format(
        "{}: not a run.json of ictus (it needs \"status\" and \"files\" with a name and bytes "
        "each)",
        (directory / "run.json").string()));
  }
  std::sort(listing.files.begin(), listing.files.end(),
            [](const ManifestFile& a, const ManifestFile& b) { return a.name < b.name; });
  listing.text = j.dump(2);
  return listing;
}

void record_derived_file(const fs::path& directory, const std::string& name,
                         const std::string& command) {
  Json j = parse_manifest(directory);
  const std::uintmax_t bytes = fs::file_size(directory / name);
  for (Json& f : j.at("files"))
    if (f.value("name", "") == name) {
      f["bytes"] = bytes;  // a file of the set, written again
      write_whole(directory, j);
      return;
    }
  if (!j.contains("derived")) j["derived"] = Json::array();
  Json& derived = j["derived"];
  for (auto it = derived.begin(); it != derived.end();)
    it = it->value("name", "") == name ? derived.erase(it) : it + 1;
  derived.push_back(
      {{"name", name}, {"bytes", bytes}, {"command", command}, {"written", utc_now()}});
  write_whole(directory, j);
}

std::vector<std::string> manifest_mismatches(const ManifestListing& listing,
                                             const std::vector<ManifestFile>& present) {
  std::vector<std::string> out;
  for (const ManifestFile& listed : listing.files) {
    const auto it = std::find_if(present.begin(), present.end(),
                                 [&](const ManifestFile& p) { return p.name == listed.name; });
    if (it == present.end())
      out.push_back(fmt::format("{} is missing", listed.name));
    else if (it->bytes != listed.bytes)
      out.push_back(
          fmt::format("{} is {} bytes, run.json lists {}", listed.name, it->bytes, listed.bytes));
  }
  for (const ManifestFile& p : present) {
    const bool listed = std::any_of(listing.files.begin(), listing.files.end(),
                                    [&](const ManifestFile& f) { return f.name == p.name; });
    if (!listed) out.push_back(fmt::format("{} is not listed", p.name));
  }
  return out;
}

}  // namespace ictus::cli
