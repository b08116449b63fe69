// The defaults that the flows owned before the option table (issue 47): where each command writes
// its reports, and the Slurm options of `kprof run --slurm`. The table (api/options.cpp) and the
// flows read them here; every other default is the constant of the stage that owns it.
#pragma once

namespace kprof::api {

/// Default of -o/--output-dir of check, profile and run: the folder of their reports.
inline constexpr const char* kDefaultOutputDir = "profile_out";
/// Default of `kprof env -o`: the Markdown report's path (env_check.json is written beside it).
inline constexpr const char* kDefaultEnvReport = "profile_out/env_check.md";
/// Default of `kprof analyze -o`.
inline constexpr const char* kDefaultAnalyzeDir = "analyze_out";
/// Default of `kprof compare -o`.
inline constexpr const char* kDefaultCompareDir = "compare_out";
/// Default of --gres of `kprof run --slurm`: generic resources per array task ("none": no --gres).
inline constexpr const char* kDefaultSlurmGres = "gpu:1";
/// Default of --max-parallel of `kprof run --slurm`: array tasks running at once.
inline constexpr int kDefaultSlurmMaxParallel = 8;
/// Default of --wall-timeout-s (every command; the Python API's and MCP's wall_timeout_s), seconds:
/// an hour. A six-version `kprof run` with ncu took 25-60 s on the H200 (docs/gpu-runs.md), and
/// ncu's replay of a large kernel takes minutes per version: an hour is 60 times the slowest of
/// those runs, yet a call that hangs (an MCP job polled forever) ends within it.
inline constexpr double kDefaultWallTimeoutS = 3600;

}  // namespace kprof::api
