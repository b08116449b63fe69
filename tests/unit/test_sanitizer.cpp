// compute-sanitizer's text output read by stages/verify/sanitizer.hpp (kprof check --sanitize).
// The texts follow real compute-sanitizer runs (2023-2025 releases) as published in public bug
// reports and tutorials: memcheck's "Invalid __global__ read" blocks with their "at", "by thread",
// "Device Frame:" and host backtrace lines, racecheck's analysis ("Race reported between ...
// [N hazards]") and hazard ("Potential RAW hazard detected at __shared__") reports with its
// RACECHECK SUMMARY, initcheck's "Uninitialized __global__ memory read" in a CUB kernel, synccheck's
// barrier error; kernel names and paths are those of kprof's planted race.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "stages/verify/sanitizer.hpp"

using namespace kprof;

namespace {

const char* kMemcheck = R"(========= COMPUTE-SANITIZER
[kprof] checking tests/data/kernels/out_of_bounds.cu (cuda-cpp) against ref.py
========= Invalid __global__ read of size 4 bytes
=========     at oob_kernel(const float *, float *, int)+0x490 in /work/k/out_of_bounds.cu:12
=========     by thread (1,0,0) in block (3,0,0)
=========     Access at 0x7f71b9e01360 is out of bounds
=========     and is 1 bytes after the nearest allocation at 0x7f71b9e00a00 of size 2400 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: [0x2f0e3f] in libcuda.so.1
=========         Host Frame: solve [0x1234] in out_of_bounds.so
=========
========= Invalid __global__ read of size 4 bytes
=========     at oob_kernel(const float *, float *, int)+0x490 in /work/k/out_of_bounds.cu:12
=========     by thread (2,0,0) in block (3,0,0)
=========     Access at 0x7f71b9e01364 is out of bounds
=========
========= Invalid __shared__ read of size 16 bytes
=========     at __half cub::CUB_200200_800_NS::BlockReduceWarpReductions<__half, (int)256, (int)1, (int)1, (int)0>::ApplyWarpAggregates<(bool)1>(T2, __half, int)+0x6320 in /repro/cub/block/specializations/block_reduce_warp_reductions.cuh:118
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x8 is misaligned
=========     Device Frame:void at::native::reduce_kernel<(int)512, (int)1>(T2)+0xc0 in /pytorch/aten/src/ATen/native/cuda/Reduce.cuh:230
=========     Saved host backtrace up to driver entry point at kernel launch time
=========
========= Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API call to cudaStreamSynchronize.
=========     Saved host backtrace up to driver entry point at error
=========         Host Frame: [0x2f0e3f] in libcuda.so.1
=========
FAIL C trial 1 max|delta| inf
========= ERROR SUMMARY: 4 errors
)";

const char* kRacecheck = R"(========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at reverse_blocks_racy(const float *, float *, int)+0x80 in /work/tests/gpu/kernels/race_shared.cu:18
=========     and Read access at reverse_blocks_racy(const float *, float *, int)+0xa0 in /work/tests/gpu/kernels/race_shared.cu:20 [4096 hazards]
=========     and Read access at reverse_blocks_racy(const float *, float *, int)+0xb0 in /work/tests/gpu/kernels/race_shared.cu:20 [32 hazards]
=========
========= Error: Potential RAW hazard detected at __shared__ 0x3fc in block (0,0,0) :
=========     Write Thread (255,0,0) at reverse_blocks_racy(const float *, float *, int)+0x80 in /work/tests/gpu/kernels/race_shared.cu:18
=========     Read Thread (0,0,0) at reverse_blocks_racy(const float *, float *, int)+0xa0 in /work/tests/gpu/kernels/race_shared.cu:20
=========     Current Value : 0, Incoming Value : 1065353216
=========
========= Warning: Race reported between Read access at void at::native::(anonymous namespace)::cunn_SoftMaxForward<(int)4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(T4 *, const T2 *, int)+0x230
=========     and Write access at void at::native::(anonymous namespace)::cunn_SoftMaxForward<(int)4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(T4 *, const T2 *, int)+0x2b0 [12 hazards]
=========
PASS y trial 1 max|delta| 0
========= RACECHECK SUMMARY: 3 hazards displayed (2 errors, 1 warning)
)";

