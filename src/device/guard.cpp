#include "device/guard.hpp"

#include "device/fill_hash.hpp"

namespace kprof {

uint8_t guard_byte(size_t offset, bool after) {
  uint64_t h = splitmix64(0x6B70726F66ull /* "kprof" */ + (after ? 0x100000000ull : 0) + offset / 8);
  return static_cast<uint8_t>(h >> (8 * (offset % 8)));
}

std::vector<uint8_t> guard_pattern(bool after) {
  std::vector<uint8_t> z(kGuardBytes);
  for (size_t i = 0; i < z.size(); ++i) z[i] = guard_byte(i, after);
  return z;
}

std::optional<GuardViolation> scan_guard(const std::string& name, size_t buffer_bytes, bool after,
                                         const std::vector<uint8_t>& zone) {
  size_t changed = 0, first = 0, last = 0;
  for (size_t i = 0; i < zone.size(); ++i) {
    if (zone[i] == guard_byte(i, after)) continue;
    if (changed == 0) first = i;
    last = i;
    ++changed;
  }
  if (changed == 0) return std::nullopt;
  GuardViolation v;
  v.buffer = name;
  v.before = !after;
  v.bytes_changed = changed;
  v.first_offset = after ? buffer_bytes + first : zone.size() - last;
  return v;
}

std::string describe_violation(const GuardViolation& v) {
  std::string n = std::to_string(v.bytes_changed) + (v.bytes_changed == 1 ? " byte" : " bytes");
  if (v.before)
    return v.buffer + ": " + n + " written before the start (nearest: " + std::to_string(v.first_offset) +
           " bytes before it)";
  return v.buffer + ": " + n + " written past the end (first at byte offset " + std::to_string(v.first_offset) +
         " from the buffer's start)";
}

}  // namespace kprof
