#include "stages/ncu/session.hpp"

#include <fmt/format.h>

#include <set>
#include <sstream>
#include <string_view>

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/enum_names.hpp"

namespace kprof {
namespace {

constexpr const char* kMarkPrefix = "==KPROF== session ";

/// The names of SessionState (core/enum_names.hpp).
constexpr auto kSessionStateWords = enum_names<SessionState>({{SessionState::Done, "done"},
                                                              {SessionState::Skipped, "skipped"},
                                                              {SessionState::Failed, "failed"},
                                                              {SessionState::NotReached, "not-reached"}},
                                                             "not-reached");

const char* state_word(SessionState s) { return kSessionStateWords.name(s); }

std::string no_spaces(std::string s) {
  std::string out;
  for (char c : s)
    if (c != ' ') out += c;
  return out;
}

/// Whether `got` (ncu's names) match `want` (CUPTI's) one by one; "" or what differs.
std::string compare_names(const std::vector<std::string>& want, const std::vector<std::string>& got) {
  if (want.size() != got.size())
    return fmt::format("ncu profiled {} kernel(s) where its timed calls launched {}", got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    if (!same_kernel_name(want[i], got[i]))
      return fmt::format("ncu's kernel {} is {}, where its timed calls launched {}", i + 1, display_kernel_name(got[i]),
                         display_kernel_name(want[i]));
  return "";
}

std::string state_reason(SessionState s) {
  if (s == SessionState::Skipped) return "the session's runner could not prepare it (see the session log)";
  if (s == SessionState::Failed) return "it failed inside its profiled range in the session";
  return "the session's runner stopped before it (crashed, hung or lost the GPU context)";
}

SessionSplit split_by_range(const std::vector<SessionRow>& rows, const std::vector<SessionVersion>& versions) {
  SessionSplit s;
  s.method = "NVTX ranges";
  for (const auto& v : versions) {
    std::vector<int> ids;
    std::vector<std::string> names;
    for (const auto& r : rows)
      if (r.range == session_range_name(v.name)) {
        ids.push_back(r.id);
        names.push_back(r.name);
      }
    std::string why;
    if (v.state != SessionState::Done)
      why = state_reason(v.state);
    else if (v.kernels.empty())
      why = "its timed calls launched no kernel that CUPTI saw";
    else
      why = compare_names(v.kernels, names);
    s.ids.push_back(why.empty() ? ids : std::vector<int>{});
    s.why_not.push_back(why);
  }
  return s;
}

SessionSplit split_in_order(const std::vector<SessionRow>& rows, const std::vector<SessionVersion>& versions) {
  SessionSplit s;
  s.method = "launch order (kernel counts and names from CUPTI)";
  size_t cursor = 0;
  std::string stop;  // set once the order can no longer be trusted: this and every later version fall back
  bool all_done = true;
  for (const auto& v : versions) {
    std::vector<int> ids;
    std::string why = stop;
    if (why.empty() && v.state == SessionState::Skipped) {
      why = state_reason(v.state);  // no rows: the cursor stays
    } else if (why.empty() && v.state != SessionState::Done) {
      why = state_reason(v.state);
      stop = "a version before it in the session (" + v.name + ") did not finish, so its rows cannot be told apart";
    } else if (why.empty() && v.kernels.empty()) {
      why = "its timed calls launched no kernel that CUPTI saw";
      stop = "a version before it (" + v.name + ") has no known kernel count, so the rows cannot be split in order";
    } else if (why.empty()) {
      std::vector<std::string> names;
      for (size_t i = cursor; i < rows.size() && i < cursor + v.kernels.size(); ++i) {
        ids.push_back(rows[i].id);
        names.push_back(rows[i].name);
      }
      why = compare_names(v.kernels, names);
      if (why.empty())
        cursor += v.kernels.size();
      else
        stop = "the rows of a version before it (" + v.name + ") did not match, so the order is lost";
    }
    all_done = all_done && v.state != SessionState::Failed && v.state != SessionState::NotReached;
    s.ids.push_back(why.empty() ? ids : std::vector<int>{});
    s.why_not.push_back(why);
  }
  if (stop.empty() && all_done && cursor < rows.size()) {
    std::string why = fmt::format(
        "the session has {} row(s) more than the versions launched, so which version "
        "launched them is unknown",
        rows.size() - cursor);
    for (size_t i = 0; i < versions.size(); ++i)
      if (s.why_not[i].empty()) {
        s.why_not[i] = why;
        s.ids[i].clear();
      }
  }
  return s;
}

}  // namespace

std::string session_range_name(const std::string& version) { return kSessionRangePrefix + version; }

nlohmann::json session_plan_json(const std::vector<SessionPlanEntry>& plan) {
  nlohmann::json v = nlohmann::json::array();
  for (const auto& e : plan) v.push_back({{"name", e.name}, {"request", e.request}});
  return {{"versions", v}};
}

std::vector<SessionPlanEntry> parse_session_plan(const nlohmann::json& j) {
  const std::string hint = "the plan is written by `kprof run` (OUTPUT_DIR/ncu_session.json); run `kprof run` again";
  if (!j.is_object() || !j.contains("versions") || !j["versions"].is_array() || j["versions"].empty())
    throw usage_error("ncu session plan: expected an object with a non-empty array \"versions\"", hint);
  std::vector<SessionPlanEntry> out;
  std::set<std::string> names;
  for (const auto& e : j["versions"]) {
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string() || e["name"].get<std::string>().empty() ||
        !e.contains("request") || !e["request"].is_object() || e["request"].empty())
      throw usage_error("ncu session plan: version " + std::to_string(out.size() + 1) +
                            " needs a \"name\" and a request object \"request\"",
                        hint);
    SessionPlanEntry p;
    p.name = e["name"].get<std::string>();
    p.request = e["request"];
    if (!names.insert(p.name).second) throw usage_error("ncu session plan: two versions named " + p.name, hint);
    out.push_back(std::move(p));
  }
  return out;
}

std::string session_mark_line(SessionState state, const std::string& version, const std::string& why) {
  std::string line = kMarkPrefix + std::string(state_word(state)) + " " + version;
  if (!why.empty()) line += ": " + one_line_summary(why);
  return line;
}

std::map<std::string, SessionMark> read_session_marks(const std::string& log) {
  std::map<std::string, SessionMark> out;
  std::istringstream in(log);
  std::string line;
  const std::string_view prefix = kMarkPrefix;
  while (std::getline(in, line)) {
    size_t at = line.find(prefix);
    if (at == std::string::npos) continue;
    std::string rest = trim(line.substr(at + prefix.size()));
    size_t sp = rest.find(' ');
    if (sp == std::string::npos) continue;
    std::string word = rest.substr(0, sp), tail = rest.substr(sp + 1);
    SessionMark m;
    if (word == "done")
      m.state = SessionState::Done;
    else if (word == "skipped")
      m.state = SessionState::Skipped;
    else if (word == "failed")
      m.state = SessionState::Failed;
    else
      continue;
    size_t colon = tail.find(": ");
    std::string name = trim(colon == std::string::npos ? tail : tail.substr(0, colon));
    if (colon != std::string::npos) m.why = trim(tail.substr(colon + 2));
    if (!name.empty()) out[name] = m;
  }
  return out;
}

nlohmann::json session_mark_json(SessionState state, const std::string& version, const std::string& why) {
  return {{"name", version}, {"state", state_word(state)}, {"why", one_line_summary(why)}};
}

std::map<std::string, SessionMark> session_marks_from_results(const nlohmann::json& results) {
  std::map<std::string, SessionMark> out;
  if (!results.is_object() || !results.contains("versions") || !results["versions"].is_array()) return out;
  for (const auto& v : results["versions"]) {
    if (!v.is_object() || !v.contains("name") || !v["name"].is_string() || !v.contains("state") ||
        !v["state"].is_string())
      continue;
    auto state = kSessionStateWords.parse(v["state"].get<std::string>());
    if (!state || *state == SessionState::NotReached) continue;
    SessionMark m;
    m.state = *state;
    if (v.contains("why") && v["why"].is_string()) m.why = v["why"].get<std::string>();
    out[v["name"].get<std::string>()] = m;
  }
  return out;
}

bool same_kernel_name(const std::string& a, const std::string& b) {
  const size_t all = std::string::npos;
  return no_spaces(display_kernel_name(a, all)) == no_spaces(display_kernel_name(b, all));
}

SessionSplit split_session_rows(const std::vector<SessionRow>& rows, const std::vector<SessionVersion>& versions) {
  bool nvtx = !rows.empty();
  for (const auto& r : rows) nvtx = nvtx && starts_with(r.range, kSessionRangePrefix);
  return nvtx ? split_by_range(rows, versions) : split_in_order(rows, versions);
}

}  // namespace kprof
