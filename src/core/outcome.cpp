#include "core/outcome.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>

namespace kprof {
namespace {

struct Recorded {
  std::mutex mu;
  std::optional<std::pair<std::string, std::string>> report;  ///< path, JSON text
  std::optional<std::pair<std::string, std::string>> error;   ///< message, hint
  nlohmann::json results;                                     ///< an internal child's results
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

void note_results(const nlohmann::json& results) {
  std::lock_guard<std::mutex> lock(recorded().mu);
  recorded().results = results;
}

std::string outcome_json(const std::string& command, int exit_code) {
  std::lock_guard<std::mutex> lock(recorded().mu);
  const Recorded& r = recorded();
  nlohmann::json j = {{"schema_version", 1}, {"kprof_version", KPROF_VERSION},
                      {"command", command},  {"exit_code", exit_code},
                      {"report", nullptr},   {"error", nullptr},
                      {"results", r.results}};
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

bool checkpoint_outcome(const std::string& command) {
  const char* file = std::getenv(kOutcomeFileVar);
  return file && *file && write_outcome(file, command, -1);
}

void reset_outcome() {
  std::lock_guard<std::mutex> lock(recorded().mu);
  recorded().report.reset();
  recorded().error.reset();
  recorded().results = nullptr;
}

ChildOutcome read_outcome(const std::string& file) {
  ChildOutcome o;
  std::FILE* f = std::fopen(file.c_str(), "r");
  if (!f) {
    o.problem = "no outcome document " + file + " (the child ended before it wrote one)";
    return o;
  }
  std::string text;
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  std::fclose(f);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto it = j.is_object() ? j.find("exit_code") : j.end();
  if (j.is_discarded() || !j.is_object() || it == j.end() || !it->is_number_integer()) {
    o.problem = "the outcome document " + file + " is not one (no exit code)";
    return o;
  }
  o.found = true;
  o.exit_code = it->get<int>();
  auto str = [](const nlohmann::json& v, const char* key) {
    auto k = v.find(key);
    return k != v.end() && k->is_string() ? k->get<std::string>() : std::string();
  };
  o.command = str(j, "command");
  if (auto r = j.find("report"); r != j.end() && r->is_object()) {
    o.report_path = str(*r, "path");
    o.report = r->value("content", nlohmann::json());
  }
  if (auto e = j.find("error"); e != j.end() && e->is_object()) {
    o.error = str(*e, "message");
    o.hint = str(*e, "hint");
  }
  o.results = j.value("results", nlohmann::json());
  return o;
}

}  // namespace kprof
