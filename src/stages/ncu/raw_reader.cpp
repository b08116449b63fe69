#include "stages/ncu/raw_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/error.hpp"
#include "core/text.hpp"
#include "stages/ncu/metrics.hpp"

namespace kprof {

const char* const kNcuExportHint =
    "export the report with: ncu --import REPORT.ncu-rep --csv --page raw --print-units base > "
    "REPORT.csv (or pass the .ncu-rep itself to kprof analyze)";

const std::set<std::string>& ncu_identity_columns() {
  static const std::set<std::string> cols = {"ID",
                                             "Process ID",
                                             "Process Name",
                                             "Host Name",
                                             "Kernel Name",
                                             "Demangled Name",
                                             "Mangled Name",
                                             "Function Name",
                                             "Context",
                                             "Stream",
                                             "Block Size",
                                             "Grid Size",
                                             "Device",
                                             "CC",
                                             "Section Name",
                                             "Metric Name",
                                             "Metric Unit",
                                             "Metric Value",
                                             "Rule Name",
                                             "Rule Type",
                                             "Rule Description",
                                             "Estimated Speedup Type",
                                             "Estimated Speedup"};
  return cols;
}

std::map<std::string, size_t> ncu_column_index(const CsvRecord& header) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < header.size(); ++i) index.emplace(trim(header[i]), i);
  return index;
}

void fill_identity(KernelMetrics& k, const std::map<std::string, size_t>& index, const CsvRecord& rec) {
  auto cell = [&](const char* col) -> std::string {
    auto it = index.find(col);
    return it != index.end() && it->second < rec.size() ? trim(rec[it->second]) : std::string();
  };
  auto id = parse_number(cell("ID"));
  k.id = id && std::isfinite(*id) && std::fabs(*id) < 2e9 ? static_cast<int>(*id) : -1;
  k.name = cell("Kernel Name");
  if (k.name.empty()) k.name = cell("Function Name");
  k.demangled_name = cell("Demangled Name");
  k.block = cell("Block Size");
  k.grid = cell("Grid Size");
  k.device = cell("Device");
  k.cc = cell("CC");
}

