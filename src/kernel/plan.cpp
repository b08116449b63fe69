#include "kernel/plan.hpp"

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"

namespace kprof {

RuleCount seed_element_count(const std::map<std::string, int64_t>& int_dims) {
  RuleCount r;
  if (int_dims.empty()) {
    r.count = kDefaultPointerElements;
    r.why = "no integer dimension: 1 Mi";
    return r;
  }
  std::vector<std::pair<int64_t, std::string>> v;
  for (const auto& [name, value] : int_dims) v.emplace_back(value, name);
  // Largest first; names break ties so the explanation is deterministic.
  std::sort(v.begin(), v.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  __int128 n = 0;
  if (v.size() == 1) {
    n = v[0].first;
    r.why = v[0].second + "=" + std::to_string(v[0].first);
  } else {
    n = static_cast<__int128>(v[0].first) * v[1].first;
    std::string all;
    for (const auto& [value, name] : v) all += (all.empty() ? "" : ", ") + name;
    r.why = v[0].second + "*" + v[1].second + " = " + std::to_string(v[0].first) + "*" + std::to_string(v[1].first) +
            " (two largest of " + all + ")";
  }
  if (n < 0)
    throw usage_error("the pointer-size rule gives a negative element count (" + r.why + ")",
                      "give buffer sizes explicitly: --ptr-size N, or --size NAME=EXPR per buffer");
  if (n > static_cast<__int128>(kMaxRuleElements)) {
    r.capped = true;
    r.count = kMaxRuleElements;
    r.why += ", capped at 1 Gi";
  } else {
    r.count = static_cast<size_t>(n);
  }
  return r;
}

namespace {

size_t checked_count(int64_t v, const std::string& what) {
  if (v < 0)
    throw usage_error(what + " gives a negative element count (" + std::to_string(v) + ")",
                      "element counts must be >= 0");
  if (static_cast<uint64_t>(v) > kMaxExplicitElements)
    throw usage_error(what + " asks for " + std::to_string(v) + " elements, more than kprof allows (2^40)",
                      "use a realistic size");
  return static_cast<size_t>(v);
}

std::string buffer_names(const Signature& sig) {
  std::string s;
  for (const auto& p : sig.params)
    if (p.is_pointer) s += (s.empty() ? "" : ", ") + p.name;
  return s.empty() ? "(none: solve() takes no pointers)" : s;
}

}  // namespace

BufferPlan make_buffer_plan(const Signature& sig, const Dims& dims, const std::vector<std::string>& size_exprs,
                            std::optional<int64_t> ptr_size) {
  std::map<std::string, int64_t> ints = dims.ints();
  // --size NAME=EXPR entries, validated against solve()'s parameters first.
  std::map<std::string, std::pair<std::string, size_t>> sized;  // name -> (expr, count)
  for (const auto& entry : size_exprs) {
    auto eq = entry.find('=');
    std::string name = trim(entry.substr(0, eq));
    if (eq == std::string::npos || name.empty() || trim(entry.substr(eq + 1)).empty())
      throw usage_error("--size '" + entry + "' is not NAME=EXPR", "for example --size A=M*K");
    auto it = std::find_if(sig.params.begin(), sig.params.end(), [&](const Param& p) { return p.name == name; });
    if (it == sig.params.end())
      throw usage_error("--size " + entry + ": solve() has no buffer named '" + name + "'",
                        "buffers of " + sig.to_string() + ": " + buffer_names(sig));
    if (!it->is_pointer)
      throw usage_error("--size " + entry + ": '" + name + "' is a scalar (" + it->type_text + "), not a buffer",
                        "give scalars as --" + name + "=VALUE; --size is for pointers: " + buffer_names(sig));
    if (sized.count(name))
      throw usage_error("--size gives buffer '" + name + "' twice", "keep one --size " + name + "=EXPR");
    std::string expr = trim(entry.substr(eq + 1));
    sized[name] = {expr, checked_count(eval_int_expr(expr, ints), "--size " + name + "=" + expr)};
  }
  std::optional<size_t> all;
  if (ptr_size) all = checked_count(*ptr_size, "--ptr-size");

  bool need_rule = false;
  for (const auto& p : sig.params)
    if (p.is_pointer && !sized.count(p.name) && !all) need_rule = true;
  RuleCount rule;
  if (need_rule) rule = seed_element_count(ints);

  BufferPlan plan;
  for (size_t i = 0; i < sig.params.size(); ++i) {
    const Param& p = sig.params[i];
    if (!p.is_pointer) continue;
    BufferSpec b;
    b.name = p.name;
    b.c_type = p.type_text;
    b.dtype = p.dtype;
    b.is_output = !p.is_const;
    b.param_index = i;
    if (auto s = sized.find(p.name); s != sized.end()) {
      b.count = s->second.second;
      b.count_source = "--size " + p.name + "=" + s->second.first;
    } else if (all) {
      b.count = *all;
      b.count_source = "--ptr-size " + std::to_string(*all);
    } else {
      b.count = rule.count;
      b.count_source = "rule: " + rule.why;
    }
    plan.buffers.push_back(b);
  }
  return plan;
}

std::string plan_markdown(const BufferPlan& plan) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& b : plan.buffers)
    rows.push_back({b.name, b.c_type + " (" + dtype_name(b.dtype) + ")", b.role(), std::to_string(b.count),
                    fmt_bytes(static_cast<double>(b.bytes())), b.count_source});
  return markdown_table({"Buffer", "Type", "Role", "Elements", "Bytes", "Size from"}, rows);
}

nlohmann::json plan_to_json(const BufferPlan& plan) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& b : plan.buffers)
    a.push_back({{"name", b.name},
                 {"c_type", b.c_type},
                 {"dtype", dtype_name(b.dtype)},
                 {"role", b.role()},
                 {"count", b.count},
                 {"bytes", b.bytes()},
                 {"count_source", b.count_source}});
  return a;
}

}  // namespace kprof
