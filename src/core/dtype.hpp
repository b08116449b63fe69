// Element types kprof knows: the C types of solve's parameters and PyTorch's dtypes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace kprof {

/// Element type of a buffer or scalar.
enum class DType { F32, F64, F16, BF16, I8, I16, I32, I64, U8, U16, U32, U64 };

/// Size of one element in bytes.
size_t dtype_size(DType t);

/// Short name used in reports: "float32", "float16", "bfloat16", "int32", "uint64", ...
/// (PyTorch's spelling without the "torch." prefix; also the name torch accepts).
std::string dtype_name(DType t);

/// The inverse of dtype_name; also accepts "float", "half", "double", "bf16", "fp16", "fp32".
std::optional<DType> dtype_from_name(const std::string& name);

/// True for the floating-point types (F32, F64, F16, BF16).
bool dtype_is_float(DType t);

/// True for the signed integer types.
bool dtype_is_signed_int(DType t);

/// The `__cuda_array_interface__` typestr ("<f4", "<f2", "<i8", "|u1", ...). bfloat16 has no
/// numpy typestr: it is "<V2" there and callers view it as int16 then reinterpret.
std::string dtype_typestr(DType t);

/// Decodes element `i` of a host array of type `t` to double (half and bfloat16 converted exactly).
double dtype_load(const void* base, size_t i, DType t);

/// Raw bits of element `i` (zero-extended to 64 bits): used for bit-exact pattern checks.
uint64_t dtype_load_bits(const void* base, size_t i, DType t);

/// float -> IEEE half bits (round to nearest even) and back.
uint16_t float_to_half_bits(float f);
float half_bits_to_float(uint16_t h);

/// float -> bfloat16 bits (round to nearest even) and back.
uint16_t float_to_bf16_bits(float f);
float bf16_bits_to_float(uint16_t b);

}  // namespace kprof
