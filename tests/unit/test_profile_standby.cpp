// `kprof profile`'s standby ncu session (flows/ncu_standby.hpp StandbySession::for_profile)
// against a stand-in ncu: ncu starts on `kprof __session PRELIM --standby GO` before the timing,
// its output is held until the release, the release writes the one-version plan (with the timing's
// --warmup) to GO, and the report is OUT_DIR/profile.ncu-rep.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "core/fs.hpp"
#include "flows/ncu_standby.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

namespace {

/// A stand-in ncu: records its arguments, waits for the GO file named after --standby (as the
/// standby runner does), copies it to DIR/go.seen, writes the report named by -o; `--import`
/// prints one CSV row.
std::string fake_ncu(const TempDir& dir) {
  std::string path = dir / "ncu";
  write_file_atomic(
      path,
      "#!/bin/sh\n"
      "case \" $* \" in *\" --import \"*) echo '\"ID\",\"Kernel Name\"'; echo '\"0\",\"k\"'; exit 0;; esac\n"
      "echo \"$@\" > \"" +
          dir.path() +
          "/argv.txt\"\n"
          "while [ $# -gt 0 ]; do\n"
          "  [ \"$1\" = \"-o\" ] && out=$2; [ \"$1\" = \"--standby\" ] && go=$2; shift\n"
          "done\n"
          "echo '==PROF== Connected to process 1'\n"
          "i=0; while [ ! -f \"$go\" ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i+1)); done\n"
          "cp \"$go\" \"" +
          dir.path() +
          "/go.seen\"\n"
          "echo '==PROF== Profiling \"k\" - 0: 0%....50%....100% - 3 passes'\n"
          "touch \"$out.ncu-rep\"\n");
  ::chmod(path.c_str(), 0755);
  return path;
}

}  // namespace

TEST(ProfileStandby, StartsBeforeTheTimingAndRunsTheFinalPlanOnRelease) {
  TempDir dir;
  kprof::testutil::ScopedEnv ncu("KPROF_NCU", fake_ncu(dir));
  KernelSpec spec;
  spec.kernel = std::string(KPROF_SOURCE_DIR) + "/examples/attention/cuda/v5.cu";
  ProfileSettings s;
  s.show_progress = false;
  s.ncu_timeout_s = 60;
  make_dirs(dir / "out");
  auto standby = StandbySession::for_profile(spec, "v5", s, dir / "out");
  for (int i = 0; i < 100 && !path_exists(dir / "argv.txt"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::string argv = read_file(dir / "argv.txt");  // ncu started before any release
  EXPECT_TRUE(contains(argv, "__session " + (dir / "out/ncu_session.standby.json") + " --standby")) << argv;
  EXPECT_TRUE(contains(argv, "-o " + (dir / "out/profile"))) << argv;
  EXPECT_TRUE(contains(argv, "--clock-control none")) << argv;
  EXPECT_FALSE(path_exists(dir / "go.seen"));  // still waiting
  NcuRunResult r = standby->release({{"v5", {spec.kernel, "--warmup", "7"}}}, 60, nullptr);
  EXPECT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.report_path, dir / "out/profile.ncu-rep");
  auto go = nlohmann::json::parse(read_file(dir / "go.seen"));
  ASSERT_EQ(go["versions"].size(), 1u) << go.dump();
  EXPECT_EQ(go["versions"][0]["name"], "v5");
  EXPECT_TRUE(contains(go.dump(), "\"7\"")) << go.dump();  // the timing's warm-up count reached the runner
}
