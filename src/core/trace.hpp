// KPROF_TRACE=FILE: a timeline of where a command's wall time goes. Every kprof process
// of the command (kprof itself, its `__session` / `__runner` under ncu, which inherit the variable)
// appends one line per event to FILE; bench/trace_timeline.py prints them relative to the first.
// Off (no cost beyond one getenv at the first event) when the variable is unset or empty.
#pragma once

#include <string_view>

namespace kprof {

/// True when KPROF_TRACE names a file (read once per process).
bool trace_enabled();

/// Appends "<seconds since the Unix epoch, 6 decimals> <pid> <event>\n" to $KPROF_TRACE (one
/// write(2) with O_APPEND, so lines of several processes and threads never interleave). No effect
/// when tracing is off; a file that cannot be opened turns it off. Never throws.
void trace_event(std::string_view event);

}  // namespace kprof
