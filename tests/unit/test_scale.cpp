// Scaled runs without a GPU (docs/SCALE.md): sweep axes and grids, the unit list, sharding, result
// files and resume, the status of a unit, the merged reports, the Slurm script and the parsing of
// sbatch / sacct output, the option words a worker parses again, and ncu's driver-resource error.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "cli/run_options.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/sweep.hpp"
#include "core/tools.hpp"
#include "flows/scale_run.hpp"
#include "flows/slurm.hpp"
#include "flows/units.hpp"
#include "python/plot.hpp"
#include "report/units_report.hpp"
#include "stages/env/gpu_info.hpp"
#include "stages/ncu/runner.hpp"

using namespace kprof;

namespace {

namespace fs = std::filesystem;

std::string fresh_dir(const std::string& name) {
  std::string d = (fs::temp_directory_path() / ("kprof_scale_" + name + "_" + std::to_string(::getpid()))).string();
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::vector<KernelSpec> two_versions() {
  KernelSpec a, b;
  a.kernel = "dir/v0.cu";
  b.kernel = "other/v0.cu";  // same stem: named v0 and v0-2
  a.dims.set("D", "64");
  b.dims = a.dims;
  return {a, b};
}

/// A result of `u` with a row timed at `ms` and classified memory-bound at `pct` of its bound.
UnitResult timed_result(const Unit& u, double ms, double pct, const std::string& gpu = "NVIDIA H200") {
  UnitResult r;
  r.unit = u;
  r.status = UnitStatus::Ok;
  r.place.gpu_name = gpu;
  r.place.gpu_uuid = "GPU-5f0c1a2b-0000-1111-2222-333344445555";
  r.place.driver = "580.159.04";
  r.row.name = u.version;
  r.row.status = VersionStatus::Pass;
  r.row.profiled = true;
  r.row.kernel_ms = ms;
  r.row.kernel_std_ms = ms * 0.01;
  r.row.profile = ProfileStatus::Classified;
  r.row.cls = Bottleneck::MemoryBound;
  r.row.pct_of_bound = pct;
  return r;
}

}  // namespace

TEST(Sweep, SizeLiteralsAndAxes) {
  EXPECT_EQ(parse_size_literal("1024"), 1024);
  EXPECT_EQ(parse_size_literal("1Ki"), 1024);
  EXPECT_EQ(parse_size_literal("64Mi"), 64LL << 20);
  EXPECT_EQ(parse_size_literal("2Gi"), 2LL << 30);
  EXPECT_THROW(parse_size_literal("1K"), Error);
  EXPECT_THROW(parse_size_literal("-4"), Error);
  SweepAxis a = parse_sweep_axis("N=1Ki..64Mi");
  EXPECT_EQ(a.name, "N");
  ASSERT_EQ(a.values.size(), 17u);  // 2^10 .. 2^26
  EXPECT_EQ(a.values.front(), 1024);
  EXPECT_EQ(a.values.back(), 64LL << 20);
  EXPECT_EQ(parse_sweep_axis("N=3..20").values, (std::vector<int64_t>{3, 6, 12}));
  EXPECT_EQ(parse_sweep_axis("--D=64,4096").values, (std::vector<int64_t>{64, 4096}));
  EXPECT_THROW(parse_sweep_axis("N"), Error);
  EXPECT_THROW(parse_sweep_axis("N=8..2"), Error);
  EXPECT_THROW(parse_sweep_axis("1N=8"), Error);
  EXPECT_EQ(parse_sweep_axis("N=1..1099511627776").values.size(), 41u);
  EXPECT_THROW(parse_sweep_axis("N=1Ki..64Xi"), Error);
}

TEST(Sweep, GridOrderKeysAndDims) {
  auto grid = sweep_grid({parse_sweep_axis("N=1024,2048,4096"), parse_sweep_axis("D=64,128")});
  ASSERT_EQ(grid.size(), 6u);
  EXPECT_EQ(grid[0], (SweepPoint{{"N", "1024"}, {"D", "64"}}));
  EXPECT_EQ(grid[1], (SweepPoint{{"N", "1024"}, {"D", "128"}}));
  EXPECT_EQ(grid[5], (SweepPoint{{"N", "4096"}, {"D", "128"}}));
  EXPECT_THROW(sweep_grid({parse_sweep_axis("N=1,2"), parse_sweep_axis("N=4")}), Error);
  EXPECT_EQ(sweep_grid({}).size(), 1u);
  SweepAxis big = parse_sweep_axis("A=1..64Ki");  // 17 values: 17^3 points is over the limit
  SweepAxis b2 = big, b3 = big;
  b2.name = "B";
  b3.name = "C";
  EXPECT_THROW(sweep_grid({big, b2, b3}), Error);
  Dims base;
  base.set("D", "32");
  base.set("alpha", "0.5");
  Dims d = dims_at(base, grid[1]);
  EXPECT_EQ(d.to_string(), "D=128 alpha=0.5 N=1024");  // D replaced in place, N added
  EXPECT_EQ(dims_key(d), "D=128_alpha=0.5_N=1024");
  EXPECT_EQ(dims_key(Dims{}), "nodims");
}

TEST(Units, MadePointMajorWithUniqueNames) {
  auto units = make_units(two_versions(), sweep_grid({parse_sweep_axis("N=1024,2048")}));
  ASSERT_EQ(units.size(), 4u);
  EXPECT_EQ(units[0].id(), "v0/D=64_N=1024");
  EXPECT_EQ(units[1].id(), "v0-2/D=64_N=1024");
  EXPECT_EQ(units[2].id(), "v0/D=64_N=2048");
  EXPECT_EQ(units[3].version_index, 1u);
  EXPECT_EQ(units[3].kernel, "other/v0.cu");
}

TEST(Units, ShardsCoverEveryUnitOnce) {
  auto units = make_units(two_versions(), sweep_grid({parse_sweep_axis("N=1,2,4,8,16")}));  // 10 units, 5 points
  for (int n : {1, 2, 3, 7, 10, 12}) {
    std::multiset<std::string> seen;
    for (int k = 0; k < n; ++k)
      for (const auto& u : shard_of(units, k, n)) seen.insert(u.id());
    EXPECT_EQ(seen.size(), units.size()) << n;
    for (const auto& u : units) EXPECT_EQ(seen.count(u.id()), 1u) << n;
  }
  // 5 points over 2 shards: whole points (both versions of a size together).
  for (const auto& u : shard_of(units, 1, 2)) EXPECT_TRUE(u.key == "D=64_N=2" || u.key == "D=64_N=8") << u.id();
  // 1 point of 8 versions over 2 shards: 4 units each.
  std::vector<KernelSpec> eight(8, two_versions()[0]);
  auto one_point = make_units(eight, sweep_grid({}));
  EXPECT_EQ(shard_of(one_point, 0, 2).size(), 4u);
  EXPECT_EQ(shard_of(one_point, 1, 2).size(), 4u);
  EXPECT_THROW(shard_of(units, 2, 2), Error);
  EXPECT_EQ(parse_shard("3/8"), std::make_pair(3, 8));
  EXPECT_THROW(parse_shard("8/8"), Error);
  EXPECT_THROW(parse_shard("1"), Error);
}

TEST(Units, StatusOfARow) {
  VersionRow r;
  r.status = VersionStatus::Pass;
  r.profile = ProfileStatus::Classified;
  EXPECT_EQ(unit_status_of(r, true, false), UnitStatus::Ok);
  r.profile = ProfileStatus::NotClassified;
  r.profile_reason = "ncu could not profile";
  EXPECT_EQ(unit_status_of(r, true, false), UnitStatus::ProfileUnavailable);
  r.profiled = true;
  EXPECT_EQ(unit_status_of(r, false, false), UnitStatus::Ok);  // --no-ncu
  r.status = VersionStatus::Fail;
  EXPECT_EQ(unit_status_of(r, true, false), UnitStatus::Wrong);
  r.fault = FaultKind::Timeout;
  EXPECT_EQ(unit_status_of(r, true, false), UnitStatus::Timeout);
  r.fault = FaultKind::KernelError;
  EXPECT_EQ(unit_status_of(r, true, false), UnitStatus::Crash);
  r.status = VersionStatus::LoadError;
  EXPECT_EQ(unit_status_of(r, true, true), UnitStatus::BuildError);
  EXPECT_EQ(unit_status_of(r, true, false), UnitStatus::LoadError);
  r.status = VersionStatus::NotRun;
  EXPECT_EQ(unit_status_of(r, true, false), UnitStatus::NotRun);
  for (const char* id :
       {"ok", "wrong", "build_error", "load_error", "timeout", "crash", "profile_unavailable", "not_run"})
    EXPECT_EQ(unit_status_id(*parse_unit_status(id)), id);
  EXPECT_FALSE(parse_unit_status("fine"));
}

TEST(Units, ResultFilesRoundTripAndResume) {
  std::string out = fresh_dir("resume");
  auto units = make_units(two_versions(), sweep_grid({parse_sweep_axis("N=1024,2048")}));
  UnitResult ok = timed_result(units[0], 0.5, 80);
  ok.row.fault = FaultKind::Timeout;
  ok.place.sm_mhz = 1980;
  write_unit_result(out, ok);
  write_unit_result(out, placeholder_result(units[1], UnitStatus::Timeout, "Slurm task 12_0: stopped"));
  UnitResult not_run = timed_result(units[2], 1, 1);
  not_run.status = UnitStatus::NotRun;
  write_unit_result(out, not_run);
  EXPECT_TRUE(path_exists(join_path(out, "units/v0/D=64_N=1024.json")));
  auto back = read_unit_result(out, units[0]);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->status, UnitStatus::Ok);
  EXPECT_EQ(back->unit.dims, units[0].dims);
  EXPECT_EQ(back->place.gpu_uuid, ok.place.gpu_uuid);
  EXPECT_EQ(back->place.sm_mhz, 1980u);
  EXPECT_EQ(back->row.kernel_ms, 0.5);
  EXPECT_EQ(back->row.fault, FaultKind::Timeout);
  // Kept: the worker's ok result. Run again: the placeholder, the not_run, the missing one.
  auto left = pending_units(out, units);
  ASSERT_EQ(left.size(), 3u);
  EXPECT_EQ(left[0].id(), units[1].id());
  EXPECT_EQ(left[2].id(), units[3].id());
  // A broken file counts as missing.
  write_file_atomic(unit_result_path(out, units[0]), "{not json");
  EXPECT_FALSE(read_unit_result(out, units[0]));
}