MetricValue make_metric_value(const std::string& raw, const std::string& raw_unit) {
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

namespace {

/// True when `cell` can be a unit of ncu's units row: empty, or text that is not a number and
/// holds a letter or '%' ("nsecond", "Kbyte/block", "%", "register/thread").
bool unit_like(const std::string& cell) {
  std::string c = trim(cell);
  if (c.empty()) return true;
  if (parse_number(c)) return false;
  for (char ch : c)
    if (std::isalpha(static_cast<unsigned char>(ch)) || ch == '%') return true;
  return false;
}

}  // namespace

NcuRawReader::NcuRawReader(std::istream& in) : csv_(in, /*skip_messages=*/true) {
  bool found = false;
  while (csv_.next(header_))
    if (!header_.empty() && trim(header_[0]) == "ID") {
      found = true;
      break;
    }
  if (!found)
    throw usage_error(
        "not an Nsight Compute CSV export: no header row starting with \"ID\" "
        "(ncu's raw page starts with \"ID\",\"Process ID\",...,\"Kernel Name\",...)",
        kNcuExportHint);
  index_ = ncu_column_index(header_);
  if (!index_.count("Kernel Name") && !index_.count("Function Name"))
    throw usage_error("not an Nsight Compute CSV export: the header has no \"Kernel Name\" column", kNcuExportHint);
  long_ = index_.count("Metric Name") && index_.count("Metric Value") && index_.count("Metric Unit");
  if (long_) return;
  bool any_metric_name = false;
  for (size_t i = 0; i < header_.size(); ++i) {
    std::string name = trim(header_[i]);
    if (name.empty() || ncu_identity_columns().count(name)) continue;
    metric_cols_.push_back(i);
    columns_.push_back(name);
    any_metric_name |= name.find("__") != std::string::npos;
  }
  if (!any_metric_name)
    throw usage_error(std::string("not an Nsight Compute raw export: no column holds an ncu metric name (such as ") +
                          metric::kSmSol + ")",
                      kNcuExportHint);
  // ncu's units row follows the header: its "ID" cell is empty (a kernel row has its launch ID
  // there), identity columns are empty, metric columns hold units. Without it every value would
  // be read in the wrong unit (132 us as 132 ns), so it is required.
  const std::string no_units =
      "the ncu CSV has no units row after its header (ncu writes one: \"\",\"\",...,\"nsecond\",\"byte\",\"%\"); "
      "without it kprof would read every value in the wrong unit";
  if (!csv_.next(units_) || units_.empty() || !trim(units_[0]).empty()) throw usage_error(no_units, kNcuExportHint);
  units_.resize(header_.size());
  for (size_t i = 0; i < header_.size(); ++i) {
    bool identity = ncu_identity_columns().count(trim(header_[i])) > 0;
    if ((identity && !trim(units_[i]).empty()) || (!identity && !unit_like(units_[i])))
      throw usage_error("the row after the header of the ncu CSV is not ncu's units row (line " +
                            std::to_string(csv_.line()) + ", column \"" + trim(header_[i]) + "\" holds \"" +
                            trim(units_[i]) + "\"); " + no_units,
                        kNcuExportHint);
  }
  for (size_t c : metric_cols_) {
    raw_units_.push_back(trim(units_[c]));
    col_units_.push_back(normalize_unit(raw_units_.back()));
  }
  // Inserting in key order with an end() hint costs no comparisons: a row of 2,238 metrics is
  // built several times faster than with plain inserts (bench/RESULTS.md).
  by_name_.resize(columns_.size());
  for (size_t i = 0; i < by_name_.size(); ++i) by_name_[i] = i;
  std::stable_sort(by_name_.begin(), by_name_.end(), [&](size_t a, size_t b) { return columns_[a] < columns_[b]; });
}

namespace {

/// parse_number with a fast path for plain numbers ("132.416", "-3e5"): no copies.
std::optional<double> cell_number(const std::string& raw) {
  bool plain = !raw.empty();
  for (char c : raw)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) {
      plain = false;
      break;
    }
  if (!plain) return parse_number(raw);
  char* end = nullptr;
  double v = std::strtod(raw.c_str(), &end);
  if (end == raw.c_str() || *end != '\0' || std::isnan(v)) return parse_number(raw);
  return v;
}

}  // namespace

void NcuRawReader::fill(KernelMetrics& k, const std::vector<bool>* wanted) {
  k = KernelMetrics();
  fill_identity(k, index_, rec_);
  moved_ = wanted == nullptr;
  for (size_t i : by_name_) {
    if (wanted && !(*wanted)[i]) continue;
    const size_t c = metric_cols_[i];
    MetricValue v;
    v.raw = wanted ? rec_[c] : std::move(rec_[c]);  // full() may still need the cells
    v.raw_unit = raw_units_[i];
    v.unit = col_units_[i].unit;
    if (auto x = cell_number(v.raw); x && std::isfinite(*x)) v.value = *x * col_units_[i].factor;
    k.metrics.emplace_hint(k.metrics.end(), columns_[i], std::move(v));
  }
}

bool NcuRawReader::next(KernelMetrics& k, const std::vector<bool>* wanted) {
  if (!csv_.next(rec_)) return false;
  if (rec_.size() != header_.size())
    throw usage_error(
        fmt::format("the ncu CSV is damaged or truncated: line {} has {} fields where its header has {} ({} "
                    "launch row(s) read whole before it)",
                    csv_.line(), rec_.size(), header_.size(), rows_read_),
        kNcuExportHint);
  fill(k, wanted);
  ++rows_read_;
  return true;
}

void NcuRawReader::full(KernelMetrics& k) {
  if (moved_) throw std::logic_error("NcuRawReader::full: the row was already read in full");
  fill(k, nullptr);
}

// parse_ncu_raw_csv (declared in metric_table.hpp): the whole text through the reader.
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
      throw usage_error(
          fmt::format("the ncu CSV is damaged or truncated: line {} has {} fields where its header has {} ({} "
                      "metric row(s) read whole before it)",
                      reader.line(), rec.size(), header.size(), table.columns.size()),
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
