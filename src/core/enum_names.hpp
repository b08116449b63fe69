// One table per enum for its names: the enum's value-name pairs written once, read both ways
// (value -> name for the reports, name -> value for the JSON kprof reads back), instead of a
// hand-written switch per direction.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kprof {

/// One value of enum E and its name.
template <class E>
struct EnumName {
  E value;
  const char* name;
};

/// The names of enum E: `rows` lists every value once with its name.
template <class E, std::size_t N>
struct EnumNames {
  std::array<EnumName<E>, N> rows;
  const char* fallback;  ///< the name of a value not in `rows` (a cast from a bad integer)

  /// The name of `e`, or `fallback`.
  constexpr const char* name(E e) const {
    for (const auto& r : rows)
      if (r.value == e) return r.name;
    return fallback;
  }
  /// The value named `s`, or nullopt.
  std::optional<E> parse(std::string_view s) const {
    for (const auto& r : rows)
      if (s == r.name) return r.value;
    return std::nullopt;
  }
};

/// Deduces N: `enum_names<E>({{{E::A, "a"}, {E::B, "b"}}}, "a")`.
template <class E, std::size_t N>
constexpr EnumNames<E, N> enum_names(const EnumName<E> (&rows)[N], const char* fallback) {
  EnumNames<E, N> t{{}, fallback};
  for (std::size_t i = 0; i < N; ++i) t.rows[i] = rows[i];
  return t;
}

}  // namespace kprof