const char* kInitcheck = R"(========= COMPUTE-SANITIZER
========= Uninitialized __global__ memory read of size 4 bytes
=========     at sum_rows(const float *, float *, int)+0x1f0 in sum_rows.cu:9
=========     by thread (32,0,0) in block (0,0,0)
=========     Address 0x7fc918d21b00
=========     Saved host backtrace up to driver entry point at kernel launch time
=========
========= Uninitialized __global__ memory read of size 8 bytes
=========     at std::iterator_traits<T2>::value_type cub::CUB_200500_600_700_800_NS::ThreadLoad<(cub::CUB_200500_600_700_800_NS::CacheLoadModifier)2, const unsigned long long *>(T2)+0x8a70 in /home/coder/cccl/cub/cub/thread/thread_load.cuh:260
=========     by thread (16,0,0) in block (80,0,0)
=========     Address 0x7f615d40daf0
=========     Device Frame:void cub::CUB_200500_600_700_800_NS::DeviceMergeSortBlockSortKernel<unsigned long long>(T1)+0x20 in /home/coder/cccl/cub/cub/device/dispatch/dispatch_merge_sort.cuh:120
=========
========= ERROR SUMMARY: 2 errors
)";

}  // namespace

TEST(SanitizerTools, ListKeepsOrderAndRejectsUnknownEmptyAndRepeated) {
  auto tools = parse_sanitizer_tools("racecheck, memcheck,synccheck");
  ASSERT_EQ(tools.size(), 3u);
  EXPECT_EQ(tools[0], SanitizerTool::Racecheck);
  EXPECT_EQ(tools[1], SanitizerTool::Memcheck);
  EXPECT_EQ(tools[2], SanitizerTool::Synccheck);
  EXPECT_EQ(sanitizer_tool_name(SanitizerTool::Initcheck), "initcheck");
  for (const char* bad : {"", "memcheck,,racecheck", "leakcheck", "memcheck,memcheck", "Memcheck"}) {
    try {
      parse_sanitizer_tools(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::Usage) << bad;
      EXPECT_NE(e.hint().find("memcheck, racecheck, initcheck, synccheck"), std::string::npos) << e.hint();
    }
  }
}

TEST(SanitizerParse, MemcheckGroupsReportsAndNamesTheKernelOfEach) {
  SanitizerOutput o = parse_sanitizer_output(SanitizerTool::Memcheck, kMemcheck);
  EXPECT_TRUE(o.summary_found);
  EXPECT_EQ(o.errors, 4);
  EXPECT_EQ(o.printed, 4);
  ASSERT_EQ(o.reports.size(), 3u);
  const auto& oob = o.reports[0];
  EXPECT_EQ(oob.kind, "Invalid __global__ read of size 4 bytes");
  EXPECT_EQ(oob.kernel, "oob_kernel(const float *, float *, int)");
  EXPECT_EQ(oob.location, "/work/k/out_of_bounds.cu:12");
  EXPECT_EQ(oob.count, 2);
  EXPECT_EQ(oob.severity, "error");
  EXPECT_EQ(oob.detail, "by thread (1,0,0) in block (3,0,0); Access at 0x7f71b9e01360 is out of bounds");
  // An inlined CUB function: the kernel is the outermost device frame, the location the innermost.
  EXPECT_EQ(o.reports[1].kernel, "void at::native::reduce_kernel<(int)512, (int)1>(T2)");
  EXPECT_EQ(o.reports[1].location, "/repro/cub/block/specializations/block_reduce_warp_reductions.cuh:118");
  EXPECT_EQ(o.reports[2].kind,
            "Program hit cudaErrorLaunchFailure (error 719) due to \"unspecified launch failure\" on CUDA API call to "
            "cudaStreamSynchronize");
  EXPECT_EQ(o.reports[2].kernel, "");
}

TEST(SanitizerParse, MemcheckVerdictCountsOnlyTheUsersKernels) {
  SanitizerToolResult r = judge_sanitizer_run(SanitizerTool::Memcheck, kMemcheck, 1, false, "", false);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.user_errors, 2);
  EXPECT_EQ(r.library_errors, 2);  // PyTorch's reduce kernel and the API call
  EXPECT_FALSE(r.output.reports[0].library);
  EXPECT_TRUE(r.output.reports[1].library);
  EXPECT_TRUE(r.output.reports[2].library);
  EXPECT_EQ(sanitizer_tool_line(r),
            "memcheck: 2 errors in the kernel: Invalid __global__ read of size 4 bytes in oob_kernel(const float *, "
            "float *, int) at /work/k/out_of_bounds.cu:12 (2 reports); 2 reports in library kernels or API calls "
            "(not failing)");
}