TEST(Units, PlanRoundTrip) {
  std::string out = fresh_dir("plan");
  UnitPlan p;
  p.units = make_units(two_versions(), sweep_grid({parse_sweep_axis("N=1,2")}));
  p.run_ids = {p.units[1].id(), p.units[3].id()};
  p.request = {{"kernels", {"v0.cu"}}, {"ref", "ref.py"}, {"dims", {{"D", "64"}}}};
  p.cwd = "/work";
  p.out = out;
  p.axes = {"N"};
  p.ncu = false;
  write_unit_plan(p, join_path(out, "units.json"));
  UnitPlan q = read_unit_plan(join_path(out, "units.json"));
  EXPECT_EQ(q.units.size(), 4u);
  EXPECT_EQ(q.units[2].dims, p.units[2].dims);
  EXPECT_EQ(q.request, p.request);
  EXPECT_FALSE(q.ncu);
  auto run = units_to_run(q);
  ASSERT_EQ(run.size(), 2u);
  EXPECT_EQ(run[1].id(), p.units[3].id());
  EXPECT_THROW(read_unit_plan(join_path(out, "missing.json")), Error);
}

TEST(Units, MergedReportsPerSizeAndByVersion) {
  auto units = make_units(two_versions(), sweep_grid({parse_sweep_axis("N=1024,2048")}));
  std::vector<UnitResult> results = {timed_result(units[0], 1.0, 40), timed_result(units[1], 0.5, 80),
                                     timed_result(units[2], 2.0, 45, "NVIDIA H100")};
  MergedUnits m = merge_unit_results(units, results);
  ASSERT_EQ(m.points.size(), 2u);
  EXPECT_EQ(m.total, 3u);
  EXPECT_EQ(m.ok, 3u);
  ASSERT_EQ(m.warnings.size(), 2u);
  EXPECT_NE(m.warnings[0].find("different models"), std::string::npos);
  EXPECT_NE(m.warnings[1].find("1 unit(s) have no result"), std::string::npos);
  // Within a point, the versions are compared: v0-2 is 2x faster than v0 at N=1024.
  ASSERT_TRUE(m.points[0].comparison[1].speedup);
  EXPECT_NEAR(*m.points[0].comparison[1].speedup, 2.0, 1e-9);
  EXPECT_TRUE(m.points[0].comparison[1].fastest);
  std::string md = units_markdown(m, {"N"}, {{"GPUs", "x"}}, "sweep.svg");
  EXPECT_NE(md.find("## D=64 N=1024"), std::string::npos);
  EXPECT_NE(md.find("### v0: class and % of bound by size"), std::string::npos);
  EXPECT_NE(md.find("NVIDIA H100 (GPU-5f0c1a2b)"), std::string::npos);
  EXPECT_NE(md.find("**Warning:**"), std::string::npos);
  EXPECT_NE(md.find("![time and % of bound by size](sweep.svg)"), std::string::npos);
  nlohmann::json j = units_json(m, {"N"}, {});
  EXPECT_EQ(j["schema_version"], 2);
  ASSERT_EQ(j["versions"].size(), 3u);
  EXPECT_EQ(j["versions"][1]["name"], "v0-2/D=64_N=1024");  // kprof compare pairs units by this name
  EXPECT_EQ(j["points"][0]["units"][1]["comparison"]["fastest"], true);
  nlohmann::json chart = sweep_chart_spec(m, {"N"});
  ASSERT_EQ(chart["series"].size(), 2u);
  EXPECT_EQ(chart["series"][0]["x"], nlohmann::json({1024.0, 2048.0}));
  EXPECT_EQ(chart["series"][0]["pct_of_bound"], nlohmann::json({40.0, 45.0}));
}

