#include "kernel/ffi_call.hpp"

#include <ffi.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/error.hpp"

namespace kprof {
namespace {

/// Storage for one argument at its exact C type (libffi reads the member its ffi_type names).
union Slot {
  void* p;
  float f32;
  double f64;
  int8_t i8;
  int16_t i16;
  int32_t i32;
  int64_t i64;
  uint8_t u8;
  uint16_t u16;
  uint32_t u32;
  uint64_t u64;
};

ffi_type* ffi_type_of(const Param& p) {
  if (p.is_pointer) return &ffi_type_pointer;
  switch (p.dtype) {
    case DType::F32:
      return &ffi_type_float;
    case DType::F64:
      return &ffi_type_double;
    case DType::I8:
      return &ffi_type_sint8;
    case DType::I16:
      return &ffi_type_sint16;
    case DType::I32:
      return &ffi_type_sint32;
    case DType::I64:
      return &ffi_type_sint64;
    case DType::U8:
      return &ffi_type_uint8;
    case DType::U16:
      return &ffi_type_uint16;
    case DType::U32:
      return &ffi_type_uint32;
    case DType::U64:
      return &ffi_type_uint64;
    case DType::F16:
    case DType::BF16:
      break;
  }
  throw usage_error("solve() parameter '" + p.name + "': " + p.type_text + " scalars cannot be passed",
                    "take a float and convert inside solve");
}

/// Inclusive range of an integer DType as (min, max) in long double (exact for 64-bit bounds).
void int_range(DType t, long double& lo, long double& hi) {
  switch (t) {
    case DType::I8:
      lo = INT8_MIN;
      hi = INT8_MAX;
      return;
    case DType::I16:
      lo = INT16_MIN;
      hi = INT16_MAX;
      return;
    case DType::I32:
      lo = INT32_MIN;
      hi = INT32_MAX;
      return;
    case DType::I64:
      lo = static_cast<long double>(INT64_MIN);
      hi = static_cast<long double>(INT64_MAX);
      return;
    case DType::U8:
      lo = 0;
      hi = UINT8_MAX;
      return;
    case DType::U16:
      lo = 0;
      hi = UINT16_MAX;
      return;
    case DType::U32:
      lo = 0;
      hi = UINT32_MAX;
      return;
    case DType::U64:
      lo = 0;
      hi = static_cast<long double>(UINT64_MAX);
      return;
    default:
      lo = hi = 0;
      return;
  }
}

[[noreturn]] void out_of_range(const Param& p, const std::string& value) {
  long double lo, hi;
  int_range(p.dtype, lo, hi);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.0Lf..%.0Lf", lo, hi);
  throw usage_error("--" + p.name + "=" + value + " does not fit solve()'s parameter '" + p.type_text + " " + p.name +
                        "' (range " + buf + ")",
                    "give a value in range, or change the parameter's type in solve()");
}

}  // namespace

struct FfiCall::Impl {
  Signature sig;
  ffi_cif cif{};
  std::vector<ffi_type*> types;
  std::vector<Slot> slots;
  std::vector<void*> values;
  std::vector<bool> set;

  const Param& scalar(size_t i) const {
    const Param& p = sig.params.at(i);
    if (p.is_pointer) throw std::logic_error("FfiCall: parameter '" + p.name + "' is a pointer, not a scalar");
    return p;
  }

  /// Stores an integer already known to be within the type's range.
  void store_int(size_t i, DType t, int64_t v, uint64_t uv, bool use_unsigned) {
    Slot& s = slots[i];
    switch (t) {
      case DType::I8:
        s.i8 = static_cast<int8_t>(v);
        break;
      case DType::I16:
        s.i16 = static_cast<int16_t>(v);
        break;
      case DType::I32:
        s.i32 = static_cast<int32_t>(v);
        break;
      case DType::I64:
        s.i64 = v;
        break;
      case DType::U8:
        s.u8 = static_cast<uint8_t>(v);
        break;
      case DType::U16:
        s.u16 = static_cast<uint16_t>(v);
        break;
      case DType::U32:
        s.u32 = static_cast<uint32_t>(v);
        break;
      case DType::U64:
        s.u64 = use_unsigned ? uv : static_cast<uint64_t>(v);
        break;
      default:
        throw std::logic_error("store_int on a non-integer type");
    }
    set[i] = true;
  }
};

FfiCall::FfiCall(const Signature& sig) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.sig = sig;
  size_t n = sig.params.size();
  m.types.resize(n);
  m.slots.resize(n);
  m.values.resize(n);
  m.set.assign(n, false);
  for (size_t i = 0; i < n; ++i) {
    m.types[i] = ffi_type_of(sig.params[i]);
    m.slots[i].u64 = 0;
    m.values[i] = &m.slots[i];
  }
  ffi_status st =
      ffi_prep_cif(&m.cif, FFI_DEFAULT_ABI, static_cast<unsigned>(n), &ffi_type_void, n ? m.types.data() : nullptr);
  if (st != FFI_OK)
    throw usage_error("libffi cannot prepare a call of " + sig.to_string() + " (ffi_prep_cif status " +
                      std::to_string(static_cast<int>(st)) + ")");
}

