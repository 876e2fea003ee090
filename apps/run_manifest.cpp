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

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += fmt::format("\\u{:04x}", static_cast<int>(c));
        else
          out += c;
    }
  }
  return out + "\"";
}

namespace {

// a JSON number (JSON has no inf or NaN: those become null)
std::string number(double v) {
  return std::isfinite(v) ? fmt::format("{}", v) : "null";
}

}  // namespace

void RunManifest::write(const fs::path& directory) const {
  std::vector<std::pair<std::string, std::uintmax_t>> files;
  for (const fs::directory_entry& e : fs::directory_iterator(directory)) {
    const std::string name = e.path().filename().string();
    if (name == "run.json" || name == "run.json.partial" || !e.is_regular_file()) continue;
    files.emplace_back(name, e.file_size());
  }
  std::sort(files.begin(), files.end());

  std::string j = "{\n";
  j += fmt::format("  \"ictus_version\": {},\n", json_string(ictus_version));
  j += fmt::format("  \"status\": {},\n", json_string(status));
  j += fmt::format("  \"exit_status\": {},\n", exit_status);
  if (!message.empty()) j += fmt::format("  \"message\": {},\n", json_string(message));
  j += fmt::format("  \"model\": {{\"file\": {}, \"sha256\": {}}},\n", json_string(model_file),
                   json_string(model_sha256));
  std::string args;
  for (const std::string& a : arguments) args += (args.empty() ? "" : ", ") + json_string(a);
  j += fmt::format("  \"arguments\": [{}],\n", args);
  std::string set;
  for (const auto& [k, v] : settings)
    set += fmt::format("{}\"{}\": {}", set.empty() ? "" : ", ", k, v);
  j += fmt::format("  \"settings\": {{{}}},\n", set);
  std::string params;
  for (const auto& [k, v] : parameters_set)
    params += fmt::format("{}{}: {}", params.empty() ? "" : ", ", json_string(k), json_string(v));
  j += fmt::format("  \"parameters_set\": {{{}}},\n", params);
  j += fmt::format("  \"started\": {},\n  \"ended\": {},\n", json_string(started),
                   json_string(ended));
  j += fmt::format("  \"simulated_until\": {},\n  \"steps\": {},\n  \"events\": {},\n",
                   number(simulated_until), steps, events);
  j += fmt::format(
      "  \"energy_audit\": {{\"error\": {}, \"relative\": {}, \"tolerance\": {}, \"passed\": {}",
      number(energy_audit.error), number(energy_audit.relative), number(energy_audit.tolerance),
      energy_audit.passed ? "true" : "false");
  if (!energy_audit.passed)
    j += fmt::format(", \"exceeded_between\": [{}, {}]", number(energy_audit.from),
                     number(energy_audit.to));
  j += "},\n  \"files\": [";
  for (std::size_t k = 0; k < files.size(); ++k)
    j += fmt::format("{}\n    {{\"name\": {}, \"bytes\": {}}}", k == 0 ? "" : ",",
                     json_string(files[k].first), files[k].second);
  j += files.empty() ? "]\n}\n" : "\n  ]\n}\n";

  const fs::path tmp = directory / "run.json.partial";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << j;
    f.flush();
    if (!f) throw std::runtime_error(fmt::format("cannot write '{}'", tmp.string()));
  }
  fs::rename(tmp, directory / "run.json");
}

}  // namespace ictus::cli