TEST(Slurm, ScriptTextAndTaskCount) {
  UnitPlan p;
  p.cwd = "/shared/work";
  p.out = "/shared/out";
  SlurmOptions o;
  o.partition = "gpu";
  o.time = "30";
  o.max_parallel = 2;
  EXPECT_EQ(slurm_task_count(8, 2, o), 4);
  o.units_per_task = 3;
  EXPECT_EQ(slurm_task_count(8, 2, o), 3);
  std::string s = sbatch_script(p, "/shared/out/units.json", o, 4, {"/opt/kprof/bin/kprof"});
  EXPECT_EQ(s.rfind("#!/bin/bash\n", 0), 0u);
  for (const char* line :
       {"#SBATCH --array=0-3%2\n", "#SBATCH --partition=gpu\n", "#SBATCH --gres=gpu:1\n", "#SBATCH --time=30\n",
        "#SBATCH --chdir=/shared/work\n", "#SBATCH --output=/shared/out/slurm/task-%a.log\n",
        "/opt/kprof/bin/kprof __worker --units /shared/out/units.json --shard \"$SLURM_ARRAY_TASK_ID/4\" --one-gpu &\n",
        "echo $rc > \"$state.exit\"\n",
        // the worker's outcome document: the units it wrote, what kprof reads (never the files' times)
        "export KPROF_OUTCOME_FILE=\"$state.outcome.json\""})
    EXPECT_NE(s.find(line), std::string::npos) << line << "\n" << s;
  o.gres = "none";
  s = sbatch_script(p, "/shared/out/units.json", o, 1, {"/usr/bin/python3", "-m", "kprof"});
  EXPECT_EQ(s.find("--gres"), std::string::npos);
  EXPECT_EQ(s.find("--one-gpu"), std::string::npos);
  // The Python package's kprof (sys.executable -m kprof): every word kept, in order.
  EXPECT_NE(s.find("/usr/bin/python3 -m kprof __worker --units /shared/out/units.json --shard"), std::string::npos)
      << s;
}

