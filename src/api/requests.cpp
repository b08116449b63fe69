#include "api/requests.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "api/options.hpp"
#include "api/request_fields.hpp"
#include "core/error.hpp"

namespace kprof::api {
using nlohmann::json;

void wrong_field_type(const char* key, const char* type_name) {
  throw usage_error(fmt::format("request field '{}' has the wrong type ({})", key, type_name),
                    "see `kprof __options` for each field's type");
}

void check_range(const std::string& command, const std::string& flag, double value) {
  const OptionRow& r = option_row(command, flag);
  bool low = r.min && (r.min_exclusive ? value <= *r.min : value < *r.min);
  bool high = r.max && value > *r.max;
  if (low || high)
    throw usage_error(fmt::format("{} {:g} is out of range: {}{:g}{}", flag, value, r.min_exclusive ? "> " : "",
                                  r.min.value_or(0), r.max ? fmt::format("..{:g}", *r.max) : std::string(" or more")),
                      "see `kprof " + command + " --help`");
}

void check_choice(const std::string& command, const std::string& flag, const std::string& value) {
  const auto& c = option_row(command, flag).choices;
  if (c.empty() || std::find(c.begin(), c.end(), value) != c.end()) return;
  std::string list;
  for (const auto& v : c) list += (list.empty() ? "" : ", ") + v;
  throw usage_error(flag + " " + value + " is not one of " + list, "see `kprof " + command + " --help`");
}

void check_object(const json& j, const char* what) {
  if (!j.is_object())
    throw usage_error(std::string(what) + " is not a JSON object (" + j.type_name() + ")",
                      "a request is an object of fields: see `kprof __options`");
}

void validate(const KernelRequest& k, bool several) {
  if (k.trials < 1) throw usage_error("--trials must be at least 1");
  if (!k.so_paths.empty() && k.so_paths.size() != (several ? k.kernels.size() : 1))
    throw usage_error(several
                          ? fmt::format("--so is given {} time(s) for {} versions", k.so_paths.size(), k.kernels.size())
                          : "--so is given " + std::to_string(k.so_paths.size()) + " times",
                      several ? "give one --so per version, in the order of the kernel files, or none (each .cu then "
                                "loads its sibling .so, same base name; --build builds them)"
                              : "give the kernel's library once: --so K.so");
  check_range("check", "--timeout", k.spec.timeout_s);
}

void validate(const ProfileRequest& p) {
  check_range("profile", "--warmup-ms", p.warmup_ms);
  check_range("profile", "--noise-target", p.noise_target_pct);
  check_range("profile", "--throttle-threshold", p.throttle_threshold_pct);
  check_range("profile", "--input-sets", p.input_sets);
  check_range("profile", "--ncu-timeout", p.ncu_timeout_s);
  check_range("profile", "--top", static_cast<double>(p.top));
  check_choice("profile", "--metrics", p.metric_set);
}

namespace {

/// The fields of a kernel spec shared by every request that carries one (not `kernel`/`so_path`,
/// which a KernelRequest holds per kernel).
json spec_json(const KernelSpec& s) {
  json dims = json::object();
  for (const auto& d : s.dims.all()) dims[d.name] = d.text;
  return {{"implementation", s.implementation},
          {"nvcc_flags", s.nvcc_flags},
          {"build", s.build},
          {"arch", s.arch},
          {"sizes", s.sizes},
          {"ptr_size", s.ptr_size},
          {"seed", s.seed},
          {"gpu", s.gpu},
          {"call_timeout_s", s.timeout_s},
          {"dims", dims}};
}

void read_spec(const json& j, KernelSpec& s) {
  read_field(j, "implementation", s.implementation);
  read_field(j, "nvcc_flags", s.nvcc_flags);
  read_field(j, "build", s.build);
  read_field(j, "arch", s.arch);
  read_field(j, "sizes", s.sizes);
  read_field(j, "ptr_size", s.ptr_size);
  read_field(j, "seed", s.seed);
  read_field(j, "gpu", s.gpu);
  read_field(j, "call_timeout_s", s.timeout_s);
  if (auto it = j.find("dims"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) wrong_field_type("dims", it->type_name());
    for (const auto& [name, v] : it->items()) s.dims.set(name, v.is_string() ? v.get<std::string>() : v.dump());
  }
}

}  // namespace

json to_json(const KernelRequest& k) {
  json j = spec_json(k.spec);
  j.update({{"kprof_version", KPROF_VERSION},
            {"kernels", k.kernels},
            {"so_paths", k.so_paths},
            {"ref", k.ref},
            {"atol", k.atol},
            {"rtol", k.rtol},
            {"trials", k.trials},
            {"output_dir", k.output_dir},
            {"no_html", k.no_html}});
  return j;
}

KernelRequest kernel_request_from_json(const json& j) {
  check_object(j, "the kernel request");
  KernelRequest k;
  read_field(j, "kernels", k.kernels);
  read_field(j, "so_paths", k.so_paths);
  read_spec(j, k.spec);
  read_field(j, "ref", k.ref);
  read_field(j, "atol", k.atol);
  read_field(j, "rtol", k.rtol);
  read_field(j, "trials", k.trials);
  read_field(j, "output_dir", k.output_dir);
  read_field(j, "no_html", k.no_html);
  return k;
}

json to_json(const ProfileRequest& p) {
  return {{"kprof_version", KPROF_VERSION},
          {"warmup_calls", p.warmup_calls},
          {"warmup_ms", p.warmup_ms},
          {"iters", p.iters},
          {"iters_given", p.iters_given},
          {"time_budget_ms", p.time_budget_ms},
          {"noise_target_pct", p.noise_target_pct},
          {"throttle_threshold_pct", p.throttle_threshold_pct},
          {"discard_throttled", p.discard_throttled},
          {"input_sets", p.input_sets},
          {"no_l2_flush", p.no_l2_flush},
          {"metric_set", p.metric_set},
          {"ncu_timeout_s", p.ncu_timeout_s},
          {"no_ncu", p.no_ncu},
          {"source", p.source},
          {"sass", p.sass},
          {"stock_source_section", p.stock_source_section},
          {"top", p.top},
          {"no_roofline", p.no_roofline},
          {"html_no_source", p.html_no_source}};
}

ProfileRequest profile_request_from_json(const json& j) {
  check_object(j, "the profile request");
  ProfileRequest p;
  read_field(j, "warmup_calls", p.warmup_calls);
  read_field(j, "warmup_ms", p.warmup_ms);
  read_field(j, "iters", p.iters);
  read_field(j, "iters_given", p.iters_given);
  read_field(j, "time_budget_ms", p.time_budget_ms);
  read_field(j, "noise_target_pct", p.noise_target_pct);
  read_field(j, "throttle_threshold_pct", p.throttle_threshold_pct);
  read_field(j, "discard_throttled", p.discard_throttled);
  read_field(j, "input_sets", p.input_sets);
  read_field(j, "no_l2_flush", p.no_l2_flush);
  read_field(j, "metric_set", p.metric_set);
  read_field(j, "ncu_timeout_s", p.ncu_timeout_s);
  read_field(j, "no_ncu", p.no_ncu);
  read_field(j, "source", p.source);
  read_field(j, "sass", p.sass);
  read_field(j, "stock_source_section", p.stock_source_section);
  read_field(j, "top", p.top);
  read_field(j, "no_roofline", p.no_roofline);
  read_field(j, "html_no_source", p.html_no_source);
  return p;
}

void validate(const RunnerRequest& r) {
  if (r.spec.kernel.empty()) throw usage_error("the runner request names no kernel file");
  if (r.warmup_calls < 0) throw usage_error("the runner request's warmup_calls is negative");
  check_range("check", "--timeout", r.spec.timeout_s);
}

json to_json(const RunnerRequest& r) {
  json j = spec_json(r.spec);
  j.update({{"command", "__runner"},
            {"kprof_version", KPROF_VERSION},
            {"kernel", r.spec.kernel},
            {"so_path", r.spec.so_path},
            {"warmup_calls", r.warmup_calls}});
  return j;
}

RunnerRequest runner_request_from_json(const json& j) {
  check_object(j, "the runner request");
  RunnerRequest r;
  read_field(j, "kernel", r.spec.kernel);
  read_field(j, "so_path", r.spec.so_path);
  read_spec(j, r.spec);
  read_field(j, "warmup_calls", r.warmup_calls);
  return r;
}

}  // namespace kprof::api
