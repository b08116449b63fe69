// One request in (issue 47 item 3): the children kprof starts read a typed request, not words.
// On the CPU machine (no GPU: the first CUDA call stands where the GPU would be) each protocol is
// driven through the built kprof: the parent's request (flows' runner_request, the session plan,
// the worker's units.json) is read back by the child, which gets past parsing to the GPU step,
// and a malformed request is refused with exit 2 naming its field.
#include <gtest/gtest.h>

#include <string>

#include "api/requests.hpp"
#include "core/fs.hpp"
#include "flows/profile.hpp"
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
