// The typed requests of every public command (api/command_requests.hpp, api/run_request.hpp) and
// the table's cross-option rules (api/rules.hpp): each request round-trips through JSON with
// kprof's version, validate() refuses what the command line refuses (so the Python API, the MCP
// tools and every child that receives JSON get the same checks), and the needs/excludes rules are
// read from the table's rows.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/command_requests.hpp"
#include "api/options.hpp"
#include "api/rules.hpp"
#include "api/run_request.hpp"
#include "core/error.hpp"

using namespace kprof;

namespace {

/// The message of the Error `fn` throws ("" when it throws none).
template <class F>
std::string error_of(F fn) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
    return e.what();
  }
  return "";
}

}  // namespace

TEST(CommandRequests, EachRoundTripsThroughJsonWithTheVersion) {
  api::EnvRequest env;
  env.gpu = 2;
  env.probe_timeout_s = 5;
  nlohmann::json j = api::to_json(env);
  EXPECT_EQ(j["kprof_version"], KPROF_VERSION);
  EXPECT_EQ(j["command"], "env");
  EXPECT_EQ(api::to_json(api::env_request_from_json(j)), j);

  api::ClocksCommandRequest clocks;
  clocks.lock = clocks.max = clocks.dry_run = true;
  EXPECT_EQ(api::to_json(api::clocks_request_from_json(api::to_json(clocks))), api::to_json(clocks));

  api::BuildRequest build;
  build.kernel = "k.cu";
  build.nvcc_flags = {"-lineinfo", "-DX=1"};
  build.nvcc_timeout_s = 30;
  EXPECT_EQ(api::to_json(api::build_request_from_json(api::to_json(build))), api::to_json(build));

  api::CheckRequest check;
  check.kernel.kernels = {"k.cu"};
  check.kernel.spec.dims.set("N", "4096");
  check.sanitize = "memcheck,racecheck";
  nlohmann::json cj = api::to_json(check);
  EXPECT_EQ(cj["command"], "check");
  EXPECT_EQ(api::to_json(api::check_request_from_json(cj)), cj);

  api::CompareRequest cmp;
  cmp.inputs = {"a/comparison.json", "b"};
  cmp.fail_if_slower_pct = 3;
  EXPECT_EQ(api::to_json(api::compare_request_from_json(api::to_json(cmp))), api::to_json(cmp));

  api::AnalyzeRequest an;
  an.report = "r.ncu-rep";
  an.top = 3;
  an.export_timeout_s = 20;
  EXPECT_EQ(api::to_json(api::analyze_request_from_json(api::to_json(an))), api::to_json(an));

  // The page's options survive the round trip (one field list drives both directions).
  env.no_html = cmp.no_html = an.no_html = an.html_no_source = true;
  EXPECT_TRUE(api::env_request_from_json(api::to_json(env)).no_html);
  EXPECT_TRUE(api::compare_request_from_json(api::to_json(cmp)).no_html);
  api::AnalyzeRequest an2 = api::analyze_request_from_json(api::to_json(an));
  EXPECT_TRUE(an2.no_html && an2.html_no_source);

  api::RunCommandRequest run;
  run.k.kernels = {"v0.cu", "v1.cu"};
  run.decide = true;
  run.rounds = 40;
  run.min_gain_pct = 2;
  run.decide_time = "kernel";
  run.slurm.gres = "gpu:h100:1";
  nlohmann::json rj = api::to_json(run);
  EXPECT_EQ(rj["decide"]["rounds"], 40);
  EXPECT_EQ(api::to_json(api::run_request_from_json(rj)), rj);
}

