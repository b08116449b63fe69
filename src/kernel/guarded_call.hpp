// One kernel call with a time limit and a precise account of what went wrong: the launch error
// read right after the call (an invalid configuration fails silently otherwise), the error of the
// synchronisation (illegal address, assert: the context is then lost), or a call / kernel that
// never finishes.
#pragma once

#include <optional>
#include <string>

#include "device/cuda.hpp"
#include "kernel/kernel_instance.hpp"

namespace kprof {

/// What failed during a guarded call.
enum class FaultKind {
  LaunchError,  ///< cudaGetLastError() after the call (e.g. cudaErrorInvalidConfiguration)
  KernelError,  ///< error at synchronisation (e.g. cudaErrorIllegalAddress); context lost if sticky
  Timeout,      ///< the call did not return, or the GPU did not finish, within the limit
};

/// A kernel fault, ready to print: `message` says what happened, `hint` what to do.
struct KernelFault {
  FaultKind kind = FaultKind::KernelError;
  std::string cuda_error;     ///< e.g. "cudaErrorIllegalAddress" ("" for timeouts)
  std::string message;        ///< one line
  std::string hint;           ///< one line
  bool context_lost = false;  ///< no further CUDA work is possible in this process
};

/// "kernel fault" / "launch error" / "timeout".
std::string fault_kind_name(FaultKind kind);
/// "launch_error" / "kernel_error" / "timeout" (the JSON form).
std::string fault_kind_id(FaultKind kind);
/// Parses fault_kind_id's form; nullopt for anything else.
std::optional<FaultKind> parse_fault_kind(const std::string& id);

/// Runs inst.call() on a worker thread, reads the launch error there, synchronises the device and
/// waits at most `timeout_s` seconds for all of it. Returns the fault, or nullopt when the call
/// and its GPU work completed cleanly. A kprof::Error thrown by call() (a Python exception) is
/// re-thrown. After a Timeout the worker is abandoned and request_hard_exit() is set: the caller
/// writes its reports and main() leaves with _Exit so a stuck thread or kernel cannot hang kprof.
std::optional<KernelFault> guarded_call(KernelInstance& inst, double timeout_s);

/// Synchronises the device with a time limit (same fault reporting as guarded_call).
std::optional<KernelFault> guarded_sync(double timeout_s, const std::string& what);

/// hard_exit_requested() / request_hard_exit() live in device/cuda.hpp.

}  // namespace kprof
