// `kprof run`: the seed's whole workflow for one kernel or several versions of it, in one process
// (Python and PyTorch imported once): environment check (stop when a required item fails), then
// per version correctness, and for correct versions timing + ncu + classification, then the
// comparison.
#pragma once

#include <string>
#include <vector>

#include "flows/run/run_request.hpp"

namespace kprof {

/// Runs the workflow and writes DIR/env_check.md(.json), DIR/<version>/... and
/// DIR/comparison.md(.json). Prints a progress line per step per version with its elapsed time.
/// Throws Error for usage errors (bad options, broken ref.py: exit 2).
RunOutcome run_workflow(const RunRequest& req);

}  // namespace kprof
