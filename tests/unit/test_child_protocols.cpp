// One request in (issue 47 item 3): the children kprof starts read a typed request, not words.
// On the CPU machine (no GPU: the first CUDA call stands where the GPU would be) each protocol is
// driven through the built kprof: the parent's request (flows' runner_request, the session plan,
// the worker's units.json) is read back by the child, which gets past parsing to the GPU step,
// and a malformed request is refused with exit 2 naming its field.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "api/command_requests.hpp"
#include "api/requests.hpp"
#include "api/run_request.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/host_json.hpp"
#include "core/outcome.hpp"
#include "core/probe_request.hpp"
#include "core/tools.hpp"
#include "device/cuda.hpp"
#include "flows/profile.hpp"
#include "flows/units.hpp"
#include "flows/worker.hpp"
#include "stages/ncu/runner.hpp"
#include "stages/ncu/session.hpp"
#include "test_env_util.hpp"

using namespace kprof;
using kprof::testutil::run_kprof;
using kprof::testutil::TempDir;

namespace {

KernelSpec vadd_spec() {
  KernelSpec s;
  s.kernel = std::string(KPROF_EXAMPLES_DIR) + "/cuda/vector_add/vector_add.cu";
  s.dims.set("N", "1024");
  s.seed = 5;
  return s;
}

}  // namespace

TEST(ChildProtocols, RunnerReadsItsRequestFromTheFileTheParentWrites) {
  TempDir dir;
  TimingResult timing;
  timing.warmup_calls = 40;  // clamped to 20
  nlohmann::json sent = runner_request(vadd_spec(), timing);
  EXPECT_EQ(sent["warmup_calls"], 20);
  const std::string path = join_path(dir.path(), "runner_request.json");
  write_file_atomic(path, sent.dump());
  api::RunnerRequest got = api::runner_request_from_json(nlohmann::json::parse(read_file(path)));
  EXPECT_EQ(api::to_json(got), sent);
  ProcessResult r = run_kprof({"__runner", "--request", path});
  // Parsed and validated: what stops it on this machine is the GPU step, never the request (exit 2).
  EXPECT_NE(r.exit_code, 2) << r.combined();
  EXPECT_FALSE(testutil::contains(r.err, "request")) << r.err;

  sent["seed"] = "five";
  write_file_atomic(path, sent.dump());
  r = run_kprof({"__runner", "--request", path});
  EXPECT_EQ(r.exit_code, 2) << r.combined();
  EXPECT_TRUE(testutil::contains(r.err, "'seed'")) << r.err;
  r = run_kprof({"__runner", "--request", path, "k.cu"});
  EXPECT_EQ(r.exit_code, 2) << r.combined();
  r = run_kprof({"__runner", "--request", join_path(dir.path(), "missing.json")});
  EXPECT_EQ(r.exit_code, 2) << r.combined();
  EXPECT_TRUE(testutil::contains(r.err, "missing.json")) << r.err;
}

TEST(ChildProtocols, SessionReadsEachVersionsRequestFromThePlan) {
  TempDir dir;
  TimingResult timing;
  nlohmann::json bad = runner_request(vadd_spec(), timing);
  bad["warmup_calls"] = "three";
  std::vector<SessionPlanEntry> plan = {{"v0", bad}, {"v1", runner_request(vadd_spec(), timing)}};
  const std::string path = join_path(dir.path(), "ncu_session.json");
  write_file_atomic(path, session_plan_json(plan).dump());
  ProcessResult r = run_kprof({"__session", path});
  EXPECT_EQ(r.exit_code, 1) << r.combined();
  // v0's request is refused by name; v1's is read and stops only at the GPU step.
  std::string v0 = session_mark_line(SessionState::Skipped, "v0", "x");
  EXPECT_TRUE(testutil::contains(r.err, v0.substr(0, v0.size() - 1) + "request field 'warmup_calls'")) << r.err;
  std::string v1 = session_mark_line(SessionState::Skipped, "v1", "x");
  EXPECT_TRUE(testutil::contains(r.err, v1.substr(0, v1.size() - 1))) << r.err;
  EXPECT_FALSE(testutil::contains(r.err, v1.substr(0, v1.size() - 1) + "request")) << r.err;
}

// ---- One outcome out (issue 47 item 3): each child writes one outcome document where its parent
// names it (core/outcome.hpp), and the parent reads that, never a file name or a time window. On
// the CPU machine a fake ncu / compute-sanitizer stands in front of the built kprof, and the GPU
// step (which fails here) is where the child's own answer comes from.

