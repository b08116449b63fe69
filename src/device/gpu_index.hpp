// The GPU a command uses when none is named: CUDA's device 0 (CUDA order, as CUDA_VISIBLE_DEVICES
// leaves it). One statement for --gpu of every command (env, clocks, build, check, profile, run).
#pragma once

namespace kprof {

/// Default of --gpu: the first CUDA device.
inline constexpr int kDefaultGpu = 0;

}  // namespace kprof
