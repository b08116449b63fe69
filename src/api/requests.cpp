#include "api/requests.hpp"

#include <fmt/format.h>

#include "api/options.hpp"
#include "core/error.hpp"

namespace kprof::api {
namespace {

using nlohmann::json;

/// The value of `key` in `j` read into `out` when present; Error (exit 2) naming the field when
/// it has another type.
template <class V>
void read(const json& j, const char* key, V& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  try {
    out = it->get<V>();
  } catch (const json::exception&) {
    throw usage_error(fmt::format("request field '{}' has the wrong type ({})", key, it->type_name()),
                      "see `kprof __options` for each field's type");
  }
}

/// Error (exit 2) when `value` of `flag` (row of `command`) is outside the row's range.
void in_range(const std::string& command, const std::string& flag, double value) {
  const OptionRow& r = option_row(command, flag);
  bool low = r.min && (r.min_exclusive ? value <= *r.min : value < *r.min);
  bool high = r.max && value > *r.max;
  if (low || high)
    throw usage_error(fmt::format("{} {:g} is out of range: {}{:g}{}", flag, value, r.min_exclusive ? "> " : "",
                                  r.min.value_or(0), r.max ? fmt::format("..{:g}", *r.max) : std::string(" or more")),
                      "see `kprof " + command + " --help`");
}

}  // namespace

void validate(const KernelRequest& k, bool several) {
  if (k.trials < 1) throw usage_error("--trials must be at least 1");
  if (!k.so_paths.empty() && k.so_paths.size() != (several ? k.kernels.size() : 1))
    throw usage_error(several
                          ? fmt::format("--so is given {} time(s) for {} versions", k.so_paths.size(), k.kernels.size())
                          : "--so is given " + std::to_string(k.so_paths.size()) + " times",
                      several ? "give one --so per version, in the order of the kernel files, or none (each .cu then "
                                "loads its sibling .so, same base name; --build builds them)"
                              : "give the kernel's library once: --so K.so");
  in_range("check", "--timeout", k.spec.timeout_s);
}

void validate(const ProfileRequest& p) {
  in_range("profile", "--warmup-ms", p.warmup_ms);
  in_range("profile", "--noise-target", p.noise_target_pct);
  in_range("profile", "--throttle-threshold", p.throttle_threshold_pct);
  in_range("profile", "--input-sets", p.input_sets);
  in_range("profile", "--ncu-timeout", p.ncu_timeout_s);
  in_range("profile", "--top", static_cast<double>(p.top));
  const auto& m = option_row("profile", "--metrics").choices;
  if (std::find(m.begin(), m.end(), p.metric_set) == m.end())
    throw usage_error("--metrics " + p.metric_set + " is not one of kprof, sections, full");
}

json to_json(const KernelRequest& k) {
  json dims = json::object();
  for (const auto& d : k.spec.dims.all()) dims[d.name] = d.text;
  return {{"kprof_version", KPROF_VERSION},
          {"kernels", k.kernels},
          {"implementation", k.spec.implementation},
          {"so_paths", k.so_paths},
          {"nvcc_flags", k.spec.nvcc_flags},
          {"build", k.spec.build},
          {"arch", k.spec.arch},
          {"sizes", k.spec.sizes},
          {"ptr_size", k.spec.ptr_size},
          {"seed", k.spec.seed},
          {"gpu", k.spec.gpu},
          {"call_timeout_s", k.spec.timeout_s},
          {"dims", dims},
          {"ref", k.ref},
          {"atol", k.atol},
          {"rtol", k.rtol},
          {"trials", k.trials},
          {"output_dir", k.output_dir},
          {"no_html", k.no_html}};
}

KernelRequest kernel_request_from_json(const json& j) {
  KernelRequest k;
  read(j, "kernels", k.kernels);
  read(j, "implementation", k.spec.implementation);
  read(j, "so_paths", k.so_paths);
  read(j, "nvcc_flags", k.spec.nvcc_flags);
  read(j, "build", k.spec.build);
  read(j, "arch", k.spec.arch);
  read(j, "sizes", k.spec.sizes);
  read(j, "ptr_size", k.spec.ptr_size);
  read(j, "seed", k.spec.seed);
  read(j, "gpu", k.spec.gpu);
  read(j, "call_timeout_s", k.spec.timeout_s);
  if (auto it = j.find("dims"); it != j.end() && it->is_object())
    for (const auto& [name, v] : it->items()) k.spec.dims.set(name, v.is_string() ? v.get<std::string>() : v.dump());
  read(j, "ref", k.ref);
  read(j, "atol", k.atol);
  read(j, "rtol", k.rtol);
  read(j, "trials", k.trials);
  read(j, "output_dir", k.output_dir);
  read(j, "no_html", k.no_html);
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
  ProfileRequest p;
  read(j, "warmup_calls", p.warmup_calls);
  read(j, "warmup_ms", p.warmup_ms);
  read(j, "iters", p.iters);
  read(j, "iters_given", p.iters_given);
  read(j, "time_budget_ms", p.time_budget_ms);
  read(j, "noise_target_pct", p.noise_target_pct);
  read(j, "throttle_threshold_pct", p.throttle_threshold_pct);
  read(j, "discard_throttled", p.discard_throttled);
  read(j, "input_sets", p.input_sets);
  read(j, "no_l2_flush", p.no_l2_flush);
  read(j, "metric_set", p.metric_set);
  read(j, "ncu_timeout_s", p.ncu_timeout_s);
  read(j, "no_ncu", p.no_ncu);
  read(j, "source", p.source);
  read(j, "sass", p.sass);
  read(j, "stock_source_section", p.stock_source_section);
  read(j, "top", p.top);
  read(j, "no_roofline", p.no_roofline);
  read(j, "html_no_source", p.html_no_source);
  return p;
}

}  // namespace kprof::api