namespace {

/// A fake ncu that runs its target (the words from the built kprof on) and exits with its code.
std::string fake_ncu(const TempDir& dir) {
  const std::string path = dir / "ncu";
  testutil::write(path,
                  std::string("#!/bin/sh\nwhile [ $# -gt 0 ] && [ \"$1\" != \"") + KPROF_BINARY +
                      "\" ]; do shift; done\n\"$@\"\nexit $?\n",
                  true);
  return path;
}

NcuRunOptions fake_ncu_run(const TempDir& dir, std::vector<std::string> target) {
  NcuRunOptions o;
  o.ncu = fake_ncu(dir);
  o.target = std::move(target);
  o.report_base = dir / "profile";
  o.show_progress = false;
  o.timeout_s = 120;
  return o;
}

}  // namespace

TEST(ChildProtocols, ProbeReadsItsRequestAndAnswersWithItsOutcome) {
  if (cuda_unavailable_reason().empty()) GTEST_SKIP() << "the GPU step fails only without a GPU";
  TempDir dir;
  ProbeRequest sent;
  sent.gpu = 0;
  sent.host.self_command = {KPROF_BINARY};
  sent.host.cupti_dirs = {"/venv/lib/python3.12/site-packages/nvidia/cu13/lib"};
  nlohmann::json j = to_json(sent);
  EXPECT_EQ(j["command"], "__probe");
  EXPECT_EQ(to_json(probe_request_from_json(nlohmann::json::parse(j.dump()))), j);
  const std::string path = dir / "probe_request.json";
  testutil::write(path, j.dump());
  NcuCounters c = probe_ncu_counters(fake_ncu(dir), {KPROF_BINARY, "__probe", "--request", path}, 60);
  EXPECT_TRUE(c.checked);
  EXPECT_FALSE(c.readable);
  // The child's own words (why its kernel did not run), not a guess from ncu's output.
  EXPECT_TRUE(testutil::contains(c.error, "kprof's probe kernel failed under ncu (exit 1): ")) << c.error;
  EXPECT_FALSE(c.fix.empty());

  testutil::write(path, R"({"gpu": "zero"})");
  ProcessResult r = run_kprof({"__probe", "--request", path});
  EXPECT_EQ(r.exit_code, 2) << r.combined();
  EXPECT_TRUE(testutil::contains(r.err, "'gpu'")) << r.err;
  testutil::write(path, R"({"host": {}})");  // no GPU named: the parent always names one
  r = run_kprof({"__probe", "--request", path});
  EXPECT_EQ(r.exit_code, 2) << r.combined();
  EXPECT_TRUE(testutil::contains(r.err, "'gpu'")) << r.err;
  r = run_kprof({"__probe", "--request", path, "--gpu", "1"});
  EXPECT_EQ(r.exit_code, 2) << r.combined();
}

TEST(ChildProtocols, ProbeOutcomeFoldsIntoTheResultOnlyWhenTheKernelFailed) {
  NcuCounters read;
  read.readable = true;
  ChildOutcome failed;
  failed.found = true;
  failed.exit_code = 1;
  failed.error = "no CUDA GPU";
  failed.hint = "check the driver";
  apply_probe_outcome(read, failed);
  EXPECT_TRUE(read.error.empty());  // the value came back: nothing to explain
  NcuCounters none;
  none.error = "ncu returned no value";
  apply_probe_outcome(none, ChildOutcome{});  // no outcome: ncu's own failure stands
  EXPECT_EQ(none.error, "ncu returned no value");
  apply_probe_outcome(none, failed);
  EXPECT_EQ(none.error, "kprof's probe kernel failed under ncu (exit 1): no CUDA GPU");
  EXPECT_EQ(none.fix, "check the driver");
}

TEST(ChildProtocols, RunnerUnderNcuAnswersWithItsOutcome) {
  if (cuda_unavailable_reason().empty()) GTEST_SKIP() << "the GPU step fails only without a GPU";
  TempDir dir;
  const std::string path = dir / "runner_request.json";
  write_file_atomic(path, runner_request(vadd_spec(), TimingResult{}).dump());
  NcuRunResult r = run_ncu(fake_ncu_run(dir, {KPROF_BINARY, "__runner", "--request", path}));
  EXPECT_EQ(r.failure, NcuFailure::RunnerFailed) << r.message;
  ASSERT_TRUE(r.target.found) << r.target.problem;
  EXPECT_EQ(r.target.command, "__runner");
  EXPECT_EQ(r.target.exit_code, 1);
  ASSERT_FALSE(r.target.error.empty());
  // The failed runner's own message, from its outcome, instead of "see the ncu log".
  EXPECT_EQ(r.message, "the profiled kprof process failed (exit code 1): " + r.target.error);
}

