// kprof __runner and kprof __session (hidden): what ncu profiles.
//
// __runner rebuilds one kernel instance from the same options and seed as `profile`, warms up
// outside the profiled range, then makes exactly one call between cudaProfilerStart and
// cudaProfilerStop (ncu runs with --profile-from-start off).
//
// __session PLAN.json does the same for every version of a `kprof run` in one process (one CUDA
// context, one embedded Python: PyTorch imported once), each call also inside an NVTX range
// "kprof:<version>" (ncu --nvtx), and prints one line per version (stages/ncu/session.hpp) so the
// run can tell which versions finished.
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <thread>

#include "cli/commands.hpp"
#include "cli/request_file.hpp"
#include "cli/kernel_options.hpp"
#include "cli/validators.hpp"
#include "core/trace.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/host_json.hpp"
#include "core/outcome.hpp"
#include "device/cuda.hpp"
#include "kernel/guarded_call.hpp"
#include "kernel/load.hpp"
#include "python/interpreter.hpp"
#include "stages/env/probe_kernel.hpp"
#include "stages/ncu/session.hpp"
#include "stages/ncu/session_probe.hpp"

namespace kprof {
namespace {

/// More replay passes than any metric set kprof asks for needs (H200, ncu 2025.3.1: 22 for kprof's
/// list, 38 for --set full).
constexpr double kMaxReplayPasses = 50;

struct RunnerOptions {
  KernelCliOptions k;
  int warmup = api::RunnerRequest{}.warmup_calls;
  std::string request_file;  ///< --request FILE: the typed request (what kprof's flows pass; no words then)
  std::optional<api::RunnerRequest> request;  ///< read from request_file while parsing (its host taken then)
};

/// The runner request in `path` (api/requests.hpp RunnerRequest as JSON), validated. Error (exit 2)
/// naming the file when it cannot be read or is not a request.
api::RunnerRequest read_runner_request(const std::string& path) {
  api::RunnerRequest r = api::runner_request_from_json(read_request_file(path, "runner"));
  api::validate(r);
  return r;
}

/// The request of one version of a session plan, validated (Error exit 2 when it is not one); the
/// parent's host it carries becomes this process's (core/host_json.hpp adopt_host).
api::RunnerRequest entry_request(const SessionPlanEntry& entry) {
  api::RunnerRequest r = api::runner_request_from_json(entry.request);
  api::validate(r);
  adopt_host(r.host);
  return r;
}

void fail_on(const std::optional<KernelFault>& f) {
  if (f) throw check_failed(f->message, f->hint);
}

/// Loads and prepares `spec`, makes `warmup` calls (Triton compiles and autotunes here), then
/// prepares the same seed again: the profiled call sees exactly the inputs of the timing's input
/// set 0 (an in-place kernel's warm-up calls would otherwise have changed them).
std::unique_ptr<KernelInstance> load_and_warm(const KernelSpec& spec, int warmup) {
  trace_event("runner: load " + spec.kernel);
  auto inst = load_kernel(spec, /*extra_copies=*/0.0);
  trace_event("runner: prepare");
  inst->prepare(spec.seed);
  trace_event("runner: warm-up calls");
  for (int i = 0; i < warmup; ++i) fail_on(guarded_call(*inst, spec.timeout_s));
  if (warmup > 0) {
    inst->prepare(spec.seed);
    cuda_check(cudaDeviceSynchronize(), "preparing the profiled call's inputs");
  }
  return inst;
}

/// The one profiled call, between cudaProfilerStart/Stop and, when `range` is not empty, inside
/// an NVTX push/pop range of that name. ncu replays the call's kernels once per replay pass inside
/// it: the per-call limit is allowed once per pass (a kernel that hangs fails kprof's timing
/// before ncu runs, and ncu's whole run stays bounded by --ncu-timeout).
std::optional<KernelFault> profiled_call(KernelInstance& inst, const KernelSpec& spec, const std::string& range) {
  if (!range.empty()) nvtxRangePushA(range.c_str());
  trace_event("runner: profiled call");
  cuda_check(cudaProfilerStart(), "cudaProfilerStart");
  std::optional<KernelFault> fault;
  try {
    fault = guarded_call(inst, spec.timeout_s * kMaxReplayPasses);
  } catch (...) {
    cudaProfilerStop();
    if (!range.empty()) nvtxRangePop();
    throw;
  }
  cudaProfilerStop();
  if (!range.empty()) nvtxRangePop();
  trace_event("runner: profiled call done");
  return fault;
}

int run_runner(RunnerOptions& o) {
  KernelSpec spec;
  int warmup = o.warmup;
  if (o.request) {
    spec = o.request->spec;
    warmup = o.request->warmup_calls;
  } else {
    spec = spec_for(o.k, 0);
  }
  select_gpu(spec.gpu);
  auto inst = load_and_warm(spec, warmup);
  fail_on(profiled_call(*inst, spec, ""));
  return 0;
}

/// Registers __runner's options on `sub` (shared by the command and the session's parser).
void add_runner_options(CLI::App* sub, RunnerOptions& o) {
  add_kernel_options(sub, o.k, /*several=*/false, /*with_ref=*/false, /*with_output=*/false);
  sub->add_option("--warmup", o.warmup, "Calls before the profiled one")->check(non_negative_number());
}

/// One of the runner's "==KPROF== ..." lines on stderr, flushed at once (kprof reads them as they come).
void print_line(const std::string& line) {
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

/// A version's mark: its line on stderr (the progress the parent echoes) and its entry in this
/// process's outcome document ("results": {"versions": [...]}, stages/ncu/session.hpp), rewritten
/// after each version so a session that dies leaves the marks before.
void print_mark(SessionState state, const std::string& name, const std::string& why = "") {
  static nlohmann::json versions = nlohmann::json::array();  // this process runs one session
  print_line(session_mark_line(state, name, why));
  versions.push_back(session_mark_json(state, name, why));
  note_results({{"versions", versions}});
  checkpoint_outcome("__session");
}

/// Every version of the plan in turn. A version that fails before its range is skipped; one that
/// fails inside it ends the session when the CUDA context is lost (exit 1), else the next goes on.
int run_session(const std::string& plan_path) {
  std::ifstream in(plan_path);
  if (!in) throw usage_error("cannot read the ncu session plan " + plan_path);
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::exception& e) {
    throw usage_error("ncu session plan " + plan_path + " is not JSON: " + e.what());
  }
  int rc = 0;
  bool gpu_selected = false;
  for (const auto& entry : parse_session_plan(j)) {
    std::unique_ptr<KernelInstance> inst;
    KernelSpec spec;
    try {
      api::RunnerRequest r = entry_request(entry);  // the typed request: no words parsed
      spec = r.spec;
      if (!gpu_selected) select_gpu(spec.gpu);
      gpu_selected = true;
      inst = load_and_warm(spec, r.warmup_calls);
    } catch (const Error& e) {
      print_mark(SessionState::Skipped, entry.name, e.what());
      rc = 1;
      if (hard_exit_requested()) return rc;
      continue;
    }
    std::optional<KernelFault> fault;
    try {
      fault = profiled_call(*inst, spec, session_range_name(entry.name));
    } catch (const Error& e) {
      print_mark(SessionState::Failed, entry.name, e.what());
      rc = 1;
      if (hard_exit_requested()) return rc;
      continue;
    }
    if (fault) {
      print_mark(SessionState::Failed, entry.name, fault->message);
      if (fault->context_lost || hard_exit_requested()) return 1;
      rc = 1;
      continue;
    }
    print_mark(SessionState::Done, entry.name);
  }
  return rc;
}

/// What `__session --standby` waits for.
struct StandbyOptions {
  std::string go;      ///< the final plan, written (atomically) by `kprof run` once its versions are timed
  int parent = 0;      ///< kprof run's process id: the standby ends when it is gone
  bool probe = false;  ///< first profile kprof's probe kernel: the environment's counter probe
};

/// The environment's counter probe (stages/ncu/session_probe.hpp): kprof's probe kernel launched
/// once on `gpu`, profiled (between cudaProfilerStart/Stop) in its own NVTX range, then the mark
/// that says how it went.
void session_counter_probe(int gpu) {
  trace_event("runner: counter probe");
  std::string why;
  nvtxRangePushA(kSessionProbeRange);
  try {
    cuda_check(cudaProfilerStart(), "cudaProfilerStart");
    run_probe_kernel(gpu);
  } catch (const Error& e) {
    why = e.what();
  }
  cudaProfilerStop();
  nvtxRangePop();
  print_line(session_probe_mark(why));
}

/// Standby: ncu and this process start while `kprof run` still checks and times its
/// versions; meanwhile this process creates its CUDA context and imports the Python packages the
/// versions of `prelim_path` need (torch, triton or cutlass.cute), then waits, with no GPU work,
/// until kprof writes the final plan to `o.go`. Returns that plan's path, or "" when kprof cancelled
/// the session ({"cancel": why}) or ended.
std::string wait_for_go(const std::string& prelim_path, const StandbyOptions& o) {
  std::ifstream in(prelim_path);
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  bool gpu_selected = false;
  std::string why_not_probed = "the preliminary plan " + prelim_path + " could not be read";
  std::vector<std::string> modules;
  if (!j.is_discarded()) {
    for (const auto& entry : parse_session_plan(j)) {
      try {
        KernelSpec spec = entry_request(entry).spec;
        if (!gpu_selected) {
          select_gpu(spec.gpu);
          if (o.probe) session_counter_probe(spec.gpu);  // before the imports: the run waits for it
        }
        gpu_selected = true;
        for (auto& m : shared_python_modules(spec_implementation(spec))) modules.push_back(std::move(m));
      } catch (const Error& e) {  // the final plan's run says what is wrong with it
        why_not_probed = e.what();
      }
    }
  }
  if (o.probe && !gpu_selected) print_line(session_probe_mark(why_not_probed));  // it too needs a version's GPU
  for (const auto& m : modules) python_preimport(m);                             // a second import of a module is free
  trace_event("runner: standing by");
  print_line("==KPROF== session standing by");
  while (!path_exists(o.go)) {
    if (o.parent > 0 && ::kill(o.parent, 0) != 0 && errno == ESRCH) return "";  // kprof run ended
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  trace_event("runner: go");
  std::ifstream go(o.go);
  nlohmann::json g = nlohmann::json::parse(go, nullptr, false);
  if (g.is_object() && g.contains("cancel")) return "";
  return o.go;
}

}  // namespace

void register_runner(CLI::App& app, CommandAction& action) {
  auto opts = std::make_shared<RunnerOptions>();
  auto* sub = app.add_subcommand("__runner", "Internal: the process `kprof profile` runs under ncu");
  sub->group("");  // hidden from --help
  add_runner_options(sub, *opts);
  sub->add_option("--request", opts->request_file,
                  "The typed request (JSON, api/requests.hpp RunnerRequest) instead of the kernel and its options");
  sub->get_option("kernel")->required(false);  // --request names it
  sub->callback([sub, opts, &action] {
    if (!opts->request_file.empty() && (!opts->k.kernels.empty() || !sub->remaining().empty()))
      throw usage_error("__runner --request takes no kernel file or options besides", "put them in the request");
    if (opts->request_file.empty()) {
      if (opts->k.kernels.empty()) throw usage_error("__runner needs a kernel file or --request FILE");
      finish_kernel_options(sub, opts->k);
    } else {
      opts->request = read_runner_request(opts->request_file);
      adopt_host(opts->request->host);  // while parsing: before CUPTI loads (cli/entry.cpp)
    }
    action = [opts] { return run_runner(*opts); };
  });
  auto plan = std::make_shared<std::string>();
  auto standby = std::make_shared<StandbyOptions>();
  auto* ses = app.add_subcommand("__session", "Internal: the one process `kprof run` runs under ncu for all versions");
  ses->group("");
  ses->add_option("plan", *plan, "The session plan (OUTPUT_DIR/ncu_session.json, written by kprof run)")->required();
  ses->add_option("--standby", standby->go,
                  "Start now with PLAN as the preliminary plan and wait for the final plan in this file");
  ses->add_option("--parent", standby->parent, "With --standby: end when this process (kprof run) has ended");
  ses->add_flag("--probe", standby->probe,
                "With --standby: first profile kprof's probe kernel (the environment's counter probe)");
  ses->callback([plan, standby, &action] {
    action = [plan, standby] {
      if (standby->go.empty()) return run_session(*plan);
      std::string final_plan = wait_for_go(*plan, *standby);
      return final_plan.empty() ? 0 : run_session(final_plan);
    };
  });
}

}  // namespace kprof
