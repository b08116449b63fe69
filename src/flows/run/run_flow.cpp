#include "flows/run/run_flow.hpp"

#include <string>
#include <vector>

#include "api/requests.hpp"
#include "core/host.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"
#include "device/cuda.hpp"
#include "flows/env_gate.hpp"
#include "flows/ncu_standby.hpp"
#include "flows/parallel_builds.hpp"
#include "flows/run/run_ports.hpp"
#include "flows/run/run_steps.hpp"
#include "flows/run/run_workflow.hpp"
#include "stages/verify/reference.hpp"

namespace kprof {

RunOutcome run_workflow(const RunRequest& req) {
  if (req.versions.empty()) throw usage_error("kprof run needs at least one kernel file");
  const KernelSpec& first = req.versions.front();
  const std::vector<std::string> names = version_folder_names(req.versions);
  // The builds start before the inputs are validated (nvcc -E of each solve(): about 0.5 s); their
  // lines wait, so an input error (exit 2 on any machine) is the run's only message.
  ParallelBuilds builds(req.versions, names, 0, /*hold_lines=*/true);
  try {
    validate_versions(req.versions);
    check_reference_source(req.ref);
    make_dirs(req.output_dir);
  } catch (...) {
    builds.cancel();
    throw;
  }
  builds.show_lines();

  // 1. The builds (nvcc, one thread per core at most; started above), the ref.py load and the
  //    environment check run beside each other; the first versions load and are checked meanwhile.
  //    Nothing of them is reported before the environment has passed (RunWorkflow::env_ready), and
  //    no call is timed before its ncu probe has ended (EnvGate::wait_gpu_probes). Compiled versions
  //    loaded while ref.py still imports PyTorch are timed then and checked once it is there.
  //    The one Nsight Compute session starts in standby as soon as the environment's own ncu probe
  //    has ended (flows/ncu_standby.hpp), so its start-up is done when the versions are timed, and
  //    is released once they are, even while the environment check still runs: its results are
  //    used only once that check has passed (RunWorkflow::finish_profiles).
  StandbySlot standby;
  // Starts the standby session; true when it runs. With `probe` it is the environment's counter probe.
  auto start = [&req, &names, &standby](bool probe) {
    std::vector<SessionPlanEntry> prelim;
    for (size_t i = 0; i < req.versions.size(); ++i)
      prelim.push_back({names[i], api::to_json(api::RunnerRequest{req.versions[i], api::RunnerRequest{}.warmup_calls,
                                                                  current_host()})});
    try {
      standby.start(prelim, req.versions.front(), run_profile_settings(req), req.output_dir, probe);
      return true;
    } catch (const Error& e) {  // the session then starts when the versions are timed
      print_warning(std::string("ncu session: no standby start: ") + e.what());
      return false;
    }
  };
  auto start_standby = [&req, start](const EnvFacts& f) {
    if (standby_wanted(req) && f.ncu.ok() && f.counters.readable) start(false);  // no-op once it runs
  };
  EnvOptions eo;
  eo.gpu = first.gpu;
  eo.timeout_s = req.env_timeout_s;
  eo.on_counters_probed = start_standby;
  // The counter probe is the standby session's first launch (flows/ncu_standby.hpp).
  eo.counter_probe_in_session = [&req, &standby, start](const EnvFacts&) -> std::function<NcuCounters()> {
    if (!standby_wanted(req) || !start(true)) return {};
    double limit = req.env_timeout_s;
    return [&standby, limit] { return standby.get()->wait_probe(limit); };
  };
  if (req.env) start_standby(req.env->facts);  // probed before (a worker's later sizes): no ncu probe runs now
  EnvGate env(eo, req.env, join_path(req.output_dir, "env_check.md"));
  // ref.py starts loading in the background here (PyTorch's import overlaps the environment probe
  // and the builds).
  GpuRunPorts ports(builds, env, standby, req.ref, first.gpu);
  return drive_run(req, ports);
}

RunOutcome drive_run(const RunRequest& req, RunPorts& ports) {
  RunOutcome out;
  RunWorkflow flow(req, out, ports);
  try {
    ports.select_gpu(
        req.versions.front().gpu);  // the CUDA context for the checks (no GPU: the environment's blockers say why)
  } catch (const Error&) {
    flow.report_build_failures();  // a compile error (with --arch) first: the user's own, needing no GPU
    if (!(out.env_ready = flow.env_ready())) return out;
    throw;
  }
  flow.run_versions();
  flow.decide_rounds();    // --decide: the interleaved rounds, before ncu's session is released
  flow.finish_profiles();  // a standby session is released before the environment check has ended
  out.env_ready = flow.env_ready();
  if (!out.env_ready) return out;
  flow.write_comparison();
  return out;
}

}  // namespace kprof
