#include "core/sweep.hpp"

#include <cctype>
#include <limits>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"

namespace kprof {
namespace {

const char* kSweepHint =
    "write --sweep NAME=LO..HI (powers of two from LO, e.g. N=1Ki..64Mi) or --sweep NAME=V1,V2,...";

bool valid_name(const std::string& n) {
  if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
  for (char c : n)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

}  // namespace

int64_t parse_size_literal(const std::string& text) {
  std::string t = trim(text);
  size_t digits = 0;
  while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits]))) ++digits;
  std::string suffix = t.substr(digits);
  int shift = suffix.empty() ? 0 : suffix == "Ki" ? 10 : suffix == "Mi" ? 20 : suffix == "Gi" ? 30 : -1;
  if (digits == 0 || shift < 0 || digits > 18)
    throw usage_error("'" + text + "' is not a size: an integer, optionally with Ki, Mi or Gi (1Ki = 1024)",
                      kSweepHint);
  int64_t v = std::stoll(t.substr(0, digits));
  if (v > (std::numeric_limits<int64_t>::max() >> shift)) throw usage_error("'" + text + "' is too large", kSweepHint);
  return v << shift;
}

SweepAxis parse_sweep_axis(const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos) throw usage_error("--sweep " + text + ": no '='", kSweepHint);
  SweepAxis a;
  a.name = trim(text.substr(0, eq));
  if (!a.name.empty() && a.name.rfind("--", 0) == 0) a.name = a.name.substr(2);
  if (!valid_name(a.name))
    throw usage_error("--sweep " + text + ": '" + a.name + "' is not a dimension name", kSweepHint);
  std::string rest = text.substr(eq + 1);
  if (auto dots = rest.find(".."); dots != std::string::npos) {
    int64_t lo = parse_size_literal(rest.substr(0, dots)), hi = parse_size_literal(rest.substr(dots + 2));
    if (lo < 1 || lo > hi)
      throw usage_error("--sweep " + text + ": the range must run from 1 or more up to a larger value", kSweepHint);
    for (int64_t v = lo; v <= hi; v *= 2) {
      a.values.push_back(v);
      if (v > std::numeric_limits<int64_t>::max() / 2) break;
    }
  } else {
    for (const auto& w : split(rest, ',')) a.values.push_back(parse_size_literal(w));
  }
  if (a.values.size() > kMaxSweepPoints)
    throw usage_error("--sweep " + text + " has " + std::to_string(a.values.size()) + " values",
                      "at most " + std::to_string(kMaxSweepPoints) + " points per sweep");
  return a;
}

std::vector<SweepPoint> sweep_grid(const std::vector<SweepAxis>& axes) {
  std::set<std::string> names;
  size_t total = 1;
  for (const auto& a : axes) {
    if (!names.insert(a.name).second)
      throw usage_error("--sweep names " + a.name + " twice", "give each dimension one --sweep");
    total *= a.values.size();
    if (total > kMaxSweepPoints)
      throw usage_error("the sweep grid has more than " + std::to_string(kMaxSweepPoints) + " points",
                        "sweep fewer values or fewer dimensions at once");
  }
  std::vector<SweepPoint> grid{SweepPoint{}};
  for (const auto& a : axes) {
    std::vector<SweepPoint> next;
    for (const auto& p : grid)
      for (int64_t v : a.values) {
        SweepPoint q = p;
        q.emplace_back(a.name, std::to_string(v));
        next.push_back(std::move(q));
      }
    grid = std::move(next);
  }
  return grid;
}

Dims dims_at(const Dims& base, const SweepPoint& point) {
  Dims d = base;
  for (const auto& [name, value] : point) d.set(name, value);
  return d;
}

std::string dims_key(const Dims& dims) {
  std::string key;
  for (const auto& d : dims.all()) key += (key.empty() ? "" : "_") + d.name + "=" + d.text;
  for (char& c : key)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '=' && c != '+' && c != '-') c = '_';
  return key.empty() ? "nodims" : key;
}

}  // namespace kprof
