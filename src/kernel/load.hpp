// Turning a KernelSpec into a running KernelInstance, whatever the implementation.
#pragma once

#include <memory>
#include <string>

#include "kernel/kernel_instance.hpp"
#include "kernel/build.hpp"
#include "kernel/kernel_spec.hpp"

namespace kprof {

/// Checks everything about `spec` that needs no GPU, so usage errors are exit 2 on any machine:
/// the file type against --implementation, the file; for a .cu the solve() signature (read as nvcc
/// compiles it; one progress line says where and how), every dimension, the --size / --ptr-size
/// expressions and the .so (read as ELF, not loaded: a shared library exporting `solve`; with
/// --build only when it will not be rebuilt); for a .py its syntax, setup and run_kernel (ast), a
/// --so given for it, and dimensions named like kprof options that setup() does not take.
/// Throws Error (exit 2) with what to do.
void validate_spec(const KernelSpec& spec);

/// What `--build` builds for `spec` (its .cu, --so or the .so beside it, --arch, the flags after `--`).
BuildOptions build_options(const KernelSpec& spec);

/// select_gpu(spec.gpu) for a command that then loads `spec` (check, profile). When the GPU cannot be
/// used and `spec` is a .cu with --build, the build runs first (build_kernel, needing no GPU with
/// --arch), so the user's own mistake is the one reported, as `kprof build` reports it: a compile
/// error (Error exit 1 with nvcc's messages); when it builds, or without --arch (the build would need
/// the GPU's architecture), the GPU's error (exit 1). On a usable GPU it only selects it (the build
/// stays load_kernel's).
void select_gpu_for(const KernelSpec& spec);

/// Loads the kernel of `spec` on the current GPU: a .so through libffi (cuda-cpp, cutlass; with
/// spec.build, build_kernel first, which compiles only when the build's inputs changed) or
/// a Python module in the embedded interpreter (triton, cute-dsl). `extra_copies` is how many
/// copies of the buffers the caller will allocate besides them (for the free-memory check).
/// Throws Error (exit 2) for input errors (bad signature, missing dimension, missing .so, broken
/// module), (exit 1) for build failures and CUDA errors.
std::unique_ptr<KernelInstance> load_kernel(const KernelSpec& spec, double extra_copies);

/// "NVIDIA H200 (sm_90), device 0", read once per process and cached, so reports written after a
/// kernel fault need no CUDA call. load_kernel() fills the cache.
std::string gpu_description(int gpu);

/// Report header rows describing a loaded kernel: file, implementation, signature, GPU, dims,
/// seed, and one row per buffer (dtype, elements, role); a "Reference" row after the signature
/// when `reference` (ref.py's path) is given, then for a .so kernel "Signature read" (where solve()
/// was found, in which #if branch, read with which nvcc flags).
std::vector<std::pair<std::string, std::string>> kernel_header_rows(const KernelSpec& spec, const KernelInstance& inst,
                                                                    const std::string& reference = "");

}  // namespace kprof