TEST(SanitizerParse, RacecheckAnalysisAndHazardReportsWithTheSummary) {
  SanitizerOutput o = parse_sanitizer_output(SanitizerTool::Racecheck, kRacecheck);
  EXPECT_TRUE(o.summary_found);
  EXPECT_EQ(o.hazards, 3);
  EXPECT_EQ(o.errors, 2);
  EXPECT_EQ(o.warnings, 1);
  EXPECT_EQ(o.printed, 3);
  ASSERT_EQ(o.reports.size(), 3u);
  const auto& race = o.reports[0];  // both "and Read access" lines: same kind, kernel and first location
  EXPECT_EQ(race.kind, "Race reported between Write access and Read access");
  EXPECT_EQ(race.kernel, "reverse_blocks_racy(const float *, float *, int)");
  EXPECT_EQ(race.location, "/work/tests/gpu/kernels/race_shared.cu:18");
  EXPECT_EQ(race.count, 4096 + 32);
  EXPECT_EQ(race.detail,
            "Write access at /work/tests/gpu/kernels/race_shared.cu:18 and Read access at "
            "/work/tests/gpu/kernels/race_shared.cu:20");
  const auto& hazard = o.reports[1];
  EXPECT_EQ(hazard.kind, "Potential RAW hazard on __shared__ memory");
  EXPECT_EQ(hazard.kernel, "reverse_blocks_racy(const float *, float *, int)");
  EXPECT_EQ(hazard.location, "/work/tests/gpu/kernels/race_shared.cu:18");
  EXPECT_EQ(hazard.detail,
            "Write thread (255,0,0) at /work/tests/gpu/kernels/race_shared.cu:18; Read thread (0,0,0) at "
            "/work/tests/gpu/kernels/race_shared.cu:20");
  const auto& torch = o.reports[2];
  EXPECT_EQ(torch.severity, "warning");
  EXPECT_EQ(torch.kind, "Race reported between Read access and Write access");
  EXPECT_EQ(torch.location, "");
  EXPECT_EQ(torch.detail, "Read access at +0x230 and Write access at +0x2b0");
  EXPECT_EQ(torch.count, 12);
}

TEST(SanitizerParse, RacecheckFailsOnTheUsersRaceNotOnPyTorchs) {
  SanitizerToolResult r = judge_sanitizer_run(SanitizerTool::Racecheck, kRacecheck, 0, false, "", false);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.user_errors, 4096 + 32 + 1);
  EXPECT_EQ(r.library_errors, 12);
  EXPECT_NE(sanitizer_tool_line(r).find("racecheck: 4129 hazards in the kernel: Race reported between Write access "
                                        "and Read access in reverse_blocks_racy(const float *, float *, int) at "
                                        "/work/tests/gpu/kernels/race_shared.cu:18 (4128 hazards)"),
            std::string::npos)
      << sanitizer_tool_line(r);
  // Only the PyTorch warning: passes, and says so.
  std::string torch_only = std::string("========= COMPUTE-SANITIZER\n") +
                           "========= Warning: Race reported between Read access at void at::native::k(T1)+0x230\n" +
                           "=========     and Write access at void at::native::k(T1)+0x2b0 [12 hazards]\n" +
                           "========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)\n";
  SanitizerToolResult ok = judge_sanitizer_run(SanitizerTool::Racecheck, torch_only, 0, false, "", false);
  EXPECT_TRUE(ok.pass) << ok.error;
  EXPECT_EQ(ok.output.hazards, 1);
  EXPECT_EQ(ok.library_errors, 12);
}

TEST(SanitizerParse, OlderRacecheckFormWithFileLineKernel) {
  const char* text = R"(========= WARN: Race reported between Read access at 0x00000170 in ./race.cu:4:test(int*, int*)
=========     and Write access at 0x00000148 in ./race.cu:3:test(int*, int*) [4 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)
)";
  SanitizerToolResult r = judge_sanitizer_run(SanitizerTool::Racecheck, text, 0, false, "", false);
  ASSERT_EQ(r.output.reports.size(), 1u);
  EXPECT_EQ(r.output.reports[0].kernel, "test(int*, int*)");
  EXPECT_EQ(r.output.reports[0].location, "./race.cu:4");
  EXPECT_EQ(r.output.reports[0].severity, "warning");
  EXPECT_EQ(r.user_warnings, 4);
  EXPECT_TRUE(r.pass);  // warnings are listed, not failing
}

TEST(SanitizerParse, InitcheckInTheUsersKernelAndInCub) {
  SanitizerToolResult r = judge_sanitizer_run(SanitizerTool::Initcheck, kInitcheck, 0, false, "", false);
  EXPECT_EQ(r.output.errors, 2);
  ASSERT_EQ(r.output.reports.size(), 2u);
  EXPECT_EQ(r.output.reports[0].kind, "Uninitialized __global__ memory read of size 4 bytes");
  EXPECT_EQ(r.output.reports[0].kernel, "sum_rows(const float *, float *, int)");
  EXPECT_EQ(r.output.reports[0].location, "sum_rows.cu:9");
  EXPECT_EQ(r.output.reports[1].kernel,
            "void cub::CUB_200500_600_700_800_NS::DeviceMergeSortBlockSortKernel<unsigned long long>(T1)");
  EXPECT_TRUE(r.output.reports[1].library);
  EXPECT_EQ(r.user_errors, 1);
  EXPECT_EQ(r.library_errors, 1);
  EXPECT_FALSE(r.pass);
}

