// The counter probe's request (issue 47: one request in, one outcome out): what `kprof env` (and a
// run's environment check) hands `kprof __probe`, the process ncu profiles to learn whether the
// GPU's performance counters can be read. The child writes its outcome document (core/outcome.hpp)
// where the parent names it; core/tools.hpp probe_ncu_counters reads it back.
//   {"command": "__probe", "kprof_version", "gpu", "host": core/host_json.hpp}
#pragma once

#include <nlohmann/json.hpp>

#include "core/host.hpp"

namespace kprof {

/// What `kprof __probe --request FILE` receives.
struct ProbeRequest {
  int gpu = -1;  ///< CUDA device index the probe kernel runs on (kprof env --gpu); the parent always names it
  Host host;     ///< the parent's host (core/host_json.hpp adopt_host)
};

/// JSON of a probe request; the reader takes it back and throws Error (exit 2) naming a field of
/// another type, a missing or negative "gpu", or when `j` is not an object.
nlohmann::json to_json(const ProbeRequest& r);
ProbeRequest probe_request_from_json(const nlohmann::json& j);

}  // namespace kprof
