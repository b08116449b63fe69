// Turning the profile options of the command line into ProfileSettings (shared by profile and run).
#pragma once

#include "cli/kernel_options.hpp"
#include "flows/profile.hpp"

namespace kprof {

/// ProfileSettings from the parsed options; the per-call time limit comes from --timeout.
/// Throws Error (exit 2) for out-of-range values (stages/timing/timing.hpp validate).
ProfileSettings make_profile_settings(const KernelCliOptions& k, const ProfileCliOptions& p);

}  // namespace kprof