TEST(CommandRequests, AFieldOfAnotherTypeOrNotAnObjectIsAUsageError) {
  EXPECT_NE(error_of([] { api::env_request_from_json({{"gpu", "zero"}}); }).find("'gpu'"), std::string::npos);
  EXPECT_NE(error_of([] {
              api::compare_request_from_json({{"inputs", "a.json"}});
            }).find("'inputs'"),
            std::string::npos);  // a string where a list belongs
  EXPECT_NE(error_of([] {
              api::run_request_from_json({{"decide", {{"rounds", "many"}}}});
            }).find("'rounds'"),
            std::string::npos);
  EXPECT_NE(error_of([] { api::analyze_request_from_json(nlohmann::json::array()); }).find("not a JSON object"),
            std::string::npos);
  EXPECT_EQ(api::env_request_from_json(nlohmann::json::object()).gpu, kDefaultGpu);  // missing: the default
}

TEST(CommandRequests, ValidateChecksRangesAndWhatEachMustHold) {
  api::EnvRequest env;
  EXPECT_NO_THROW(api::validate(env));
  env.probe_timeout_s = 0;
  EXPECT_NE(error_of([&] { api::validate(env); }).find("--timeout"), std::string::npos);
  api::CompareRequest cmp;
  cmp.inputs = {"a.json"};
  EXPECT_NE(error_of([&] { api::validate(cmp); }).find("two saved results"), std::string::npos);
  api::AnalyzeRequest an;
  EXPECT_NE(error_of([&] { api::validate(an); }).find("no report"), std::string::npos);
  an.report = "r.csv";
  an.top = 0;
  EXPECT_NE(error_of([&] { api::validate(an); }).find("--top"), std::string::npos);
  api::BuildRequest build;
  EXPECT_NE(error_of([&] { api::validate(build); }).find("no kernel"), std::string::npos);
  api::CheckRequest check;
  check.kernel.kernels = {"a.cu", "b.cu"};
  EXPECT_NE(error_of([&] { api::validate(check); }).find("one kernel"), std::string::npos);
  api::RunCommandRequest run;
  run.k.kernels = {"v0.cu"};
  run.decide = true;
  run.rounds = 3;  // below the rows' minimum (kMinRounds)
  EXPECT_NE(error_of([&] { api::validate(run); }).find("--rounds"), std::string::npos);
  run.rounds = kDefaultRounds;
  run.decide_time = "wall";
  EXPECT_NE(error_of([&] { api::validate(run); }).find("--decide-time"), std::string::npos);
}

TEST(OptionRules, NeedsAndExcludesComeFromTheRowsForEveryFace) {
  api::ClocksCommandRequest clocks;
  clocks.max = true;  // --max needs --lock
  EXPECT_NE(error_of([&] { api::validate(clocks); }).find("--max is an option of --lock"), std::string::npos);
  clocks = {};
  clocks.lock = clocks.reset = true;
  EXPECT_NE(error_of([&] { api::validate(clocks); }).find("--lock excludes --reset"), std::string::npos);

  api::RunCommandRequest run;
  run.k.kernels = {"v0.cu"};
  run.slurm.time = "10";  // a Slurm option without --slurm
  EXPECT_NE(error_of([&] { api::validate(run); }).find("--time is an option of --slurm"), std::string::npos);
  run = {};
  run.k.kernels = {"v0.cu"};
  run.rounds = 30;  // a --decide option without --decide
  EXPECT_NE(error_of([&] { api::validate(run); }).find("--rounds is an option of --decide"), std::string::npos);
  run.decide = true;
  EXPECT_NO_THROW(api::validate(run));
  run.sweep = {"N=1Ki..4Ki"};
  EXPECT_NE(error_of([&] { api::validate(run); }).find("does not combine with --sweep"), std::string::npos);
  run = {};
  run.k.kernels = {"v0.cu"};
  run.gpus = "0,1";
  run.slurm.enabled = true;
  EXPECT_NE(error_of([&] { api::validate(run); }).find("--gpus and --slurm exclude each other"), std::string::npos);
  run.slurm.enabled = false;
  run.k.spec.gpu = 1;
  EXPECT_NE(error_of([&] { api::validate(run); }).find("--gpus and --gpu"), std::string::npos);
  // The command line passes the options it saw: --gpu 0 (the default) with --gpus is refused too.
  EXPECT_THROW(api::check_option_rules("run", {"--gpus", "--gpu"}), Error);
  EXPECT_THROW(api::check_option_rules("build", {"--backend", "--implementation"}), Error);
  EXPECT_NO_THROW(api::check_option_rules("run", {"--decide", "--rounds", "--confirm"}));
  // Every rule names a row of the same command.
  for (const auto& cmd : api::public_commands())
    for (const api::OptionRow* r : api::command_rows(cmd)) {
      if (!r->needs.empty()) EXPECT_NO_THROW(api::option_row(cmd, r->needs)) << cmd << " " << r->flag;
      for (const auto& e : r->excludes) EXPECT_NO_THROW(api::option_row(cmd, e)) << cmd << " " << r->flag;
    }
}