FfiCall::~FfiCall() = default;

size_t FfiCall::arity() const { return impl_->sig.params.size(); }

void FfiCall::set_pointer(size_t i, void* ptr) {
  const Param& p = impl_->sig.params.at(i);
  if (!p.is_pointer) throw std::logic_error("FfiCall: parameter '" + p.name + "' is not a pointer");
  impl_->slots[i].p = ptr;
  impl_->set[i] = true;
}

void FfiCall::set_int(size_t i, int64_t value) {
  const Param& p = impl_->scalar(i);
  if (dtype_is_float(p.dtype)) {
    set_float(i, static_cast<double>(value));
    return;
  }
  long double lo, hi;
  int_range(p.dtype, lo, hi);
  if (static_cast<long double>(value) < lo || static_cast<long double>(value) > hi)
    out_of_range(p, std::to_string(value));
  impl_->store_int(i, p.dtype, value, 0, false);
}

void FfiCall::set_float(size_t i, double value) {
  const Param& p = impl_->scalar(i);
  if (p.dtype == DType::F32) {
    impl_->slots[i].f32 = static_cast<float>(value);
    impl_->set[i] = true;
    return;
  }
  if (p.dtype == DType::F64) {
    impl_->slots[i].f64 = value;
    impl_->set[i] = true;
    return;
  }
  if (!std::isfinite(value) || std::floor(value) != value)
    throw usage_error(
        "solve()'s parameter '" + p.type_text + " " + p.name + "' is an integer, got " + std::to_string(value),
        "give an integer: --" + p.name + "=1024");
  long double lo, hi;
  int_range(p.dtype, lo, hi);
  if (static_cast<long double>(value) < lo || static_cast<long double>(value) > hi)
    out_of_range(p, std::to_string(value));
  if (p.dtype == DType::U64 && value >= 9223372036854775808.0)
    impl_->store_int(i, p.dtype, 0, static_cast<uint64_t>(value), true);
  else
    impl_->store_int(i, p.dtype, static_cast<int64_t>(value), 0, false);
}

void FfiCall::set_scalar(size_t i, const Dim& dim) {
  const Param& p = impl_->scalar(i);
  if (dtype_is_float(p.dtype)) {
    set_float(i, dim.value);
    return;
  }
  if (!dim.is_int)
    throw usage_error(
        "--" + p.name + "=" + dim.text + " is not an integer, but solve() takes '" + p.type_text + " " + p.name + "'",
        "give an integer: --" + p.name + "=1024");
  const char* text = dim.text.c_str();
  while (*text == ' ' || *text == '+') ++text;
  bool negative = *text == '-';
  errno = 0;
  if (p.dtype == DType::U64 && !negative) {
    char* end = nullptr;
    unsigned long long v = std::strtoull(text, &end, 10);
    if (errno == ERANGE) out_of_range(p, dim.text);
    impl_->store_int(i, p.dtype, 0, v, true);
    return;
  }
  char* end = nullptr;
  long long v = std::strtoll(text, &end, 10);
  if (errno == ERANGE) out_of_range(p, dim.text);
  set_int(i, v);
}

void FfiCall::call(void* fn) const {
  const Impl& m = *impl_;
  for (size_t i = 0; i < m.set.size(); ++i)
    if (!m.set[i]) throw std::logic_error("FfiCall: argument '" + m.sig.params[i].name + "' was never set");
  ffi_call(const_cast<ffi_cif*>(&m.cif), FFI_FN(fn), nullptr, const_cast<void**>(m.values.data()));
}

}  // namespace kprof
