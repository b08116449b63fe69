// Guard zones: fixed byte patterns before and after every device buffer, so writes past the end
// (or before the start) of a buffer are detected after the call and reported with its name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "device/buffer_view.hpp"

namespace kprof {

/// Bytes of each guard zone (one before, one after every buffer): 64 KiB, a multiple of the
/// 256-byte cudaMalloc alignment, so the buffer itself stays 256-byte aligned.
constexpr size_t kGuardBytes = 64 * 1024;

/// The guard pattern's byte at `offset` within a zone (`after`: the zone after the buffer).
/// Pseudo-random bytes (splitmix64), different for the two zones, so neither zeros, a memset
/// value nor a copied neighbour matches them by chance.
uint8_t guard_byte(size_t offset, bool after);

/// A whole zone's pattern (kGuardBytes bytes).
std::vector<uint8_t> guard_pattern(bool after);

/// Compares a zone read back from the GPU with its pattern. Returns nullopt when intact, else the
/// violation for buffer `name` whose payload has `buffer_bytes` bytes:
///   after:  first_offset = buffer_bytes + index of the first changed byte (bytes from the buffer's start);
///   before: first_offset = distance in bytes from the changed byte nearest the buffer to the
///           buffer's start (1 = the byte just before it).
/// bytes_changed counts every byte that differs from the pattern.
std::optional<GuardViolation> scan_guard(const std::string& name, size_t buffer_bytes, bool after,
                                         const std::vector<uint8_t>& zone);

/// "C: 4 bytes written past the end (first at byte 4096 of a 4096-byte buffer)" for messages.
std::string describe_violation(const GuardViolation& v);

}  // namespace kprof