TEST(RunnerRequest, RoundTripsAndIsValidated) {
  api::RunnerRequest r;
  r.spec.kernel = "k.cu";
  r.spec.so_path = "lib/k.so";
  r.spec.seed = 9;
  r.spec.nvcc_flags = {"-DX=1"};
  r.spec.dims.set("N", "4096");
  r.warmup_calls = 7;
  nlohmann::json j = api::to_json(r);
  EXPECT_EQ(j["command"], "__runner");
  EXPECT_EQ(j["kprof_version"], KPROF_VERSION);
  api::RunnerRequest back = api::runner_request_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(api::to_json(back), j);
  EXPECT_EQ(back.spec.dims.to_string(), "N=4096");
  EXPECT_NO_THROW(api::validate(back));
  back.warmup_calls = -1;
  EXPECT_THROW(api::validate(back), Error);
  EXPECT_THROW(api::validate(api::RunnerRequest{}), Error);  // no kernel
  EXPECT_NE(error_of([] {
              api::runner_request_from_json({{"kernel", "k.cu"}, {"dims", {1, 2}}});
            }).find("'dims'"),
            std::string::npos);
}

namespace {

/// Each field of `j` (nested objects walked into, an empty object taken as one field), as a path of
/// keys; "command" and "kprof_version" left out (the header, written but never read).
void field_paths(const nlohmann::json& j, std::vector<std::string>& prefix,
                 std::vector<std::vector<std::string>>& out) {
  for (const auto& [key, v] : j.items()) {
    if (prefix.empty() && (key == "command" || key == "kprof_version")) continue;
    prefix.push_back(key);
    if (v.is_object() && !v.empty())
      field_paths(v, prefix, out);
    else
      out.push_back(prefix);
    prefix.pop_back();
  }
}

/// `v` changed to another value of its JSON type: a number +1 (+0.5 when a float), a bool
/// flipped, a string, an array or an object grown by one element (a string of digits by a digit).
nlohmann::json changed(const nlohmann::json& v) {
  if (v.is_boolean()) return !v.get<bool>();
  if (v.is_number_unsigned()) return v.get<uint64_t>() + 1;
  if (v.is_number_integer()) return v.get<int64_t>() + 1;
  if (v.is_number_float()) return v.get<double>() + 0.5;
  if (v.is_string()) {  // a number written as text (a dimension) stays a number
    const std::string t = v.get<std::string>();
    return t + (!t.empty() && t.find_first_not_of("0123456789") == std::string::npos ? "1" : "x");
  }
  nlohmann::json c = v;
  if (v.is_array()) c.push_back(v.empty() ? nlohmann::json("x") : v.back());
  if (v.is_object()) c["Z"] = "7";  // dims: {"NAME": "TEXT"}
  return c;
}

/// For each field `to_json` writes, that field changed alone comes back from `from_json` changed:
/// a field written but not read (or read under another key) fails here, naming it.
template <class To, class From>
void expect_every_field_read_back(const nlohmann::json& base, To to_json, From from_json) {
  std::vector<std::string> prefix;
  std::vector<std::vector<std::string>> paths;
  field_paths(base, prefix, paths);
  EXPECT_GT(paths.size(), 3u);
  for (const auto& path : paths) {
    nlohmann::json m = base;
    nlohmann::json* at = &m;
    std::string name;
    for (const auto& k : path) {
      at = &(*at)[k];
      name += (name.empty() ? "" : ".") + k;
    }
    *at = changed(*at);
    try {
      EXPECT_EQ(to_json(from_json(m)), m)
          << base.value("command", "request") << ": field '" << name << "' is written but not read back";
    } catch (const Error& e) {
      ADD_FAILURE() << "field '" << name << "': " << e.what();
    }
  }
}

}  // namespace

