#include "flows/env_gate.hpp"

#include <fmt/format.h>

#include <memory>
#include <utility>

#include "core/trace.hpp"
#include "core/term.hpp"
#include "flows/report_files.hpp"

namespace kprof {

EnvGate::EnvGate(const EnvOptions& opts, const EnvReport* known, std::string report_path)
    : start_(std::chrono::steady_clock::now()), report_path_(std::move(report_path)), known_(known != nullptr) {
  auto probed = std::make_shared<std::promise<void>>();
  gpu_probes_done_ = probed->get_future().share();
  if (known) {
    report_ = *known;
    probed->set_value();
    return;
  }
  EnvOptions o = opts;
  o.on_counters_probed = [probed, then = opts.on_counters_probed](const EnvFacts& f) {
    probed->set_value();  // the probe itself has ended; what `then` starts (the standby ncu) does no GPU work
    if (then) then(f);
  };
  pending_ = std::async(std::launch::async, [o, probed] {
    try {
      EnvReport r = assess_env(collect_env(o));
      trace_event("env: assessed");
      return r;
    } catch (...) {  // the probe never got to the callback: nothing of the environment runs any more
      try {
        probed->set_value();
      } catch (const std::future_error&) {  // it did
      }
      throw;
    }
  });
}

void EnvGate::wait_gpu_probes() { gpu_probes_done_.wait(); }

bool EnvGate::done() const {
  return known_ || waited_ || pending_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

EnvGate::~EnvGate() {
  if (pending_.valid()) pending_.wait();  // its probes are bounded by their timeouts
}

bool EnvGate::wait() {
  if (waited_) return report_->ready;
  waited_ = true;
  if (pending_.valid()) report_ = pending_.get();
  write_env_reports(*report_, report_path_);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  print_progress(known_ ? fmt::format("[env] environment: {} (probed once before, for every size)",
                                      report_->ready ? "ready" : "NOT ready")
                        : fmt::format("[env] environment: {} ({:.1f} s)", report_->ready ? "ready" : "NOT ready", s));
  if (!report_->ready) {
    for (const auto& b : report_->blockers) print_error(b);
    print_error("a required environment item failed: no kernel result of this run is valid or reported",
                "see " + report_path_ + " for each item and its fix");
  }
  return report_->ready;
}

}  // namespace kprof
