#include "core/dims.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "core/error.hpp"
#include "core/text.hpp"

namespace kprof {

void Dims::set(const std::string& name, const std::string& text) {
  auto v = parse_number(text);
  if (!v || text.find(',') != std::string::npos)
    throw usage_error("dimension --" + name + "=" + text + " is not a number",
                      "give dimensions as --NAME=VALUE, for example --N=1024 or --alpha=0.5");
  Dim d{name, text, *v, false};
  std::string t = trim(text);
  d.is_int = !t.empty() && t.find_first_not_of("+-0123456789") == std::string::npos;
  for (auto& e : dims_)
    if (e.name == name) {
      e = d;
      return;
    }
  dims_.push_back(d);
}

bool Dims::has(const std::string& name) const {
  for (const auto& d : dims_)
    if (d.name == name) return true;
  return false;
}

const Dim& Dims::get(const std::string& name) const {
  for (const auto& d : dims_)
    if (d.name == name) return d;
  throw usage_error("missing dimension --" + name + "=VALUE",
                    "solve() takes a parameter '" + name + "': give its value as --" + name + "=...");
}

std::map<std::string, int64_t> Dims::ints() const {
  std::map<std::string, int64_t> m;
  for (const auto& d : dims_)
    if (d.is_int) {
      // Beyond int64_t (a uint64_t scalar may be): saturate, so sizing reports "too large"
      // instead of converting out of range (undefined behaviour).
      constexpr double kTop = 9223372036854775808.0;  // 2^63
      m[d.name] = d.value >= kTop   ? std::numeric_limits<int64_t>::max()
                  : d.value < -kTop ? std::numeric_limits<int64_t>::min()
                                    : static_cast<int64_t>(d.value);
    }
  return m;
}

std::string Dims::to_string() const {
  std::string s;
  for (const auto& d : dims_) {
    if (!s.empty()) s += ' ';
    s += d.name + "=" + d.text;
  }
  return s;
}

void parse_dim_args(const std::vector<std::string>& words, Dims& dims) {
  for (const auto& w : words) {
    auto eq = w.find('=');
    if (!starts_with(w, "--") || eq == std::string::npos || eq == 2) {
      throw usage_error("unexpected argument '" + w + "'",
                        "dimensions are given as --NAME=VALUE (with '='), for example --N=1024; "
                        "see --help for the options");
    }
    std::string name = w.substr(2, eq - 2);
    if (!(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
      throw usage_error("'" + w + "' is not a dimension name", "names start with a letter: --N=1024");
    for (char c : name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
        throw usage_error("'" + w + "' is not a dimension name", "names use letters, digits and '_': --N=1024");
    if (dims.has(name))
      throw usage_error("dimension --" + name + " is given twice",
                        "give each dimension once, e.g. --" + name + "=" + w.substr(eq + 1));
    dims.set(name, w.substr(eq + 1));
  }
}

namespace {

/// Checked 64-bit arithmetic of size expressions: every step that leaves int64_t is an error,
/// never a wrapped count.
struct ExprParser {
  const std::string& s;
  const std::map<std::string, int64_t>& vars;
  size_t pos = 0;
  int depth = 0;  ///< nested '(' and unary '-' (each is one level of recursion)

  [[noreturn]] void fail(const std::string& why) {
    throw usage_error("cannot evaluate size expression '" + s + "': " + why,
                      "use integers, dimension names, + - * / and parentheses, e.g. --size A=M*K");
  }
  [[noreturn]] void overflow(const std::string& what, int64_t a, int64_t b) {
    throw usage_error("size expression '" + s + "' overflows 64-bit integers at " + std::to_string(a) + " " + what +
                          " " + std::to_string(b) + " (the largest is " +
                          std::to_string(std::numeric_limits<int64_t>::max()) + ")",
                      "element counts above 2^40 are refused anyway: check the dimensions and the expression");
  }
  void skip() {
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
  }
  /// Enters one level of recursion; refuses deeper than kMaxExprDepth (a crash otherwise).
  void enter() {
    if (++depth > kMaxExprDepth)
      fail("nested more than " + std::to_string(kMaxExprDepth) + " levels deep (parentheses or unary '-')");
  }
  int64_t number() {
    size_t start = pos;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) ++pos;
    std::string digits = s.substr(start, pos - start);
    errno = 0;
    long long v = std::strtoll(digits.c_str(), nullptr, 10);
    if (errno == ERANGE) fail("the number " + digits + " does not fit in 64 bits");
    return v;
  }
  int64_t primary() {
    skip();
    if (pos >= s.size()) fail("unexpected end");
    char c = s[pos];
    if (c == '(' || c == '-') {
      enter();
      ++pos;
      int64_t v = 0;
      if (c == '-') {
        int64_t x = primary();
        if (x == std::numeric_limits<int64_t>::min()) overflow("*", x, -1);
        v = -x;
      } else {
        v = sum();
        skip();
        if (pos >= s.size() || s[pos] != ')') fail("missing ')'");
        ++pos;
      }
      --depth;
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos;
      while (pos < s.size() && (std::isalnum(static_cast<unsigned char>(s[pos])) || s[pos] == '_')) ++pos;
      std::string name = s.substr(start, pos - start);
      auto it = vars.find(name);
      if (it == vars.end()) fail("unknown dimension '" + name + "' (give it as --" + name + "=VALUE)");
      return it->second;
    }
    fail(std::string("unexpected '") + c + "'");
  }
  int64_t product() {
    int64_t v = primary();
    while (true) {
      skip();
      if (pos < s.size() && s[pos] == '*') {
        ++pos;
        int64_t b = primary(), r = 0;
        if (__builtin_mul_overflow(v, b, &r)) overflow("*", v, b);
        v = r;
      } else if (pos < s.size() && s[pos] == '/') {
        ++pos;
        int64_t d = primary();
        if (d == 0) fail("division by zero");
        if (d == -1 && v == std::numeric_limits<int64_t>::min()) overflow("/", v, d);
        v /= d;
      } else {
        return v;
      }
    }
  }
  int64_t sum() {
    int64_t v = product();
    while (true) {
      skip();
      if (pos < s.size() && s[pos] == '+') {
        ++pos;
        int64_t b = product(), r = 0;
        if (__builtin_add_overflow(v, b, &r)) overflow("+", v, b);
        v = r;
      } else if (pos < s.size() && s[pos] == '-') {
        ++pos;
        int64_t b = product(), r = 0;
        if (__builtin_sub_overflow(v, b, &r)) overflow("-", v, b);
        v = r;
      } else {
        return v;
      }
    }
  }
};

}  // namespace

int64_t eval_int_expr(const std::string& expr, const std::map<std::string, int64_t>& vars) {
  if (expr.size() > kMaxExprLength)
    throw usage_error("size expression of " + std::to_string(expr.size()) + " characters is longer than kprof reads (" +
                          std::to_string(kMaxExprLength) + ")",
                      "write the element count with a few dimensions, e.g. --size A=M*K");
  ExprParser p{expr, vars};
  int64_t v = p.sum();
  p.skip();
  if (p.pos != expr.size()) p.fail("unexpected '" + expr.substr(p.pos) + "'");
  return v;
}

}  // namespace kprof
