// Calling `void solve(...)`, whose parameter list is known only at run time, through libffi.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/dims.hpp"
#include "kernel/signature.hpp"

namespace kprof {

/// A prepared libffi call interface for one solve() Signature. Each argument is held and passed
/// at its parameter's exact C type: pointers as `void*` (ffi_type_pointer), float as
/// ffi_type_float (never promoted to double), double as ffi_type_double, int as sint32,
/// long / long long / int64_t as sint64, unsigned as uint32, size_t / uint64_t as uint64,
/// short / char and their unsigned forms as (u)sint16 / (u)sint8 (LP64 sizes).
class FfiCall {
 public:
  /// Prepares the call interface. Throws Error (exit 2) when libffi rejects it.
  explicit FfiCall(const Signature& sig);
  ~FfiCall();
  FfiCall(const FfiCall&) = delete;
  FfiCall& operator=(const FfiCall&) = delete;

  /// Number of parameters.
  size_t arity() const;

  /// Sets pointer argument `i`. Throws std::logic_error when parameter `i` is not a pointer.
  void set_pointer(size_t i, void* ptr);

  /// Sets integer argument `i` from an exact integer. Throws Error (exit 2) naming the parameter
  /// when `value` does not fit its C type (e.g. a negative size_t, 2^31 for an int).
  /// Throws std::logic_error when parameter `i` is a pointer.
  void set_int(size_t i, int64_t value);

  /// Sets floating-point argument `i` (float: rounded to nearest; double: as is). For an integer
  /// parameter, `value` must be integral (else Error, exit 2). Throws std::logic_error for a pointer.
  void set_float(size_t i, double value);

  /// Sets scalar argument `i` from a command-line dimension: an integer parameter needs an
  /// integer `--NAME=` (parsed exactly from its text, up to 2^64-1 for unsigned 64-bit types);
  /// a float/double parameter accepts any number. Throws Error (exit 2) naming `--NAME=` when
  /// the value does not fit or is not an integer for an integer parameter.
  void set_scalar(size_t i, const Dim& dim);

  /// Calls `fn` (the address of solve) with the current arguments. Throws std::logic_error when
  /// an argument was never set. Whatever the callee does (launches, errors) is not checked here.
  void call(void* fn) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kprof