TEST(Slurm, ParsesSbatchAndSacct) {
  EXPECT_EQ(parse_sbatch_job_id("4242\n"), "4242");
  EXPECT_EQ(parse_sbatch_job_id("4243;cluster1\n"), "4243");
  EXPECT_THROW(parse_sbatch_job_id("sbatch: error: invalid partition specified: gpu\n"), Error);
  auto st =
      parse_sacct_states("12_0|COMPLETED\n12_1|TIMEOUT\n12_2|CANCELLED by 0\n12_[3-5%2]|PENDING\n120_0|FAILED\n", "12");
  ASSERT_EQ(st.size(), 3u);
  EXPECT_EQ(st[1], "TIMEOUT");
  EXPECT_EQ(st[2], "CANCELLED");
  EXPECT_EQ(missing_unit_status("TIMEOUT", false, "1").first, UnitStatus::Timeout);
  EXPECT_EQ(missing_unit_status("", true, "1").first, UnitStatus::Timeout);
  EXPECT_EQ(missing_unit_status("COMPLETED", true, "1").first, UnitStatus::Timeout);  // SIGTERM seen by the script
  EXPECT_EQ(missing_unit_status("COMPLETED", false, "1").first, UnitStatus::Crash);
  EXPECT_EQ(missing_unit_status("FAILED", false, "").first, UnitStatus::Crash);
  EXPECT_EQ(missing_unit_status("PENDING", false, "").first, UnitStatus::NotRun);
  EXPECT_NE(missing_unit_status("TIMEOUT", false, "1").second.find("--time 1"), std::string::npos);
}

