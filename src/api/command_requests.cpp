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

json to_json(const EnvRequest& r) {
  json j = header("env");
  j.update({{"output_file", r.output_file}, {"gpu", r.gpu}, {"json", r.json}, {"probe_timeout_s", r.probe_timeout_s}});
  return j;
}

json to_json(const ClocksCommandRequest& r) {
  json j = header("clocks");
  j.update({{"gpu", r.gpu}, {"lock", r.lock}, {"max", r.max}, {"reset", r.reset}, {"dry_run", r.dry_run}});
  return j;
}

json to_json(const BuildRequest& r) {
  json j = header("build");
  j.update({{"kernel", r.kernel},
            {"implementation", r.implementation},
            {"arch", r.arch},
            {"output_so", r.output_so},
            {"gpu", r.gpu},
            {"nvcc_timeout_s", r.nvcc_timeout_s},
            {"nvcc_flags", r.nvcc_flags}});
  return j;
}

json to_json(const CheckRequest& r) {
  json j = to_json(r.kernel);
  j.update(header("check"));
  j["sanitize"] = r.sanitize;
  return j;
}

json to_json(const CompareRequest& r) {
  json j = header("compare");
  j.update({{"inputs", r.inputs}, {"fail_if_slower_pct", r.fail_if_slower_pct}, {"output_dir", r.output_dir}});
  return j;
}

json to_json(const AnalyzeRequest& r) {
  json j = header("analyze");
  j.update({{"report", r.report},
            {"output_dir", r.output_dir},
            {"json", r.json},
            {"top", r.top},
            {"sass", r.sass},
            {"no_roofline", r.no_roofline},
            {"export_timeout_s", r.export_timeout_s}});
  return j;
}

EnvRequest env_request_from_json(const json& j) {
  check_object(j, "the env request");
  EnvRequest r;
  read_field(j, "output_file", r.output_file);
  read_field(j, "gpu", r.gpu);
  read_field(j, "json", r.json);
  read_field(j, "probe_timeout_s", r.probe_timeout_s);
  return r;
}

ClocksCommandRequest clocks_request_from_json(const json& j) {
  check_object(j, "the clocks request");
  ClocksCommandRequest r;
  read_field(j, "gpu", r.gpu);
  read_field(j, "lock", r.lock);
  read_field(j, "max", r.max);
  read_field(j, "reset", r.reset);
  read_field(j, "dry_run", r.dry_run);
  return r;
}

BuildRequest build_request_from_json(const json& j) {
  check_object(j, "the build request");
  BuildRequest r;
  read_field(j, "kernel", r.kernel);
  read_field(j, "implementation", r.implementation);
  read_field(j, "arch", r.arch);
  read_field(j, "output_so", r.output_so);
  read_field(j, "gpu", r.gpu);
  read_field(j, "nvcc_timeout_s", r.nvcc_timeout_s);
  read_field(j, "nvcc_flags", r.nvcc_flags);
  return r;
}

CheckRequest check_request_from_json(const json& j) {
  CheckRequest r;
  r.kernel = kernel_request_from_json(j);
  read_field(j, "sanitize", r.sanitize);
  return r;
}

CompareRequest compare_request_from_json(const json& j) {
  check_object(j, "the compare request");
  CompareRequest r;
  read_field(j, "inputs", r.inputs);
  read_field(j, "fail_if_slower_pct", r.fail_if_slower_pct);
  read_field(j, "output_dir", r.output_dir);
  return r;
}

AnalyzeRequest analyze_request_from_json(const json& j) {
  check_object(j, "the analyze request");
  AnalyzeRequest r;
  read_field(j, "report", r.report);
  read_field(j, "output_dir", r.output_dir);
  read_field(j, "json", r.json);
  read_field(j, "top", r.top);
  read_field(j, "sass", r.sass);
  read_field(j, "no_roofline", r.no_roofline);
  read_field(j, "export_timeout_s", r.export_timeout_s);
  return r;
}

}  // namespace kprof::api
