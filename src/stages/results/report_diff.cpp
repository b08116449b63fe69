#include "stages/results/report_diff.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "stages/ncu/metrics.hpp"

namespace kprof {

namespace {

DiffSide side_of(const KernelMetrics& k, const Verdict& v) {
  DiffSide s;
  s.id = k.id;
  s.gpu_time_ns = v.gpu_time_ns;
  s.cls = bottleneck_name(v.cls);
  s.sm_sol = catalog_value(k, metric::kSmSol);
  s.mem_sol = catalog_value(k, metric::kMemSol);
  // Verdict::units is busiest first: the first compute unit is behind the SM SOL, the first other
  // one (DRAM, L2, L1/TEX, LSU/MIO) behind the Memory SOL.
  for (const auto& u : v.units) {
    if (u.compute && s.sm_unit.empty()) s.sm_unit = u.name, s.sm_unit_pct = u.pct;
    if (!u.compute && s.mem_unit.empty()) s.mem_unit = u.name, s.mem_unit_pct = u.pct;
  }
  return s;
}

std::vector<MetricMove> moved_metrics(const KernelMetrics& a, const KernelMetrics& b) {
  std::vector<MetricMove> out;
  for (const auto& spec : metric_catalog()) {
    auto x = catalog_value(a, spec.name), y = catalog_value(b, spec.name);
    if (!x || !y || !std::isfinite(*x) || !std::isfinite(*y) || *x <= 0 || *y <= 0 || *x == *y) continue;
    out.push_back({spec.name, spec.label, spec.unit, *x, *y, 100.0 * (*y / *x - 1)});
  }
  std::sort(out.begin(), out.end(), [](const MetricMove& p, const MetricMove& q) {
    return std::abs(std::log(p.after / p.before)) > std::abs(std::log(q.after / q.before));
  });
  if (out.size() > kMovedMetrics) out.resize(kMovedMetrics);
  return out;
}

std::set<std::string> finding_titles(const Verdict& v) {
  std::set<std::string> out;
  for (const auto& f : v.findings) out.insert(f.title);
  return out;
}

KernelPairDiff pair_diff(const NcuAnalysis& a, size_t i, const NcuAnalysis& b, size_t j, int occurrence,
                         bool by_order) {
  const KernelMetrics& ka = a.table.kernels[i];
  const KernelMetrics& kb = b.table.kernels[j];
  const Verdict& va = a.verdict.kernels[i];
  const Verdict& vb = b.verdict.kernels[j];
  KernelPairDiff p;
  p.name = ka.name;
  p.after_name = kb.name;
  p.occurrence = occurrence;
  p.by_order = by_order;
  p.before = side_of(ka, va);
  p.after = side_of(kb, vb);
  if (p.before.gpu_time_ns > 0 && p.after.gpu_time_ns > 0 && std::isfinite(p.before.gpu_time_ns) &&
      std::isfinite(p.after.gpu_time_ns))
    p.time_ratio = p.after.gpu_time_ns / p.before.gpu_time_ns;
  auto fa = finding_titles(va), fb = finding_titles(vb);
  for (const auto& t : fa)
    if (!fb.count(t)) p.findings_gone.push_back(t);
  for (const auto& t : fb)
    if (!fa.count(t)) p.findings_appeared.push_back(t);
  p.moved = moved_metrics(ka, kb);
  return p;
}

std::string launch_label(const KernelMetrics& k) { return fmt::format("{} [ID {}]", k.name, k.id); }

}  // namespace

ReportDiff diff_reports(const std::string& before_label, const NcuAnalysis& before, const std::string& after_label,
                        const NcuAnalysis& after) {
  ReportDiff d;
  d.before = before_label;
  d.after = after_label;
  const size_t na = std::min(before.table.kernels.size(), before.verdict.kernels.size());
  const size_t nb = std::min(after.table.kernels.size(), after.verdict.kernels.size());
  // The n-th launch of each name in `after`, by name.
  std::map<std::string, std::vector<size_t>> by_name;
  for (size_t j = 0; j < nb; ++j) by_name[after.table.kernels[j].name].push_back(j);
  std::map<std::string, size_t> seen;
  std::vector<bool> used(nb, false);
  std::vector<size_t> left_a;
  for (size_t i = 0; i < na; ++i) {
    const std::string& name = before.table.kernels[i].name;
    size_t occ = seen[name]++;
    auto it = by_name.find(name);
    if (it != by_name.end() && occ < it->second.size()) {
      used[it->second[occ]] = true;
      d.pairs.push_back(pair_diff(before, i, after, it->second[occ], static_cast<int>(occ), false));
    } else {
      left_a.push_back(i);
    }
  }
  // Left over on both sides (renamed kernels: v0_naive -> v1_coalesced): paired in launch order.
  std::vector<size_t> left_b;
  for (size_t j = 0; j < nb; ++j)
    if (!used[j]) left_b.push_back(j);
  size_t k = 0;
  for (; k < left_a.size() && k < left_b.size(); ++k)
    d.pairs.push_back(pair_diff(before, left_a[k], after, left_b[k], 0, true));
  for (size_t i = k; i < left_a.size(); ++i) d.only_before.push_back(launch_label(before.table.kernels[left_a[i]]));
  for (size_t j = k; j < left_b.size(); ++j) d.only_after.push_back(launch_label(after.table.kernels[left_b[j]]));
  return d;
}

}  // namespace kprof