TEST(ScaleOptions, WorkerRequestLosesTheScaleOptions) {
  std::string dir = std::string(KPROF_EXAMPLES_DIR) + "/softmax_versions";
  RunCmd c = parse_run_words({dir + "/v0.cu", "--sweep", "N=1Ki..4Ki", "--sweep=D=64,128", "--slurm", "--time=10",
                              "--partition", "gpu", "--no-wait", "-o", "out", "--ref", dir + "/ref.py", "--D=64",
                              "--iters", "20"});
  ASSERT_TRUE(api::is_scaled(c));
  api::RunCommandRequest unit = api::without_scale(c);
  EXPECT_FALSE(api::is_scaled(unit));
  EXPECT_TRUE(unit.sweep.empty() && !unit.slurm.enabled && unit.slurm.time.empty() && !unit.no_wait);
  EXPECT_EQ(unit.p.iters, 20);
  EXPECT_EQ(unit.k.ref, dir + "/ref.py");
  EXPECT_EQ(slurm_options(c).time, "10");
  EXPECT_FALSE(slurm_options(c).wait);
  EXPECT_EQ(parse_gpu_list("0,1", 0), (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(parse_gpu_list("all", 2), (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(parse_gpu_list("0,0", 0).size(), 2u);
  EXPECT_THROW(parse_gpu_list("all", 0), Error);
  EXPECT_THROW(parse_gpu_list("zero", 1), Error);
}

TEST(ScaleOptions, TheWorkersRequestRoundTripsThroughJson) {
  std::string dir = std::string(KPROF_EXAMPLES_DIR) + "/softmax_versions";
  RunCmd words = parse_run_words({dir + "/v0.cu", dir + "/v1.cu", "--ref", dir + "/ref.py", "--D=64", "--N=1024",
                                  "--size", "input=N*D", "--iters", "7", "--no-ncu", "--nvcc-flag=-DX=1"});
  // What `kprof run` writes into units.json and `kprof __worker` reads back: one parse, no words.
  nlohmann::json sent = api::to_json(api::without_scale(words));
  EXPECT_EQ(sent["kprof_version"], KPROF_VERSION);
  RunCmd c = api::run_request_from_json(nlohmann::json::parse(sent.dump()));
  EXPECT_NO_THROW(api::validate(c));
  EXPECT_EQ(api::to_json(c), sent);
  RunRequest r = make_run_request(c);
  ASSERT_EQ(r.versions.size(), 2u);
  EXPECT_EQ(r.versions[1].dims.to_string(), "D=64 N=1024");
  EXPECT_EQ(r.versions[0].sizes, (std::vector<std::string>{"input=N*D"}));
  EXPECT_EQ(r.versions[0].nvcc_flags, (std::vector<std::string>{"-DX=1"}));
  EXPECT_EQ(r.profile.timing.iters, 7);
  EXPECT_FALSE(r.profile.run_ncu);
  EXPECT_THROW(parse_run_words({"--ref", dir + "/ref.py", "--bogus-option=zz"}), Error);
}

TEST(NcuErrors, DriverResourceUnavailableIsNamedWithWhatToDo) {
  std::string captured = read_file(std::string(KPROF_TEST_DATA) + "/ncu/driver_resource_unavailable.txt");
  NcuRunResult r;
  interpret_ncu_output(captured, 9, r);
  EXPECT_EQ(r.failure, NcuFailure::CountersBusy);
  EXPECT_NE(r.message.find("driver resource was unavailable"), std::string::npos);
  EXPECT_NE(r.hint.find("dcgmi profile --pause"), std::string::npos);
  ProcessResult probe;
  probe.exit_code = 9;
  probe.err = captured;
  NcuCounters c = parse_ncu_probe(probe);
  EXPECT_FALSE(c.readable);
  EXPECT_FALSE(c.no_kernels);  // not mistaken for "no kernel profiled"
  EXPECT_NE(c.error.find("busy"), std::string::npos);
  EXPECT_NE(c.fix.find("dcgmi profile --pause"), std::string::npos);
  EXPECT_FALSE(is_driver_resource_error("==ERROR== ERR_NVGPUCTRPERM"));
}

TEST(GpuInfo, UuidInNvidiaSmiForm) {
  const unsigned char b[16] = {0x5f, 0x0c, 0x1a, 0x2b, 0x00, 0x11, 0x22, 0x33,
                               0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb};
  EXPECT_EQ(format_gpu_uuid(b), "GPU-5f0c1a2b-0011-2233-4455-66778899aabb");
}

TEST(Units, SweepChartIsDrawnWithMatplotlib) {
  std::string dir = fresh_dir("chart");
  auto units = make_units(two_versions(), sweep_grid({parse_sweep_axis("N=1024..8192")}));
  std::vector<UnitResult> results;
  for (size_t i = 0; i < units.size(); ++i) results.push_back(timed_result(units[i], 0.01 * (i + 1), 30.0 + i));
  nlohmann::json spec = sweep_chart_spec(merge_unit_results(units, results), {"N"});
  std::string why = render_sweep_chart(spec.dump(), join_path(dir, "sweep.svg"), join_path(dir, "sweep.png"));
  if (why.find("matplotlib is not installed") != std::string::npos) GTEST_SKIP() << why;
  ASSERT_EQ(why, "");
  EXPECT_NE(read_file(join_path(dir, "sweep.svg")).find("<svg"), std::string::npos);
  EXPECT_FALSE(path_exists(join_path(dir, "sweep.svg.tmp")));
  // Nothing timed: nothing to draw, said in one line.
  EXPECT_NE(
      render_sweep_chart(R"({"series": []})", join_path(dir, "e.svg"), join_path(dir, "e.png")).find("nothing to draw"),
      std::string::npos);
}