TEST(SanitizerParse, SynccheckBarrierErrorWithoutLineInfoAndOldPcForm) {
  const char* text = R"(========= COMPUTE-SANITIZER
========= Barrier error detected. Divergent thread(s) in warp
=========     at 0x3b0 in divergent_barrier(int *)
=========     by thread (0,0,0) in block (0,0,0)
=========
========= ERROR SUMMARY: 1 error
)";
  SanitizerToolResult r = judge_sanitizer_run(SanitizerTool::Synccheck, text, 0, false, "", false);
  ASSERT_EQ(r.output.reports.size(), 1u);
  EXPECT_EQ(r.output.reports[0].kind, "Barrier error detected. Divergent thread(s) in warp");
  EXPECT_EQ(r.output.reports[0].kernel, "divergent_barrier(int *)");
  EXPECT_EQ(r.output.reports[0].location, "");
  EXPECT_EQ(r.output.errors, 1);
  EXPECT_FALSE(r.pass);
}

TEST(SanitizerParse, CleanRunPassesAndToolMessagesAreNotes) {
  const char* text = R"(========= COMPUTE-SANITIZER
PASS C trial 1
========= Error: process didn't terminate successfully
========= Target application returned an error
========= ERROR SUMMARY: 0 errors
)";
  SanitizerToolResult r = judge_sanitizer_run(SanitizerTool::Memcheck, text, 1, false, "", false);
  EXPECT_TRUE(r.pass) << r.error;
  EXPECT_TRUE(r.output.reports.empty());
  ASSERT_EQ(r.output.notes.size(), 2u);
  EXPECT_EQ(r.output.notes[0], "Error: process didn't terminate successfully");
  EXPECT_EQ(sanitizer_tool_line(r), "memcheck: no error in the kernel");
}

TEST(SanitizerParse, NoVerdictWithoutSummaryOnTimeoutOrWhenNothingCouldBeRead) {
  SanitizerToolResult cut =
      judge_sanitizer_run(SanitizerTool::Memcheck, "========= COMPUTE-SANITIZER\n========= Internal Sanitizer Error\n",
                          139, false, "", false);
  EXPECT_FALSE(cut.pass);
  EXPECT_EQ(cut.error,
            "compute-sanitizer ended (exit status 139) without its ERROR SUMMARY line: Internal Sanitizer Error");
  SanitizerToolResult slow = judge_sanitizer_run(SanitizerTool::Racecheck, "", -1, true, "", false);
  EXPECT_FALSE(slow.pass);
  EXPECT_NE(slow.error.find("timed out"), std::string::npos);
  EXPECT_EQ(sanitizer_tool_line(slow).rfind("racecheck: no verdict: timed out", 0), 0u) << sanitizer_tool_line(slow);
  SanitizerToolResult unread =
      judge_sanitizer_run(SanitizerTool::Memcheck, "========= ERROR SUMMARY: 3 errors\n", 0, false, "", false);
  EXPECT_FALSE(unread.pass);
  EXPECT_NE(unread.error.find("3 errors reported but none could be read"), std::string::npos) << unread.error;
  SanitizerToolResult nostart = judge_sanitizer_run(SanitizerTool::Memcheck, "", -1, false, "cannot start x", false);
  EXPECT_EQ(nostart.error, "cannot start x");
}

TEST(SanitizerKernels, LibraryKernelsAreTellable) {
  for (const char* lib :
       {"void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<float>>(int, T2, T3)",
        "at::native::reduce_kernel<512, 1>", "void cub::DeviceReduceKernel<int>(T1)", "cublasLt::splitKreduce",
        "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32", "nvjet_tst_128x64_64x8_1x1_v_bz_TNT",
        "ampere_sgemm_128x64_nn", "void kprof::(anonymous namespace)::seeded_kernel<float>(T1 *, unsigned long)",
        "kprof_l2_flush_read", "triton_poi_fused_add_0", "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm>(T1)",
        ""})
    EXPECT_TRUE(is_library_kernel(lib, false)) << lib;
  for (const char* user : {"reverse_blocks_racy(const float *, float *, int)", "void vector_add_kernel(float*)",
                           "add_kernel", "matmul_kernel_0d1d2d", "void atomics_kernel(int*)"})
    EXPECT_FALSE(is_library_kernel(user, false)) << user;
  EXPECT_FALSE(is_library_kernel("void cutlass::Kernel2<cutlass::gemm::kernel::GemmUniversal<>>(T1)", true));
  EXPECT_TRUE(is_library_kernel("void cutlass::Kernel2<cutlass::gemm::kernel::GemmUniversal<>>(T1)", false));
}
