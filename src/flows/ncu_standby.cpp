#include "flows/ncu_standby.hpp"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <utility>

#include "api/requests.hpp"
#include "core/host.hpp"
#include "core/trace.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/text.hpp"
#include "core/tools.hpp"
#include "stages/ncu/session_probe.hpp"
#include "kernel/kernel_spec.hpp"
#include "python/interpreter.hpp"

namespace kprof {

namespace {
constexpr double kCancelGraceS = 15;  ///< a cancelled standby that has not ended by then is stopped
}  // namespace

NcuRunOptions one_session_options(const KernelSpec& first, const ProfileSettings& s, const std::string& run_dir,
                                  const std::vector<std::string>& words) {
  NcuRunOptions no = session_ncu_options(first, s);
  no.target = self_command();
  no.target.insert(no.target.end(), words.begin(), words.end());
  no.report_base = join_path(run_dir, "run");
  no.nvtx = true;
  no.keep_partial = true;
  return no;
}

StandbySession::StandbySession(const std::vector<SessionPlanEntry>& prelim, const KernelSpec& first,
                               const ProfileSettings& s, const std::string& run_dir, bool probe)
    : StandbySession(prelim, one_session_options(first, s, run_dir, {}), run_dir, probe) {}

std::unique_ptr<StandbySession> StandbySession::for_profile(const KernelSpec& spec, const std::string& name,
                                                            const ProfileSettings& s, const std::string& out_dir) {
  NcuRunOptions no = own_session_ncu_options(spec, s, out_dir);
  no.target = self_command();
  return std::unique_ptr<StandbySession>(new StandbySession(
      {{name, api::to_json(api::RunnerRequest{spec, api::RunnerRequest{}.warmup_calls, current_host()})}}, no,
      out_dir));
}

StandbySession::StandbySession(const std::vector<SessionPlanEntry>& prelim, NcuRunOptions no, const std::string& dir,
                               bool probe)
    : go_path_(join_path(dir, "ncu_session.json")), probe_(probe) {
  probe_future_ = probe_result_.get_future();
  std::remove(go_path_.c_str());  // a plan left by an earlier run would release the session at once
  const std::string prelim_path = join_path(dir, "ncu_session.standby.json");
  write_file_atomic(prelim_path, session_plan_json(prelim).dump(2) + "\n");
  for (const char* w : {"__session", prelim_path.c_str(), "--standby", go_path_.c_str(), "--parent"})
    no.target.push_back(w);
  no.target.push_back(std::to_string(::getpid()));
  if (probe_) {
    no.target.push_back("--probe");
    no.on_line = [this](const std::string& line) {
      std::string so_far;
      {
        std::lock_guard<std::mutex> lock(probe_m_);
        if (probe_settled_) return;
        probe_out_ += line + "\n";
        if (!is_session_probe_mark(line)) return;
        so_far = probe_out_;
      }
      trace_event("standby: counter probe marked");
      settle_probe(so_far, false, false);
    };
  }
  command_ = shell_join(ncu_command(no.ncu.empty() ? find_ncu() : no.ncu, no));
  no.hold_output = &released_;
  no.read_report = [this](const std::string& path) {
    std::function<bool(const std::string&)> f;
    {
      std::lock_guard<std::mutex> lock(m_);
      f = read_report_;
    }
    adopt_python_thread();  // the read runs Python on ncu's thread (python/interpreter.hpp)
    return f && released_ && !stop_now_ && f(path);
  };
  no.stop_when = [this](double elapsed) {
    elapsed_ = elapsed;
    if (cancelled_ && cancelled_at_ < 0) cancelled_at_ = elapsed;
    if (cancelled_ && elapsed - cancelled_at_.load() > kCancelGraceS) return true;  // it did not end by itself
    if (stop_now_) return true;
    return released_ && elapsed - released_at_.load() > limit_s_.load();
  };
  trace_event("standby: ncu start");
  ncu_ = std::async(std::launch::async, [this, no] {
    NcuRunResult r = run_ncu(no);
    if (probe_) settle_probe(r.log, true, r.failure == NcuFailure::Timeout);  // ncu ended before the mark
    return r;
  });
}

StandbySession::~StandbySession() {
  cancel("the run did not use it");
  if (ncu_.valid()) ncu_.wait();  // the cancelled process ends at once; ncu shortly after
}

void StandbySession::cancel(const std::string& why) {
  if (released_ || cancelled_.exchange(true)) return;
  try {
    write_file_atomic(go_path_, nlohmann::json({{"cancel", why}}).dump() + "\n");
  } catch (const Error&) {  // the process also ends when kprof has ended
  }
}

NcuRunResult StandbySession::release(const std::vector<SessionPlanEntry>& plan, double timeout_s,
                                     std::function<bool(const std::string&)> read_report,
                                     const std::function<bool()>& go_on) {
  {
    std::lock_guard<std::mutex> lock(m_);
    read_report_ = std::move(read_report);
  }
  auto t0 = std::chrono::steady_clock::now();
  limit_s_ = timeout_s;
  released_at_ = elapsed_.load();
  released_ = true;
  write_file_atomic(go_path_, session_plan_json(plan).dump(2) + "\n");
  trace_event("standby: released");
  if (go_on && !go_on()) stop_now_ = true;
  NcuRunResult r = ncu_.get();
  r.stopped = stop_now_;
  trace_event("standby: ncu done");
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (r.failure == NcuFailure::Timeout)
    r.message = "ncu did not finish within " + std::to_string(static_cast<int>(timeout_s)) + " s and was stopped";
  return r;
}

void StandbySession::settle_probe(const std::string& out, bool ended, bool timed_out) {
  std::lock_guard<std::mutex> lock(probe_m_);
  if (probe_settled_) return;
  probe_settled_ = true;
  probe_result_.set_value(session_probe_counters(out, ended, timed_out, command_));
}

NcuCounters StandbySession::wait_probe(double timeout_s) {
  if (!probe_) return {};
  auto wait = std::chrono::duration<double>(timeout_s);
  if (probe_future_.wait_for(wait) == std::future_status::ready) {
    NcuCounters c = probe_future_.get();
    if (!c.readable) cancel("the counter probe failed");
    return c;
  }
  cancel("the counter probe did not finish");
  NcuCounters c;
  c.checked = true;
  c.probed_in_session = true;
  c.command = command_;
  c.error = "the counter probe (the first launch of the run's ncu session) did not finish within " +
            fmt_sig(timeout_s, 3) + " s";
  c.fix = "run `kprof env` to probe the counters by themselves; raise the limit with --env-timeout";
  return c;
}

void StandbySlot::start(const std::vector<SessionPlanEntry>& prelim, const KernelSpec& first, const ProfileSettings& s,
                        const std::string& run_dir, bool probe) {
  std::lock_guard<std::mutex> lock(m_);
  if (!session_) session_ = std::make_unique<StandbySession>(prelim, first, s, run_dir, probe);
}

StandbySession* StandbySlot::get() {
  std::lock_guard<std::mutex> lock(m_);
  return session_.get();
}

}  // namespace kprof
