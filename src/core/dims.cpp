#include "core/dims.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>

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
    if (e.name == name) { e = d; return; }
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
    if (d.is_int) m[d.name] = static_cast<int64_t>(d.value);
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
        throw usage_error("'" + w + "' is not a dimension name",
                          "names use letters, digits and '_': --N=1024");
    if (dims.has(name))
      throw usage_error("dimension --" + name + " is given twice",
                        "give each dimension once, e.g. --" + name + "=" + w.substr(eq + 1));
    dims.set(name, w.substr(eq + 1));
  }
}

namespace {

struct ExprParser {
  const std::string& s;
  const std::map<std::string, int64_t>& vars;
  size_t pos = 0;

  [[noreturn]] void fail(const std::string& why) {
    throw usage_error("cannot evaluate size expression '" + s + "': " + why,
                      "use integers, dimension names, + - * / and parentheses, e.g. --size A=M*K");
  }
  void skip() { while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos; }
  int64_t primary() {
    skip();
    if (pos >= s.size()) fail("unexpected end");
    char c = s[pos];
    if (c == '(') {
      ++pos;
      int64_t v = sum();
      skip();
      if (pos >= s.size() || s[pos] != ')') fail("missing ')'");
      ++pos;
      return v;
    }
    if (c == '-') { ++pos; return -primary(); }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t start = pos;
      while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) ++pos;
      return std::strtoll(s.substr(start, pos - start).c_str(), nullptr, 10);
    }
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
      if (pos < s.size() && s[pos] == '*') { ++pos; v *= primary(); }
      else if (pos < s.size() && s[pos] == '/') {
        ++pos;
        int64_t d = primary();
        if (d == 0) fail("division by zero");
        v /= d;
      } else return v;
    }
  }
  int64_t sum() {
    int64_t v = product();
    while (true) {
      skip();
      if (pos < s.size() && s[pos] == '+') { ++pos; v += product(); }
      else if (pos < s.size() && s[pos] == '-') { ++pos; v -= product(); }
      else return v;
    }
  }
};

}  // namespace

int64_t eval_int_expr(const std::string& expr, const std::map<std::string, int64_t>& vars) {
  ExprParser p{expr, vars};
  int64_t v = p.sum();
  p.skip();
  if (p.pos != expr.size()) p.fail("unexpected '" + expr.substr(p.pos) + "'");
  return v;
}

}  // namespace kprof
