// A cuda-cpp / cutlass kernel: `extern "C" void solve(...)` in a .so, called through libffi on
// device buffers kprof owns (with guard zones and seeded fills).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernel/plan.hpp"
#include "core/dims.hpp"
#include "core/implementation.hpp"
#include "kernel/signature.hpp"
#include "kernel/signature_source.hpp"
#include "kernel/kernel_instance.hpp"

namespace kprof {

class DeviceBuffers;
class FfiCall;
class KernelLibrary;

/// What it takes to load a .so kernel.
struct SoKernelOptions {
  std::string kernel_path;  ///< the .cu source (solve's signature is read from it)
  std::string so_path;      ///< the library; empty: the .cu's sibling (kernel/library.hpp default_so_path)
  Implementation implementation = Implementation::CudaCpp;  ///< CudaCpp or Cutlass
  Dims dims;                            ///< `--NAME=VALUE`: every scalar of solve(), plus names used by --size
  std::vector<std::string> size_exprs;  ///< `--size NAME=EXPR` entries, as given ("A=M*K")
  std::optional<int64_t> ptr_size;      ///< `--ptr-size N`: element count of every buffer
  std::string arch;                     ///< --arch: the build's architecture ("" = the GPU's own)
  std::vector<std::string> nvcc_flags;  ///< the user's nvcc flags (`-- flags`): solve() is read as they build it
  bool build = false;                   ///< --build: a stale .so is rebuilt (its build record is not used)
  /// Copies of the payloads the caller will allocate besides the buffers (reference inputs,
  /// restores between timed calls): counted when checking free GPU memory (device_buffers.hpp).
  double extra_copies = 2.0;
};

/// The GPU-free part of loading: parsed signature, buffer plan and scalar values.
struct SoKernelPlan {
  Signature signature;
  SignatureReading reading;  ///< how solve() was read (nvcc's host preprocessing or the text)
  BufferPlan buffers;
  std::vector<ScalarArg> scalars;  ///< parameter order
  std::string so_path;             ///< resolved library path
};

/// solve() of `opts.kernel_path` as nvcc compiles it for `opts` (read_solve_signature with the
/// library, --arch, `--` flags and --build of `opts`; memoised). Throws Error (exit 2).
SignatureReading read_kernel_signature(const SoKernelOptions& opts);

/// Reads solve() as nvcc compiles it (kernel/signature_source.hpp read_solve_signature), checks every scalar parameter has its `--NAME=` dimension
/// (the message names all missing ones), converts each value to its exact C type (range checked)
/// and builds the buffer plan. Needs no GPU. Throws Error (exit 2): unreadable .cu, a .so given as
/// the kernel, bad signature, missing/ill-typed dimension, bad --size / --ptr-size.
SoKernelPlan plan_so_kernel(const SoKernelOptions& opts);

/// A loaded .so kernel (KernelInstance). Buffers are allocated by the first prepare().
class SoKernel final : public KernelInstance {
 public:
  /// plan_so_kernel + dlopen of the library (kernel/library.hpp: errors carry the nvcc line for
  /// this GPU's sm_XX). Warns on stderr when the .so is older than the .cu. Throws Error (exit 2).
  explicit SoKernel(const SoKernelOptions& opts);
  ~SoKernel() override;

  Implementation implementation() const override { return impl_; }
  std::string signature() const override { return plan_.signature.to_string(); }

  /// Allocates the buffers (first call; later calls reuse them: the plan is fixed per instance),
  /// fills them from `seed` (fill_seeded) and re-arms the guard zones. Throws Error (exit 1) when
  /// they do not fit in GPU memory (nothing stays allocated) or CUDA fails.
  void prepare(uint64_t seed) override;
  std::vector<BufferView> buffers() const override;
  std::vector<ScalarArg> scalars() const override { return plan_.scalars; }

  /// solve(...) through libffi on the current buffers. Does not synchronise or read launch errors.
  /// Throws Error (exit 2) when called before prepare().
  void call() override;

  /// The library's own cudaGetLastError() (dlsym in the .so: its static cudart), when it has one
  /// other than kprof's. 0 when none.
  int take_launch_error() override;

  std::vector<GuardViolation> check_guards() const override;
  void reset_guards() override;
  bool has_guards() const override { return true; }

  /// Names, dtypes, counts, roles and bytes of the buffers (see kernel/plan.hpp plan_markdown /
  /// plan_to_json for report forms).
  const BufferPlan& plan() const { return plan_.buffers; }
  /// The parsed solve() signature.
  const Signature& parsed_signature() const { return plan_.signature; }
  /// How solve() was read (where, which #if branch, which flags: SignatureReading::how).
  const SignatureReading& signature_reading() const { return plan_.reading; }
  /// The library that was loaded (absolute path).
  const std::string& so_path() const;

 private:
  Implementation impl_;
  double extra_copies_;
  SoKernelPlan plan_;
  std::unique_ptr<KernelLibrary> lib_;
  int (*lib_get_last_error_)() = nullptr;  ///< the .so's own cudaGetLastError, if distinct from kprof's
  std::unique_ptr<FfiCall> ffi_;
  std::unique_ptr<DeviceBuffers> bufs_;
};

/// Loads a .so kernel (see SoKernel's constructor); the result converts to
/// std::unique_ptr<KernelInstance>.
std::unique_ptr<SoKernel> load_so_kernel(const SoKernelOptions& opts);

}  // namespace kprof
