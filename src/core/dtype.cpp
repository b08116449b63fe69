#include "core/dtype.hpp"

#include <cmath>
#include <cstring>

#include "core/text.hpp"

namespace kprof {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::F64:
    case DType::I64:
    case DType::U64:
      return 8;
    case DType::F32:
    case DType::I32:
    case DType::U32:
      return 4;
    case DType::F16:
    case DType::BF16:
    case DType::I16:
    case DType::U16:
      return 2;
    case DType::I8:
    case DType::U8:
      return 1;
  }
  return 0;
}

std::string dtype_name(DType t) {
  switch (t) {
    case DType::F32:
      return "float32";
    case DType::F64:
      return "float64";
    case DType::F16:
      return "float16";
    case DType::BF16:
      return "bfloat16";
    case DType::I8:
      return "int8";
    case DType::I16:
      return "int16";
    case DType::I32:
      return "int32";
    case DType::I64:
      return "int64";
    case DType::U8:
      return "uint8";
    case DType::U16:
      return "uint16";
    case DType::U32:
      return "uint32";
    case DType::U64:
      return "uint64";
  }
  return "?";
}

std::optional<DType> dtype_from_name(const std::string& raw) {
  std::string n = to_lower(raw);
  if (starts_with(n, "torch.")) n = n.substr(6);
  if (n == "float32" || n == "float" || n == "fp32" || n == "f32") return DType::F32;
  if (n == "float64" || n == "double" || n == "fp64" || n == "f64") return DType::F64;
  if (n == "float16" || n == "half" || n == "fp16" || n == "f16") return DType::F16;
  if (n == "bfloat16" || n == "bf16") return DType::BF16;
  if (n == "int8") return DType::I8;
  if (n == "int16" || n == "short") return DType::I16;
  if (n == "int32" || n == "int") return DType::I32;
  if (n == "int64" || n == "long") return DType::I64;
  if (n == "uint8") return DType::U8;
  if (n == "uint16") return DType::U16;
  if (n == "uint32") return DType::U32;
  if (n == "uint64") return DType::U64;
  return std::nullopt;
}

bool dtype_is_float(DType t) { return t == DType::F32 || t == DType::F64 || t == DType::F16 || t == DType::BF16; }

bool dtype_is_signed_int(DType t) { return t == DType::I8 || t == DType::I16 || t == DType::I32 || t == DType::I64; }

std::string dtype_typestr(DType t) {
  switch (t) {
    case DType::F32:
      return "<f4";
    case DType::F64:
      return "<f8";
    case DType::F16:
      return "<f2";
    case DType::BF16:
      return "<V2";
    case DType::I8:
      return "|i1";
    case DType::I16:
      return "<i2";
    case DType::I32:
      return "<i4";
    case DType::I64:
      return "<i8";
    case DType::U8:
      return "|u1";
    case DType::U16:
      return "<u2";
    case DType::U32:
      return "<u4";
    case DType::U64:
      return "<u8";
  }
  return "";
}

uint16_t float_to_half_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(half);
}

float half_bits_to_float(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {
      float v = std::ldexp(static_cast<float>(mant), -24);
      return sign ? -v : v;
    }
  } else if (exp == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t float_to_bf16_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

float bf16_bits_to_float(uint16_t b) {
  uint32_t x = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

double dtype_load(const void* base, size_t i, DType t) {
  const char* p = static_cast<const char*>(base) + i * dtype_size(t);
  switch (t) {
    case DType::F32: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::F64: {
      double v;
      std::memcpy(&v, p, 8);
      return v;
    }
    case DType::F16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return half_bits_to_float(v);
    }
    case DType::BF16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return bf16_bits_to_float(v);
    }
    case DType::I8:
      return static_cast<double>(*reinterpret_cast<const int8_t*>(p));
    case DType::U8:
      return static_cast<double>(*reinterpret_cast<const uint8_t*>(p));
    case DType::I16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case DType::U16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case DType::I32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::U32: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::I64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return static_cast<double>(v);
    }
    case DType::U64: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return static_cast<double>(v);
    }
  }
  return 0.0;
}

uint64_t dtype_load_bits(const void* base, size_t i, DType t) {
  size_t n = dtype_size(t);
  const char* p = static_cast<const char*>(base) + i * n;
  uint64_t v = 0;
  std::memcpy(&v, p, n);  // little-endian: low bytes
  return v;
}

}  // namespace kprof
