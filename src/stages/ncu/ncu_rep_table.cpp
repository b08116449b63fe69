// metric_table_from_rep (ncu_rep.hpp): a report read through ncu_report as the MetricTable a
// raw-page CSV export gives, so the classifier and the reports need not know where it came from.
#include <fmt/format.h>

#include <set>

#include "stages/ncu/metrics.hpp"
#include "stages/ncu/ncu_rep.hpp"

namespace kprof {

namespace {

std::string metric_text(const NcuRepKernel& k, const std::string& name) {
  auto it = k.metrics.find(name);
  return it == k.metrics.end() ? "" : it->second.text;
}

/// "(256, 1, 1)" from <prefix>_x/_y/_z, as ncu's "Block Size" / "Grid Size" columns.
std::string dims_text(const NcuRepKernel& k, const std::string& prefix) {
  std::string x = metric_text(k, prefix + "_x"), y = metric_text(k, prefix + "_y"), z = metric_text(k, prefix + "_z");
  if (x.empty()) return "";
  return fmt::format("({}, {}, {})", x, y.empty() ? "1" : y, z.empty() ? "1" : z);
}

}  // namespace

MetricTable metric_table_from_rep(const NcuRep& rep) {
  MetricTable t;
  std::set<std::string> columns;
  for (const auto& k : rep.kernels) {
    KernelMetrics km;
    km.id = k.id;
    km.name = k.name.empty() ? k.function : k.name;
    km.demangled_name = k.name;
    km.block = dims_text(k, metric::kBlockDimPrefix);
    km.grid = dims_text(k, metric::kGridDimPrefix);
    km.device = metric_text(k, metric::kDeviceId);
    std::string major = metric_text(k, metric::kCcMajor);
    std::string minor = metric_text(k, metric::kCcMinor);
    if (!major.empty()) km.cc = major + "." + (minor.empty() ? "0" : minor);
    for (const auto& [name, m] : k.metrics) {
      MetricValue v;
      v.raw = m.text;
      v.raw_unit = m.unit;
      NormalizedUnit nu = normalize_unit(m.unit);
      v.unit = nu.unit;
      if (m.number) v.value = *m.number * nu.factor;
      km.metrics[name] = v;
      columns.insert(name);
    }
    t.kernels.push_back(std::move(km));
  }
  t.columns.assign(columns.begin(), columns.end());
  return t;
}

}  // namespace kprof
