#include "ncu/metric_table.hpp"

#include <cmath>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "ncu/csv.hpp"

namespace kprof {

namespace {

const char* const kExportHint =
    "export the report with: ncu --import REPORT.ncu-rep --csv --page raw --print-units base > "
    "REPORT.csv (or pass the .ncu-rep itself to kprof analyze)";

/// Columns of the raw page that describe the launch rather than hold a metric.
const std::set<std::string>& identity_columns() {
  static const std::set<std::string> cols = {
      "ID",     "Process ID", "Process Name", "Host Name", "Kernel Name", "Demangled Name",
      "Mangled Name", "Function Name", "Context", "Stream", "Block Size", "Grid Size", "Device",
      "CC", "Section Name", "Metric Name", "Metric Unit", "Metric Value", "Rule Name", "Rule Type",
      "Rule Description", "Estimated Speedup Type", "Estimated Speedup"};
  return cols;
}

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

MetricValue make_value(const std::string& raw, const std::string& raw_unit) {
  MetricValue v;
  v.raw = raw;
  v.raw_unit = trim(raw_unit);
  NormalizedUnit n = normalize_unit(v.raw_unit);
  v.unit = n.unit;
  if (auto x = parse_number(raw)) {
    if (std::isfinite(*x)) v.value = *x * n.factor;
  }
  return v;
}

/// Fills the identity fields of `k` from a record, given the header's column index.
void fill_identity(KernelMetrics& k, const std::map<std::string, size_t>& index,
                   const CsvRecord& rec) {
  auto cell = [&](const char* col) -> std::string {
    auto it = index.find(col);
    return it != index.end() && it->second < rec.size() ? trim(rec[it->second]) : std::string();
  };
  auto id = parse_number(cell("ID"));
  k.id = id ? static_cast<int>(*id) : -1;
  k.name = cell("Kernel Name");
  if (k.name.empty()) k.name = cell("Function Name");
  k.demangled_name = cell("Demangled Name");
  k.block = cell("Block Size");
  k.grid = cell("Grid Size");
  k.device = cell("Device");
  k.cc = cell("CC");
}

std::map<std::string, size_t> index_of(const CsvRecord& header) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < header.size(); ++i) index.emplace(trim(header[i]), i);
  return index;
}

/// The long layout (`--csv --metrics ...` on the details page): one record per metric.
MetricTable pivot_long_layout(const std::vector<CsvRecord>& recs, size_t header_row) {
  const CsvRecord& header = recs[header_row];
  auto index = index_of(header);
  size_t name_col = index.at("Metric Name"), unit_col = index.at("Metric Unit"),
         value_col = index.at("Metric Value");
  MetricTable table;
  std::map<int, size_t> row_of_id;
  std::set<std::string> seen;
  for (size_t r = header_row + 1; r < recs.size(); ++r) {
    const CsvRecord& rec = recs[r];
    if (rec.size() != header.size())
      throw usage_error("record " + std::to_string(r + 1) + " of the ncu CSV has " +
                            std::to_string(rec.size()) + " fields where its header has " +
                            std::to_string(header.size()) + " (truncated or edited file?)",
                        kExportHint);
    KernelMetrics probe;
    fill_identity(probe, index, rec);
    auto it = row_of_id.find(probe.id);
    if (it == row_of_id.end()) {
      it = row_of_id.emplace(probe.id, table.kernels.size()).first;
      table.kernels.push_back(probe);
    }
    std::string metric = trim(rec[name_col]);
    if (metric.empty()) continue;
    table.kernels[it->second].metrics[metric] = make_value(rec[value_col], rec[unit_col]);
    if (seen.insert(metric).second) table.columns.push_back(metric);
  }
  return table;
}

}  // namespace

MetricTable parse_ncu_raw_csv(const std::string& csv_text) {
  // Drop ncu's own message lines ("==PROF== ...", "==WARNING== ...") before CSV parsing: they
  // may hold unbalanced quotes.
  std::string body;
  for (const std::string& line : split(csv_text, '\n')) {
    if (starts_with(trim(line), "==")) continue;
    body += line;
    body += '\n';
  }
  std::vector<CsvRecord> recs = parse_csv(body);

  size_t header_row = recs.size();
  for (size_t r = 0; r < recs.size(); ++r) {
    if (!recs[r].empty() && trim(recs[r][0]) == "ID") {
      header_row = r;
      break;
    }
  }
  if (header_row == recs.size())
    throw usage_error("not an Nsight Compute CSV export: no header row starting with \"ID\" "
                      "(ncu's raw page starts with \"ID\",\"Process ID\",...,\"Kernel Name\",...)",
                      kExportHint);
  const CsvRecord& header = recs[header_row];
  auto index = index_of(header);
  if (!index.count("Kernel Name") && !index.count("Function Name"))
    throw usage_error("not an Nsight Compute CSV export: the header has no \"Kernel Name\" column",
                      kExportHint);
  if (index.count("Metric Name") && index.count("Metric Value") && index.count("Metric Unit"))
    return pivot_long_layout(recs, header_row);

  MetricTable table;
  std::vector<size_t> metric_cols;
  for (size_t i = 0; i < header.size(); ++i) {
    std::string name = trim(header[i]);
    if (name.empty() || identity_columns().count(name)) continue;
    metric_cols.push_back(i);
    table.columns.push_back(name);
  }
  bool any_metric_name = false;
  for (const auto& c : table.columns) any_metric_name |= c.find("__") != std::string::npos;
  if (!any_metric_name)
    throw usage_error("not an Nsight Compute raw export: no column holds an ncu metric name "
                      "(such as sm__throughput.avg.pct_of_peak_sustained_elapsed)",
                      kExportHint);

  size_t first = header_row + 1;
  CsvRecord units(header.size());
  // The units row: its "ID" cell is empty (a kernel row always has a launch ID there).
  if (first < recs.size() && !recs[first].empty() && trim(recs[first][0]).empty()) {
    units = recs[first];
    units.resize(header.size());
    ++first;
  }
  for (size_t r = first; r < recs.size(); ++r) {
    const CsvRecord& rec = recs[r];
    if (rec.size() != header.size())
      throw usage_error("row " + std::to_string(r + 1) + " of the ncu CSV has " +
                            std::to_string(rec.size()) + " fields where its header has " +
                            std::to_string(header.size()) + " (truncated or edited file?)",
                        kExportHint);
    KernelMetrics k;
    fill_identity(k, index, rec);
    for (size_t i = 0; i < metric_cols.size(); ++i) {
      size_t c = metric_cols[i];
      k.metrics.emplace(table.columns[i], make_value(rec[c], units[c]));
    }
    table.kernels.push_back(std::move(k));
  }
  return table;
}

}  // namespace kprof
