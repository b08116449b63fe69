#include "stages/ncu/metric_table.hpp"

#include <cmath>
#include <sstream>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "stages/ncu/csv.hpp"
#include "stages/ncu/raw_reader.hpp"

namespace kprof {

namespace {

/// Time unit -> seconds, or 0 when `tok` is not a time unit.
double seconds_of(const std::string& tok) {
  if (tok == "ns" || tok == "nsecond" || tok == "nsec") return 1e-9;
  if (tok == "us" || tok == "usecond" || tok == "usec") return 1e-6;
  if (tok == "ms" || tok == "msecond" || tok == "msec") return 1e-3;
  if (tok == "s" || tok == "second" || tok == "sec") return 1.0;
  return 0.0;
}

/// Data unit -> bytes (ncu's prefixes are powers of 1000), or 0 when not a data unit.
double bytes_of(const std::string& tok) {
  if (tok == "byte" || tok == "bytes") return 1.0;
  if (tok == "Kbyte") return 1e3;
  if (tok == "Mbyte") return 1e6;
  if (tok == "Gbyte") return 1e9;
  if (tok == "Tbyte") return 1e12;
  if (tok == "Pbyte") return 1e15;
  return 0.0;
}

/// Frequency unit -> Hz ("Ghz", "Mhz", "Khz", "hz", any case), or 0 when not a frequency.
double hertz_of(const std::string& tok) {
  std::string t = to_lower(tok);
  if (t == "hz") return 1.0;
  if (t == "khz") return 1e3;
  if (t == "mhz") return 1e6;
  if (t == "ghz") return 1e9;
  if (t == "thz") return 1e12;
  return 0.0;
}

}  // namespace

NormalizedUnit normalize_unit(const std::string& raw_unit) {
  std::string unit = trim(raw_unit);
  if (unit.empty()) return {1.0, ""};
  size_t slash = unit.find('/');
  std::string num = slash == std::string::npos ? unit : unit.substr(0, slash);
  std::string den = slash == std::string::npos ? "" : unit.substr(slash + 1);
  if (den.find('/') != std::string::npos) return {1.0, unit};  // not a form kprof knows

  NormalizedUnit out;
  std::string num_base = num;
  if (double s = seconds_of(num)) {
    out.factor = s * 1e9;
    num_base = "ns";
  } else if (double b = bytes_of(num)) {
    out.factor = b;
    num_base = "byte";
  } else if (double h = hertz_of(num)) {
    out.factor = h;
    num_base = "Hz";
  }
  if (den.empty()) {
    out.unit = num_base;
    return out;
  }
  std::string den_base = den;
  if (double s = seconds_of(den)) {
    out.factor /= s;
    den_base = "s";
    if (num_base == "cycle") {
      out.unit = "Hz";
      return out;
    }
  } else if (double b = bytes_of(den)) {
    out.factor /= b;
    den_base = "byte";
  }
  out.unit = num_base + "/" + den_base;
  return out;
}

std::optional<double> KernelMetrics::number(const std::string& metric) const {
  auto it = metrics.find(metric);
  if (it == metrics.end()) return std::nullopt;
  return it->second.value;
}

std::string KernelMetrics::text(const std::string& metric) const {
  auto it = metrics.find(metric);
  return it == metrics.end() ? std::string() : it->second.raw;
}

void KernelMetrics::set(const std::string& metric, double value, const std::string& unit) {
  MetricValue& v = metrics[metric];
  v.raw = fmt_sig(value, 10);
  v.raw_unit = unit;
  v.unit = unit;
  v.value = std::isnan(value) ? std::nullopt : std::optional<double>(value);
}

std::string KernelMetrics::short_name() const {
  size_t p = name.find('(');
  return trim(p == std::string::npos ? name : name.substr(0, p));
}

namespace {

/// The long layout (`--csv --metrics ...` on the details page): one record per metric.
MetricTable pivot_long_layout(NcuRawReader& reader) {
  const CsvRecord& header = reader.header();
  const auto& index = reader.index();
  size_t name_col = index.at("Metric Name"), unit_col = index.at("Metric Unit"), value_col = index.at("Metric Value");
  MetricTable table;
  std::map<int, size_t> row_of_id;
  std::set<std::string> seen;
  CsvRecord rec;
  while (reader.next_record(rec)) {
    if (rec.size() != header.size())
      throw usage_error("line " + std::to_string(reader.line()) + " of the ncu CSV has " + std::to_string(rec.size()) +
                            " fields where its header has " + std::to_string(header.size()) +
                            " (truncated or edited file?)",
                        kNcuExportHint);
    KernelMetrics probe;
    fill_identity(probe, index, rec);
    auto it = row_of_id.find(probe.id);
    if (it == row_of_id.end()) {
      it = row_of_id.emplace(probe.id, table.kernels.size()).first;
      table.kernels.push_back(probe);
    }
    std::string metric = trim(rec[name_col]);
    if (metric.empty()) continue;
    table.kernels[it->second].metrics[metric] = make_metric_value(rec[value_col], rec[unit_col]);
    if (seen.insert(metric).second) table.columns.push_back(metric);
  }
  return table;
}

}  // namespace

MetricTable parse_ncu_raw_csv(const std::string& csv_text) {
  std::istringstream in(csv_text);
  NcuRawReader reader(in);
  if (reader.long_layout()) return pivot_long_layout(reader);
  MetricTable table;
  table.columns = reader.columns();
  KernelMetrics k;
  while (reader.next(k)) table.kernels.push_back(std::move(k));
  return table;
}

}  // namespace kprof
