#include "stages/analysis/ncu_rules.hpp"

#include "stages/analysis/finding_catalog.hpp"

#include <mutex>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/json_text.hpp"
#include "core/text.hpp"

namespace kprof {

namespace {

std::mutex& reader_mutex() {
  static std::mutex m;
  return m;
}

RuleResultReader& reader_slot() {
  static RuleResultReader r;
  return r;
}

std::string str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

KernelRuleResults parse_kernel(const nlohmann::json& k, int index) {
  if (!k.is_object() || !k.contains("rules") || !k["rules"].is_array())
    throw usage_error("rule results: each kernel must be an object with a \"rules\" array",
                      "write the file with scripts/ncurep_fixtures.py or in the format of docs/CLASSIFICATION.md (both "
                      "in the kprof source)");
  KernelRuleResults out;
  out.index = k.value("index", index);
  out.kernel = str(k, "kernel");
  for (const auto& r : k["rules"]) {
    if (!r.is_object() || !r.contains("rule"))
      throw usage_error("rule results: a rule entry lacks \"rule\" (its identifier)");
    NcuRuleResult x;
    x.rule = str(r, "rule");
    x.name = str(r, "name");
    x.section = str(r, "section");
    x.title = str(r, "title");
    x.message = str(r, "message");
    x.type = r.value("type", 0);
    if (r.contains("speedup_pct") && r["speedup_pct"].is_number()) x.speedup_pct = r["speedup_pct"].get<double>();
    x.speedup_type = str(r, "speedup_type");
    out.rules.push_back(std::move(x));
  }
  return out;
}

}  // namespace

std::vector<KernelRuleResults> parse_rule_results_json(const nlohmann::json& j) {
  std::vector<KernelRuleResults> out;
  if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) out.push_back(parse_kernel(j[i], static_cast<int>(i)));
  } else {
    out.push_back(parse_kernel(j, 0));
  }
  return out;
}

std::vector<KernelRuleResults> rule_results_from_rep(const NcuRep& rep) {
  std::vector<KernelRuleResults> out;
  for (const NcuRepKernel& k : rep.kernels) {
    KernelRuleResults kr;
    kr.index = k.id;
    kr.kernel = k.function.empty() ? k.name : k.function;
    for (const NcuRepRule& r : k.rules) {
      NcuRuleResult n;
      n.rule = r.id;
      n.name = r.name;
      n.section = r.section;
      n.title = r.title;
      n.message = r.message;
      n.type = r.type;
      n.speedup_pct = r.speedup;
      n.speedup_type = r.speedup_type == 1 ? "local" : r.speedup_type == 2 ? "global" : "";
      kr.rules.push_back(std::move(n));
    }
    out.push_back(std::move(kr));
  }
  return out;
}

void set_rule_result_reader(RuleResultReader reader) {
  std::lock_guard<std::mutex> lock(reader_mutex());
  reader_slot() = std::move(reader);
}

std::optional<std::vector<KernelRuleResults>> read_rule_results(const std::string& path, std::string* why) {
  auto from_json = [&](const std::string& file) -> std::optional<std::vector<KernelRuleResults>> {
    nlohmann::json j = read_json_file(file);  // damaged_input when it is not whole JSON
    try {
      return parse_rule_results_json(j);
    } catch (const nlohmann::json::exception&) {
      throw wrong_kind_in(file, "ncu's rule results");
    }
  };
  if (ends_with(path, ".json")) return from_json(path);
  if (ends_with(path, ".csv")) {
    std::string stem = path.substr(0, path.size() - 4);
    if (ends_with(stem, ".raw")) stem = stem.substr(0, stem.size() - 4);
    if (path_exists(stem + ".rules.json")) return from_json(stem + ".rules.json");
    if (why) *why = "a CSV export holds no rule results (none beside it: " + stem + ".rules.json)";
    return std::nullopt;
  }
  RuleResultReader r;
  {
    std::lock_guard<std::mutex> lock(reader_mutex());
    r = reader_slot();
  }
  if (!r)
    r = [why](const std::string& report) -> std::optional<std::vector<KernelRuleResults>> {
      NcuRepReadOptions ro;
      ro.metrics = false;
      ro.source = false;
      std::string why_not;
      auto rep = try_read_ncu_rep(report, ro, &why_not);
      if (!rep) {
        if (why) *why = "no ncu_report module could be imported (" + why_not + ")";
        return std::nullopt;
      }
      return rule_results_from_rep(*rep);
    };
  auto out = r(path);
  if (!out && why && why->empty()) *why = "the rule results of " + path + " could not be read";
  return out;
}

std::string finding_id_for_rule(const NcuRuleResult& r) {
  auto id = finding_for_ncu_rule(r.rule, r.title);
  return id ? finding_key(*id) : "";
}

}  // namespace kprof