TEST(RequestFields, EveryFieldWrittenIsReadBack) {
  using nlohmann::json;
  api::KernelRequest k;
  k.kernels = {"k.cu"};
  k.spec.dims.set("N", "4096");
  expect_every_field_read_back(
      api::to_json(k), [](const api::KernelRequest& r) { return api::to_json(r); },
      [](const json& j) { return api::kernel_request_from_json(j); });
  expect_every_field_read_back(
      api::to_json(api::ProfileRequest{}), [](const api::ProfileRequest& r) { return api::to_json(r); },
      [](const json& j) { return api::profile_request_from_json(j); });
  api::RunnerRequest runner;
  runner.spec.kernel = "k.cu";
  expect_every_field_read_back(
      api::to_json(runner), [](const api::RunnerRequest& r) { return api::to_json(r); },
      [](const json& j) { return api::runner_request_from_json(j); });
  api::RunCommandRequest run;
  run.k.kernels = {"v0.cu", "v1.cu"};
  expect_every_field_read_back(
      api::to_json(run), [](const api::RunCommandRequest& r) { return api::to_json(r); },
      [](const json& j) { return api::run_request_from_json(j); });
  expect_every_field_read_back(
      api::to_json(api::EnvRequest{}), [](const api::EnvRequest& r) { return api::to_json(r); },
      [](const json& j) { return api::env_request_from_json(j); });
  expect_every_field_read_back(
      api::to_json(api::ClocksCommandRequest{}), [](const api::ClocksCommandRequest& r) { return api::to_json(r); },
      [](const json& j) { return api::clocks_request_from_json(j); });
  expect_every_field_read_back(
      api::to_json(api::BuildRequest{}), [](const api::BuildRequest& r) { return api::to_json(r); },
      [](const json& j) { return api::build_request_from_json(j); });
  api::CheckRequest check;
  check.kernel.kernels = {"k.cu"};
  expect_every_field_read_back(
      api::to_json(check), [](const api::CheckRequest& r) { return api::to_json(r); },
      [](const json& j) { return api::check_request_from_json(j); });
  expect_every_field_read_back(
      api::to_json(api::CompareRequest{}), [](const api::CompareRequest& r) { return api::to_json(r); },
      [](const json& j) { return api::compare_request_from_json(j); });
  expect_every_field_read_back(
      api::to_json(api::AnalyzeRequest{}), [](const api::AnalyzeRequest& r) { return api::to_json(r); },
      [](const json& j) { return api::analyze_request_from_json(j); });
}

TEST(RequestFields, AFieldWrittenButNotReadFailsTheCheck) {
  // The check itself can fail: a request whose reader drops one field.
  using nlohmann::json;
  EXPECT_NONFATAL_FAILURE(expect_every_field_read_back(
                              api::to_json(api::EnvRequest{}), [](const api::EnvRequest& r) { return api::to_json(r); },
                              [](const json& j) {
                                json dropped = j;
                                dropped.erase("no_html");
                                return api::env_request_from_json(dropped);
                              }),
                          "field 'no_html' is written but not read back");
}