TEST(ChildProtocols, SessionHandsEachVersionsMarkInItsOutcome) {
  if (cuda_unavailable_reason().empty()) GTEST_SKIP() << "the GPU step fails only without a GPU";
  TempDir dir;
  nlohmann::json bad = runner_request(vadd_spec(), TimingResult{});
  bad["warmup_calls"] = "three";
  std::vector<SessionPlanEntry> plan = {{"v0", bad}, {"v1", runner_request(vadd_spec(), TimingResult{})}};
  const std::string path = dir / "ncu_session.json";
  write_file_atomic(path, session_plan_json(plan).dump());
  NcuRunOptions o = fake_ncu_run(dir, {KPROF_BINARY, "__session", path});
  o.keep_partial = true;
  NcuRunResult r = run_ncu(o);
  ASSERT_TRUE(r.target.found) << r.target.problem;
  EXPECT_EQ(r.target.command, "__session");
  auto marks = session_marks_from_results(r.target.results);
  ASSERT_EQ(marks.size(), 2u) << r.target.results.dump();
  EXPECT_EQ(marks["v0"].state, SessionState::Skipped);
  EXPECT_TRUE(testutil::contains(marks["v0"].why, "request field 'warmup_calls'")) << marks["v0"].why;
  EXPECT_EQ(marks["v1"].state, SessionState::Skipped);
  // The same marks the lines carry, now as one document.
  auto lines = read_session_marks(r.log);
  for (const auto& [name, m] : marks) {
    EXPECT_EQ(lines[name].state, m.state) << name;
    EXPECT_EQ(lines[name].why, m.why) << name;
  }
}

TEST(ChildProtocols, WorkerNamesEachUnitItWroteInItsOutcomeAsItGoes) {
  TempDir dir;
  const std::string doc = dir / "worker_outcome.json";
  Unit a{"v0", 0, "v0.cu", {{"N", "8"}}, "N=8"};
  Unit b{"v1", 1, "v1.cu", {{"N", "8"}}, "N=8"};
  reset_outcome();
  {
    testutil::ScopedEnv named("KPROF_OUTCOME_FILE", doc);
    UnitLog log;
    UnitResult ra;
    ra.unit = a;
    ra.status = UnitStatus::NotRun;
    log.add(dir / "out", ra);
    // After each unit: a checkpoint (exit -1, not ended) naming the units so far.
    ChildOutcome so_far = read_outcome(doc);
    ASSERT_TRUE(so_far.found) << so_far.problem;
    EXPECT_EQ(so_far.exit_code, -1);
    EXPECT_EQ(units_written(so_far), std::set<std::string>{"v0/N=8"});
    EXPECT_TRUE(read_unit_result(dir / "out", a).has_value());  // the result itself, in its file
    // A supervisor adopts what its child names: its own outcome then names both.
    ChildOutcome child;
    child.found = true;
    child.results = {{"units", {{{"id", b.id()}, {"status", "crash"}}}}};
    log.adopt(child);
  }
  EXPECT_EQ(units_written(read_outcome(doc)), (std::set<std::string>{"v0/N=8", "v1/N=8"}));
  EXPECT_TRUE(units_written(ChildOutcome{}).empty());  // none written: every unit runs again
  reset_outcome();
}

TEST(ChildProtocols, TheHostTravelsInEveryChildsRequest) {
  Host h;
  h.python = "/venv/bin/python3";
  h.self_command = {"/venv/bin/python3", "-m", "kprof"};
  h.cupti_dirs = {"/venv/lib/python3.12/site-packages/nvidia/cu13/lib"};
  nlohmann::json hj = host_to_json(h);
  EXPECT_EQ(host_to_json(host_from_json(hj)), hj);
  api::RunnerRequest runner;
  runner.spec.kernel = "k.cu";
  runner.host = h;
  EXPECT_EQ(api::runner_request_from_json(api::to_json(runner)).host.self_command, h.self_command);
  api::CheckRequest check;
  check.kernel.kernels = {"k.cu"};
  check.host = h;
  EXPECT_EQ(api::check_request_from_json(api::to_json(check)).host.cupti_dirs, h.cupti_dirs);
  api::RunCommandRequest run;
  run.k.kernels = {"v0.cu"};
  run.host = h;
  EXPECT_EQ(api::run_request_from_json(api::to_json(run)).host.python, h.python);
  ProbeRequest probe;
  probe.gpu = 1;
  probe.host = h;
  EXPECT_EQ(probe_request_from_json(to_json(probe)).host.self_command, h.self_command);
  // The flows fill it from this process's host.
  {
    ScopedHost hosted(h);
    EXPECT_EQ(runner_request(vadd_spec(), TimingResult{})["host"], hj);
  }
  try {
    api::runner_request_from_json({{"kernel", "k.cu"}, {"host", {{"self_command", "python -m kprof"}}}});
    ADD_FAILURE() << "a string where a list belongs was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
    EXPECT_TRUE(testutil::contains(e.what(), "'host.self_command'")) << e.what();
  }
}

