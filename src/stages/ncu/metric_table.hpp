// The metrics of an ncu raw export (`ncu --csv --page raw`), one row per profiled kernel launch,
// values normalised to base units.
//
// Raw page layout (see tests/data/ncu/*.raw.csv): row 1 holds the column names (identity columns
// "ID", "Kernel Name", "Block Size", "Grid Size", "Device", "CC", ... then one column per metric),
// row 2 the units (empty for unit-less columns), then one row per kernel launch. Values may carry
// thousands separators ("524,288"), and "n/a", "no data" or an empty cell for a metric ncu could
// not collect. Without `--print-units base` ncu scales units per value ("us" for one kernel,
// "ms" for another; "Mbyte", "Gbyte/s", "Ghz"); the parser brings them to one base per kind.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kprof {

/// One cell of the table.
struct MetricValue {
  std::string raw;              ///< the cell as ncu wrote it ("524,288", "n/a", "(256, 1, 1)")
  std::string raw_unit;         ///< the unit ncu wrote for it ("us", "Mbyte", "", "%")
  std::optional<double> value;  ///< the number in `unit`; nullopt when missing, "n/a", NaN or text
  std::string unit;             ///< base unit of `value` (see normalize_unit)
};

/// The metrics of one profiled kernel launch (one row of the raw page).
struct KernelMetrics {
  int id = -1;                                 ///< ncu's "ID" column (launch index in the report)
  std::string name;                            ///< "Kernel Name" (ncu prints the demangled name by default)
  std::string demangled_name;                  ///< "Demangled Name" when the export has that column, else ""
  std::string block;                           ///< "Block Size", e.g. "(256, 1, 1)"
  std::string grid;                            ///< "Grid Size", e.g. "(1056, 1, 1)"
  std::string device;                          ///< "Device" index as text
  std::string cc;                              ///< "CC" compute capability, e.g. "9.0"
  std::map<std::string, MetricValue> metrics;  ///< every non-identity column, by ncu name

  /// The numeric value of `metric` in its base unit; nullopt when the column is absent or the
  /// cell holds no number.
  std::optional<double> number(const std::string& metric) const;
  /// True when the export has a column named `metric` (even if this row's cell is empty).
  bool has_column(const std::string& metric) const { return metrics.count(metric) != 0; }
  /// The cell text of `metric`, or "" when absent.
  std::string text(const std::string& metric) const;
  /// Sets `metric` to `value` already in base unit `unit` (for tests and derived tables).
  void set(const std::string& metric, double value, const std::string& unit = "");
  /// The short kernel name: `name` up to its first '(' ("k_copy(const float4 *, ...)" -> "k_copy").
  std::string short_name() const;
};

/// A parsed raw export: the metric columns in file order and one entry per kernel launch.
struct MetricTable {
  std::vector<std::string> columns;    ///< metric column names (identity columns excluded), file order
  std::vector<KernelMetrics> kernels;  ///< rows, file order
};

/// Parses the text of `ncu --csv --page raw` (with or without `--print-units base`; ncu's units
/// row after the header is required) through NcuRawReader (stages/ncu/raw_reader.hpp). "==PROF==" /
/// "==WARNING==" message lines are skipped. Also accepts the long layout ncu writes for
/// `--csv --metrics ...` on its default details page (columns "ID", "Kernel Name", "Metric Name",
/// "Metric Unit", "Metric Value"), pivoting it into rows.
/// Throws usage_error (exit 2) when the text is not an ncu export or has no units row, naming
/// what was expected.
/// A header without kernel rows yields a table with no kernels (the caller decides).
MetricTable parse_ncu_raw_csv(const std::string& csv_text);  // defined in raw_reader.cpp (the reader parses)

/// A value converted to kprof's base unit for its kind: time -> "ns", data -> "byte",
/// frequency -> "Hz" (also "cycle/<time>"), rates -> "<x>/s"; SI prefixes (K, M, G, T, P: powers of
/// 1000, as ncu uses them) are removed, so "1.5 Kbyte/cycle" -> 1500 "byte/cycle".
/// Units kprof does not know are returned unchanged (factor 1).
struct NormalizedUnit {
  double factor = 1.0;  ///< multiply the raw value by this
  std::string unit;     ///< the base unit
};
NormalizedUnit normalize_unit(const std::string& raw_unit);

}  // namespace kprof
