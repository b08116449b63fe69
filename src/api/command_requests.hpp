// The typed requests of the commands that take no kernel request of their own (env, clocks, build,
// compare, analyze) and of check (a kernel request and --sanitize): what the command line parses
// into (cli/ binds each field to its row of api/options.hpp), with validate() (ranges, choices and
// the table's needs/excludes rules: api/rules.hpp) and JSON in and out with kprof's version.
// Each default is the constant of the stage that owns it.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "api/defaults.hpp"
#include "api/requests.hpp"
#include "device/gpu_index.hpp"
#include "kernel/build.hpp"
#include "stages/analysis/analyze.hpp"
#include "stages/analysis/hot_lines.hpp"
#include "stages/env/env_check.hpp"

namespace kprof::api {

/// `kprof env`.
struct EnvRequest {
  std::string output_file = kDefaultEnvReport;        ///< -o: the Markdown report (a folder: env_check.md in it)
  int gpu = kDefaultGpu;                              ///< --gpu
  bool json = false;                                  ///< --json: the JSON report on stdout
  double probe_timeout_s = kDefaultEnvProbeTimeoutS;  ///< --timeout: seconds each probe may take
  bool no_html = false;                               ///< --no-html: no env_check.html
};

/// `kprof clocks`: show, or lock (--max: at the maximum) or reset.
struct ClocksCommandRequest {
  int gpu = kDefaultGpu;
  bool lock = false, max = false, reset = false, dry_run = false;
};

/// `kprof build KERNEL.cu [-- NVCC FLAGS]`.
struct BuildRequest {
  std::string kernel;                            ///< the .cu
  std::string implementation;                    ///< --implementation / --backend ("" = cuda-cpp)
  std::string arch;                              ///< --arch ("" = the GPU's own)
  std::string output_so;                         ///< -o ("" = KERNEL.so next to KERNEL.cu)
  int gpu = kDefaultGpu;                         ///< --gpu whose architecture is used
  double nvcc_timeout_s = kDefaultNvccTimeoutS;  ///< --timeout
  std::vector<std::string> nvcc_flags;           ///< the words after `--`
};

/// `kprof check`: the kernel request and --sanitize's tools ("" = none).
struct CheckRequest {
  KernelRequest kernel;
  std::string sanitize;
  /// The parent's host, in the request of the sanitizer's child (`kprof __check`, flows/sanitize.hpp):
  /// the child takes it (core/host_json.hpp adopt_host). Empty (the default) for `kprof check`.
  Host host;
};

/// `kprof compare`.
struct CompareRequest {
  std::vector<std::string> inputs;  ///< saved results, the baseline first (2 or more)
  double fail_if_slower_pct = -1;   ///< --fail-if-slower PCT; < 0: no gate
  std::string output_dir = kDefaultCompareDir;
  bool no_html = false;  ///< --no-html: no OUTPUT_DIR/report.html
};

/// `kprof analyze`.
struct AnalyzeRequest {
  std::string report;  ///< .ncu-rep / .ncu-repz / raw-page CSV
  std::string output_dir = kDefaultAnalyzeDir;
  bool json = false;
  size_t top = kDefaultHotLinesTop;  ///< --top hot lines per kernel
  bool sass = false;
  bool no_roofline = false;
  double export_timeout_s = kDefaultExportTimeoutS;  ///< --timeout: seconds for ncu's export of a .ncu-rep
  bool no_html = false;                              ///< --no-html: no OUTPUT_DIR/report.html
  bool html_no_source = false;                       ///< --html-no-source: the page without source lines and SASS
};

/// The checks of each request before anything runs: ranges and choices of its rows, the rows'
/// needs/excludes rules (an option counts as given when its value differs from its default), and
/// what the request must hold (a kernel, two saved results, a report). Throws Error (exit 2).
void validate(const EnvRequest& r);
void validate(const ClocksCommandRequest& r);
void validate(const BuildRequest& r);
void validate(const CheckRequest& r);
void validate(const CompareRequest& r);
void validate(const AnalyzeRequest& r);

/// JSON of a request, each field under its table name, plus {"command", "kprof_version"}; the
/// readers take it back (missing fields keep their defaults) and throw Error (exit 2) for a field
/// of another type or a JSON that is not an object.
nlohmann::json to_json(const EnvRequest& r);
nlohmann::json to_json(const ClocksCommandRequest& r);
nlohmann::json to_json(const BuildRequest& r);
nlohmann::json to_json(const CheckRequest& r);
nlohmann::json to_json(const CompareRequest& r);
nlohmann::json to_json(const AnalyzeRequest& r);
EnvRequest env_request_from_json(const nlohmann::json& j);
ClocksCommandRequest clocks_request_from_json(const nlohmann::json& j);
BuildRequest build_request_from_json(const nlohmann::json& j);
CheckRequest check_request_from_json(const nlohmann::json& j);
CompareRequest compare_request_from_json(const nlohmann::json& j);
AnalyzeRequest analyze_request_from_json(const nlohmann::json& j);

}  // namespace kprof::api