TEST(ChildProtocols, AChildAdoptsItsParentsHostButKeepsItsOwnInterpreter) {
  Host own;
  own.cupti_dirs = {"/own/cupti"};
  ScopedHost mine(own);
  Host parent;
  parent.python = "/venv/bin/python3";
  parent.owns_stdout = false;
  parent.self_command = {"/venv/bin/python3", "-m", "kprof"};
  parent.cupti_dirs = {"/venv/cupti", "/own/cupti"};
  adopt_host(parent);
  Host now = current_host();
  EXPECT_EQ(now.self_command, parent.self_command);
  EXPECT_EQ(now.cupti_dirs, (std::vector<std::string>{"/venv/cupti", "/own/cupti"}));
  EXPECT_FALSE(now.python.has_value());  // this process embeds its own Python
  EXPECT_TRUE(now.owns_stdout);
  adopt_host(Host{});  // a parent that names none changes nothing
  EXPECT_EQ(current_host().self_command, parent.self_command);
}

TEST(ChildProtocols, TheSupervisorTrustsItsChildsOutcomeNotTheResultFiles) {
  // A fake child worker stands where kprof's own would run the units on the GPU: run for the shard
  // it names unit v0 in its outcome and leaves a result file for v1 that it does not name; run for
  // v1 alone it dies (SIGABRT) without an outcome. The supervisor reruns v1 alone (its file is not
  // what the child said it wrote) and gives it a crash result; v0 is not run again.
  TempDir dir;
  const std::string out = dir / "out";
  Unit a{"v0", 0, "v0.cu", {{"N", "8"}}, "N=8"};
  Unit b{"v1", 1, "v1.cu", {{"N", "8"}}, "N=8"};
  testutil::write(dir / "worker",
                  "#!/bin/sh\necho \"$@\" >> " + dir / "calls" +
                      "\ncase \"$*\" in\n  *\"--unit \"*) kill -ABRT $$ ;;\n"
                      "  *) mkdir -p " +
                      out + "/units/v1 && echo '{}' > " + out +
                      "/units/v1/N=8.json\n"
                      "     printf '{\"exit_code\": 1, \"command\": \"__worker\", \"results\": {\"units\": "
                      "[{\"id\": \"v0/N=8\", \"status\": \"ok\"}]}}' > \"$KPROF_OUTCOME_FILE\"\n"
                      "     exit 1 ;;\nesac\n",
                  true);
  WorkerRequest req;
  req.base.versions = {vadd_spec(), vadd_spec()};
  req.plan.units = {a, b};
  req.plan.run_ids = {a.id(), b.id()};
  req.plan.out = out;
  req.units_path = dir / "units.json";
  req.self_exe = {dir / "worker"};
  const std::string mine = dir / "supervisor_outcome.json";
  reset_outcome();
  int code;
  {
    testutil::ScopedEnv named("KPROF_OUTCOME_FILE", mine);
    code = run_worker(req);
  }
  EXPECT_EQ(code, 1);
  std::string calls = testutil::read_file_or_empty(dir / "calls");
  EXPECT_TRUE(testutil::contains(calls, "--unit v1/N=8")) << calls;
  EXPECT_FALSE(testutil::contains(calls, "--unit v0/N=8")) << calls;
  auto rb = read_unit_result(out, b);
  ASSERT_TRUE(rb.has_value());
  EXPECT_EQ(rb->status, UnitStatus::Crash);
  EXPECT_TRUE(testutil::contains(rb->reason, "killed by signal 6")) << rb->reason;
  // The supervisor's own outcome names both: v0 as its child said, v1 as it wrote it.
  EXPECT_EQ(units_written(read_outcome(mine)), (std::set<std::string>{"v0/N=8", "v1/N=8"}));
  reset_outcome();
}
