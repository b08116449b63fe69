#include "api/command_requests.hpp"

#include <set>

#include "api/request_fields.hpp"
#include "api/rules.hpp"
#include "core/error.hpp"

namespace kprof::api {

using nlohmann::json;

namespace {

json header(const char* command) { return {{"command", command}, {"kprof_version", KPROF_VERSION}}; }

}  // namespace

void validate(const EnvRequest& r) {
  check_range("env", "--gpu", r.gpu);
  check_range("env", "--timeout", r.probe_timeout_s);
  if (r.output_file.empty()) throw usage_error("-o/--output is empty", "give the Markdown report's path");
}

void validate(const ClocksCommandRequest& r) {
  check_range("clocks", "--gpu", r.gpu);
  std::set<std::string> given;
  if (r.lock) given.insert("--lock");
  if (r.max) given.insert("--max");
  if (r.reset) given.insert("--reset");
  if (r.dry_run) given.insert("--dry-run");
  check_option_rules("clocks", given);
}

void validate(const BuildRequest& r) {
  if (r.kernel.empty()) throw usage_error("no kernel file given", "kprof build KERNEL.cu");
  check_range("build", "--gpu", r.gpu);
  check_range("build", "--timeout", r.nvcc_timeout_s);
}

void validate(const CheckRequest& r) {
  if (r.kernel.kernels.size() != 1)
    throw usage_error("check takes one kernel file (" + std::to_string(r.kernel.kernels.size()) + " given)",
                      "kprof check KERNEL REF.py; several versions: kprof run");
  validate(r.kernel, /*several=*/false);
}

void validate(const CompareRequest& r) {
  if (r.inputs.size() < 2)
    throw usage_error("compare needs two saved results or more (" + std::to_string(r.inputs.size()) + " given)",
                      "kprof compare BASELINE NEW...: comparison.json, profile.json or their folders");
  if (r.fail_if_slower_pct >= 0) check_range("compare", "--fail-if-slower", r.fail_if_slower_pct);
}

void validate(const AnalyzeRequest& r) {
  if (r.report.empty()) throw usage_error("no report given", "kprof analyze REPORT.ncu-rep (or a raw-page CSV)");
  check_range("analyze", "--top", static_cast<double>(r.top));
  check_range("analyze", "--timeout", r.export_timeout_s);
}

// Each request's fields, listed once: the list drives both directions (to_json and *_from_json), so a
// field added to a request cannot reach one direction and miss the other.
namespace {

const auto kEnvFields = [](auto& r, auto&& f) {
  f("output_file", r.output_file);
  f("gpu", r.gpu);
  f("json", r.json);
  f("probe_timeout_s", r.probe_timeout_s);
  f("no_html", r.no_html);
};
const auto kClocksFields = [](auto& r, auto&& f) {
  f("gpu", r.gpu);
  f("lock", r.lock);
  f("max", r.max);
  f("reset", r.reset);
  f("dry_run", r.dry_run);
};
const auto kBuildFields = [](auto& r, auto&& f) {
  f("kernel", r.kernel);
  f("implementation", r.implementation);
  f("arch", r.arch);
  f("output_so", r.output_so);
  f("gpu", r.gpu);
  f("nvcc_timeout_s", r.nvcc_timeout_s);
  f("nvcc_flags", r.nvcc_flags);
};
const auto kCompareFields = [](auto& r, auto&& f) {
  f("inputs", r.inputs);
  f("fail_if_slower_pct", r.fail_if_slower_pct);
  f("output_dir", r.output_dir);
  f("no_html", r.no_html);
};
const auto kAnalyzeFields = [](auto& r, auto&& f) {
  f("report", r.report);
  f("output_dir", r.output_dir);
  f("json", r.json);
  f("top", r.top);
  f("sass", r.sass);
  f("no_roofline", r.no_roofline);
  f("export_timeout_s", r.export_timeout_s);
  f("no_html", r.no_html);
  f("html_no_source", r.html_no_source);
};

/// `r` as JSON: the header of `command`, then the fields `fields` lists.
template <class R, class Fields>
json write_fields(const char* command, const R& r, const Fields& fields) {
  json j = header(command);
  put_fields(j, r, fields);
  return j;
}

/// The request `what` from `j`: every field `fields` lists that `j` holds (read_field's checks).
template <class R, class Fields>
R read_fields(const json& j, const char* what, const Fields& fields) {
  check_object(j, what);
  R r;
  get_fields(j, r, fields);
  return r;
}

}  // namespace

json to_json(const EnvRequest& r) { return write_fields("env", r, kEnvFields); }
json to_json(const ClocksCommandRequest& r) { return write_fields("clocks", r, kClocksFields); }
json to_json(const BuildRequest& r) { return write_fields("build", r, kBuildFields); }
json to_json(const CompareRequest& r) { return write_fields("compare", r, kCompareFields); }
json to_json(const AnalyzeRequest& r) { return write_fields("analyze", r, kAnalyzeFields); }

json to_json(const CheckRequest& r) {
  json j = to_json(r.kernel);
  j.update(header("check"));
  j["sanitize"] = r.sanitize;
  write_field(j, "host", r.host);
  return j;
}

EnvRequest env_request_from_json(const json& j) { return read_fields<EnvRequest>(j, "the env request", kEnvFields); }
ClocksCommandRequest clocks_request_from_json(const json& j) {
  return read_fields<ClocksCommandRequest>(j, "the clocks request", kClocksFields);
}
BuildRequest build_request_from_json(const json& j) {
  return read_fields<BuildRequest>(j, "the build request", kBuildFields);
}
CompareRequest compare_request_from_json(const json& j) {
  return read_fields<CompareRequest>(j, "the compare request", kCompareFields);
}
AnalyzeRequest analyze_request_from_json(const json& j) {
  return read_fields<AnalyzeRequest>(j, "the analyze request", kAnalyzeFields);
}

CheckRequest check_request_from_json(const json& j) {
  CheckRequest r;
  r.kernel = kernel_request_from_json(j);
  read_field(j, "sanitize", r.sanitize);
  read_field(j, "host", r.host);
  return r;
}

}  // namespace kprof::api
