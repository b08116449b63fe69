#include "core/outcome.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <mutex>
#include <optional>

namespace kprof {
namespace {

struct Recorded {
  std::mutex mu;
  std::optional<std::pair<std::string, std::string>> report;  ///< path, JSON text
  std::optional<std::pair<std::string, std::string>> error;   ///< message, hint
};

Recorded& recorded() {
  static Recorded* r = new Recorded;  // never destroyed: read from exit paths
  return *r;
}

}  // namespace

void note_report(const std::string& path, const std::string& json_text) {
  std::lock_guard<std::mutex> lock(recorded().mu);
  recorded().report = {path, json_text};
}

void note_error(const std::string& message, const std::string& hint) {
  std::lock_guard<std::mutex> lock(recorded().mu);
  recorded().error = {message, hint};
}

std::string outcome_json(const std::string& command, int exit_code) {
  std::lock_guard<std::mutex> lock(recorded().mu);
  const Recorded& r = recorded();
  nlohmann::json j = {{"schema_version", 1}, {"kprof_version", KPROF_VERSION},
                      {"command", command},  {"exit_code", exit_code},
                      {"report", nullptr},   {"error", nullptr}};
  if (r.report) {
    nlohmann::json content = nlohmann::json::parse(r.report->second, nullptr, /*allow_exceptions=*/false);
    j["report"] = {{"path", r.report->first}, {"content", content}};
  }
  if (r.error) j["error"] = {{"message", r.error->first}, {"hint", r.error->second}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

bool write_outcome(const std::string& file, const std::string& command, int exit_code) {
  const std::string text = outcome_json(command, exit_code);
  const std::string tmp = file + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) return false;
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fclose(f) == 0 && ok;
  return ok && std::rename(tmp.c_str(), file.c_str()) == 0;
}

void reset_outcome() {
  std::lock_guard<std::mutex> lock(recorded().mu);
  recorded().report.reset();
  recorded().error.reset();
}

}  // namespace kprof
