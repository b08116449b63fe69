#include "stages/ncu/session_probe.hpp"

#include <cstring>

#include "core/subprocess.hpp"
#include "core/text.hpp"

namespace kprof {

namespace {
constexpr const char* kDoneMark = "==KPROF== session probe done";
constexpr const char* kFailedMark = "==KPROF== session probe failed: ";

/// True when ncu printed its progress line for a profiled launch of the probe kernel.
bool probe_profiled(const std::string& out) {
  for (const auto& line : split(out, '\n'))
    if (line.find("==PROF== Profiling \"") != std::string::npos &&
        line.find(std::string(kProbeKernelName)) != std::string::npos && line.find(" pass") != std::string::npos)
      return true;
  return false;
}
}  // namespace

std::string session_probe_mark(const std::string& why) {
  return why.empty() ? std::string(kDoneMark) : kFailedMark + one_line_summary(why);
}

bool is_session_probe_mark(const std::string& line) {
  return line.find(kDoneMark) != std::string::npos || line.find(kFailedMark) != std::string::npos;
}

NcuCounters session_probe_counters(const std::string& out, bool ended, bool timed_out, const std::string& command) {
  ProcessResult pr;
  pr.out = out;
  pr.timed_out = timed_out;
  NcuCounters c = parse_ncu_probe(pr);  // ERR_NVGPUCTRPERM, counters busy, time limit: its words
  c.command = command;
  c.probed_in_session = true;
  if (timed_out || c.permission_denied || is_driver_resource_error(out)) return c;
  for (const auto& line : split(out, '\n')) {
    auto failed = line.find(kFailedMark);
    if (failed == std::string::npos) continue;
    c.error = "the probe kernel failed in the ncu session: " + trim(line.substr(failed + std::strlen(kFailedMark)));
    c.fix = "run `kprof __probe` alone: it must launch one kernel and exit 0; `kprof env` runs the probe by itself";
    return c;
  }
  if (out.find(kDoneMark) != std::string::npos && probe_profiled(out)) {
    c.readable = true;
    c.error.clear();
    c.fix.clear();
    return c;
  }
  if (ended) {
    std::string why = first_error_line(out);
    c.error = "ncu ended before the probe kernel was profiled" + (why.empty() ? "" : " (" + why + ")");
    c.fix = "run the command shown to see ncu's full output";
  }
  return c;
}

std::vector<SessionRow> without_probe_rows(const std::vector<SessionRow>& rows) {
  std::vector<SessionRow> kept;
  for (const auto& r : rows)
    if (r.range != kSessionProbeRange && !starts_with(r.name, kProbeKernelName)) kept.push_back(r);
  return kept;
}

}  // namespace kprof
