#include "report/bound_report.hpp"

#include <fmt/format.h>

#include "core/text.hpp"
#include "stages/analysis/format.hpp"

namespace kprof {

namespace {

using nlohmann::json;

json quantity(double v, const char* unit) { return {{"value", v}, {"unit", unit}}; }

json quantity(const std::optional<double>& v, const char* unit) { return v ? quantity(*v, unit) : json(nullptr); }

}  // namespace

std::string implementation_bound_markdown(const CallVerdict& call, int level) {
  if (!call.implementation_bound) return "";
  const TimeBound& b = *call.implementation_bound;
  std::string out = std::string(static_cast<size_t>(level), '#') + " Implementation bound (as executed)\n\n";
  if (b.measured_s > 0)
    out += fmt::format("Measured: **{}** ({}).\n\n", format_value(b.measured_s * 1e9, "ns"), b.measured_how);
  std::vector<std::vector<std::string>> rows;
  for (const auto& t : b.terms)
    rows.push_back({t.kind, t.ceiling, t.arithmetic,
                    b.measured_s > 0 ? format_value(100.0 * t.time_s / b.measured_s, "%") : "n/a"});
  if (!rows.empty())
    out += markdown_table({"Term", "Ceiling", "Work / rate = time", "Share of the measured time"}, rows) + "\n";
  out += "**" + implementation_bound_sentence(b) + "**.\n\n";
  for (const auto& n : b.notes) out += "- Note: " + n + ".\n";
  return out +
         "\nThe implementation bound is the largest of the launch floor (the least kernel duration on this "
         "GPU), the launch's own DRAM bytes at the achievable DRAM bandwidth known for this GPU (else the "
         "theoretical peak) and its executed FLOPs at the peak of each precision (docs/CLASSIFICATION.md, "
         "\"Time bound and headroom\").\n\n";
}

json implementation_bound_json(const TimeBound& b) {
  json terms = json::array();
  for (const auto& t : b.terms) {
    bool mem = t.kind == "memory";
    terms.push_back({{"kind", t.kind},
                     {"ceiling", t.ceiling},
                     {"precision", t.precision.empty() ? json(nullptr) : json(t.precision)},
                     {"amount", quantity(t.amount, mem ? "B" : "FLOP")},
                     {"rate", quantity(t.rate, mem ? "B/s" : "FLOP/s")},
                     {"time", quantity(t.time_s, "s")},
                     {"arithmetic", t.arithmetic}});
  }
  json measured =
      b.measured_s > 0 ? json{{"value", b.measured_s}, {"unit", "s"}, {"how", b.measured_how}} : json(nullptr);
  return {
      {"scope", "implementation as executed: its own DRAM traffic and executed FLOPs, not the algorithm's"},
      {"measured", measured},
      {"bound", quantity(b.bound_s, "s")},
      {"pct_of_bound", quantity(b.pct_of_bound, "%")},
      {"max_speedup", quantity(b.max_speedup, "x")},
      {"binding", b.binding},
      {"floor", b.floor_s ? json{{"value", *b.floor_s}, {"unit", "s"}, {"how", b.floor_how}, {"binds", b.floor_binds}}
                          : json(nullptr)},
      {"terms", terms},
      {"notes", b.notes},
      {"sentence", implementation_bound_sentence(b)}};
}

}  // namespace kprof
