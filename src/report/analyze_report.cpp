#include "report/analyze_report.hpp"

#include <fmt/format.h>

#include "core/text.hpp"
#include "stages/analysis/verdict.hpp"

namespace kprof {
namespace {

/// "Memory-Bound 3, Latency-Bound 1": the classes of a group of launches.
std::string class_counts(const LaunchTotals& t) {
  std::string s;
  for (const auto& [cls, n] : t.classes) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", bottleneck_name(cls), n);
  return s;
}

}  // namespace

std::string other_launches_markdown(const StreamedAnalysis& a, size_t max_names) {
  if (a.others.launches == 0) return "";
  const CallVerdict& call = a.kept.verdict;
  double share = call.total_gpu_time_ns > 0 ? 100.0 * a.others.gpu_time_ns / call.total_gpu_time_ns : 0;
  std::string out = "## Launches not shown in full\n\n";
  out += fmt::format(
      "{} of the {} launches are shown in full (those with the most GPU time, and the leading one); "
      "the other {} launches hold {:.1f}% of the GPU time ({}): {}.\n\n",
      call.kernels.size(), a.launches, a.others.launches, share, fmt_duration_ms(a.others.gpu_time_ns / 1e6),
      class_counts(a.others));
  out += "| Kernel | Launches | GPU time | Share | Classes |\n|---|---|---|---|---|\n";
  for (size_t i = 0; i < a.by_name.size() && i < max_names; ++i) {
    const auto& nt = a.by_name[i];
    double s = call.total_gpu_time_ns > 0 ? 100.0 * nt.totals.gpu_time_ns / call.total_gpu_time_ns : 0;
    std::string name = nt.name;
    for (char& c : name)
      if (c == '|') c = '/';
    out += fmt::format("| {} | {} | {} | {:.1f}% | {} |\n", name, nt.totals.launches,
                       fmt_duration_ms(nt.totals.gpu_time_ns / 1e6), s, class_counts(nt.totals));
  }
  if (a.by_name.size() > max_names)
    out += fmt::format("\n({} more kernel names, {} in all.)\n", a.by_name.size() - max_names, a.by_name.size());
  return out + "\n";
}

}  // namespace kprof
