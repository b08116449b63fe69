#include "api/requests.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "api/options.hpp"
#include "api/request_fields.hpp"
#include "core/error.hpp"
#include "core/host_json.hpp"

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

void read_field(const json& j, const char* key, Dims& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  if (!it->is_object()) wrong_field_type(key, it->type_name());
  for (const auto& [name, v] : it->items()) out.set(name, v.is_string() ? v.get<std::string>() : v.dump());
}

void read_field(const json& j, const char* key, Host& out) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) out = host_from_json(*it);
}

void write_field(json& j, const char* key, const Host& h) { j[key] = host_to_json(h); }

void write_field(json& j, const char* key, const Dims& d) {
  json dims = json::object();
  for (const auto& x : d.all()) dims[x.name] = x.text;
  j[key] = dims;
}

namespace {

// Each request's fields, listed once (api/request_fields.hpp put_fields / get_fields).

/// The fields of a kernel spec shared by every request that carries one (not `kernel`/`so_path`,
/// which a KernelRequest holds per kernel).
const auto kSpecFields = [](auto& s, auto&& f) {
  f("implementation", s.implementation);
  f("nvcc_flags", s.nvcc_flags);
  f("build", s.build);
  f("arch", s.arch);
  f("sizes", s.sizes);
  f("ptr_size", s.ptr_size);
  f("seed", s.seed);
  f("gpu", s.gpu);
  f("call_timeout_s", s.timeout_s);
  f("dims", s.dims);
};
const auto kKernelFields = [](auto& k, auto&& f) {
  kSpecFields(k.spec, f);
  f("kernels", k.kernels);
  f("so_paths", k.so_paths);
  f("ref", k.ref);
  f("atol", k.atol);
  f("rtol", k.rtol);
  f("trials", k.trials);
  f("output_dir", k.output_dir);
  f("no_html", k.no_html);
};
const auto kProfileFields = [](auto& p, auto&& f) {
  f("warmup_calls", p.warmup_calls);
  f("warmup_ms", p.warmup_ms);
  f("iters", p.iters);
  f("iters_given", p.iters_given);
  f("time_budget_ms", p.time_budget_ms);
  f("noise_target_pct", p.noise_target_pct);
  f("throttle_threshold_pct", p.throttle_threshold_pct);
  f("discard_throttled", p.discard_throttled);
  f("input_sets", p.input_sets);
  f("no_l2_flush", p.no_l2_flush);
  f("metric_set", p.metric_set);
  f("ncu_timeout_s", p.ncu_timeout_s);
  f("no_ncu", p.no_ncu);
  f("source", p.source);
  f("sass", p.sass);
  f("stock_source_section", p.stock_source_section);
  f("top", p.top);
  f("no_roofline", p.no_roofline);
  f("html_no_source", p.html_no_source);
};
const auto kRunnerFields = [](auto& r, auto&& f) {
  kSpecFields(r.spec, f);
  f("kernel", r.spec.kernel);
  f("so_path", r.spec.so_path);
  f("warmup_calls", r.warmup_calls);
  f("host", r.host);
};

}  // namespace

json to_json(const KernelRequest& k) {
  json j = {{"kprof_version", KPROF_VERSION}};
  put_fields(j, k, kKernelFields);
  return j;
}

KernelRequest kernel_request_from_json(const json& j) {
  check_object(j, "the kernel request");
  KernelRequest k;
  get_fields(j, k, kKernelFields);
  return k;
}

json to_json(const ProfileRequest& p) {
  json j = {{"kprof_version", KPROF_VERSION}};
  put_fields(j, p, kProfileFields);
  return j;
}

ProfileRequest profile_request_from_json(const json& j) {
  check_object(j, "the profile request");
  ProfileRequest p;
  get_fields(j, p, kProfileFields);
  return p;
}

void validate(const RunnerRequest& r) {
  if (r.spec.kernel.empty()) throw usage_error("the runner request names no kernel file");
  if (r.warmup_calls < 0) throw usage_error("the runner request's warmup_calls is negative");
  check_range("check", "--timeout", r.spec.timeout_s);
}

json to_json(const RunnerRequest& r) {
  json j = {{"command", "__runner"}, {"kprof_version", KPROF_VERSION}};
  put_fields(j, r, kRunnerFields);
  return j;
}

RunnerRequest runner_request_from_json(const json& j) {
  check_object(j, "the runner request");
  RunnerRequest r;
  get_fields(j, r, kRunnerFields);
  return r;
}

}  // namespace kprof::api
