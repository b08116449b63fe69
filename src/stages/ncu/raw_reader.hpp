// Reading an ncu raw-page export (`ncu --csv --page raw`) one kernel launch at a time, so a report
// of any size is read in the memory of one row (used by parse_ncu_raw_csv and by `kprof analyze`'s
// streaming path, stages/analysis/analyze_stream.hpp). Layout: see metric_table.hpp.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "stages/ncu/csv.hpp"
#include "stages/ncu/metric_table.hpp"

namespace kprof {

/// The hint of every "not an ncu export" error: how to export a report as kprof reads it.
extern const char* const kNcuExportHint;

/// Columns of the raw page that describe the launch rather than hold a metric ("ID", "Kernel
/// Name", "Block Size", ...; also the long layout's "Metric Name" / "Metric Unit" / "Metric Value").
const std::set<std::string>& ncu_identity_columns();

/// Column name -> index, names trimmed (the first of duplicates wins).
std::map<std::string, size_t> ncu_column_index(const CsvRecord& header);

/// Fills the identity fields of `k` (id, name, demangled name, block, grid, device, cc) from a record.
void fill_identity(KernelMetrics& k, const std::map<std::string, size_t>& index, const CsvRecord& rec);

/// One cell: `raw` as written, `raw_unit` trimmed, the number in its base unit (normalize_unit)
/// when `raw` is a finite number.
MetricValue make_metric_value(const std::string& raw, const std::string& raw_unit);

/// A raw-page export read record by record.
class NcuRawReader {
 public:
  /// Reads up to the first kernel row: skips ncu's "==PROF==" lines, finds the header (the first
  /// record whose first field is "ID") and, for the wide layout, ncu's units row after it.
  /// Throws usage_error (exit 2) naming what is wrong: no header; no "Kernel Name" column; no
  /// column holding an ncu metric name; no units row (kprof would read "132 us" as 132 ns), or a
  /// row in its place that is not ncu's (a number, or a value under an identity column).
  explicit NcuRawReader(std::istream& in);

  /// True for the long layout (`--csv --metrics ...` on the details page: one record per metric,
  /// columns "Metric Name", "Metric Unit", "Metric Value"); read it with next_record().
  bool long_layout() const { return long_; }
  const CsvRecord& header() const { return header_; }
  const std::map<std::string, size_t>& index() const { return index_; }
  /// Metric column names (identity columns excluded), file order (wide layout).
  const std::vector<std::string>& columns() const { return columns_; }

  /// The next kernel launch (wide layout), values in base units; false at the end. With `wanted`
  /// (one flag per columns() entry), only those metrics are filled: a light row to classify,
  /// completed with full() when it is kept. Throws usage_error (exit 2) for a row whose field
  /// count differs from the header's.
  bool next(KernelMetrics& k, const std::vector<bool>* wanted = nullptr);
  /// Every metric of the row last read by next(), into `k` (its identity filled again). Valid
  /// until the next call of next().
  void full(KernelMetrics& k);
  /// The next raw record after the header (long layout); false at the end.
  bool next_record(CsvRecord& rec) { return csv_.next(rec); }

  uint64_t bytes_read() const { return csv_.bytes_read(); }
  /// The 1-based line of the file where the last record read starts.
  uint64_t line() const { return csv_.line(); }

 private:
  CsvReader csv_;
  CsvRecord header_, units_, rec_;
  std::map<std::string, size_t> index_;
  std::vector<std::string> columns_;
  std::vector<size_t> metric_cols_;
  std::vector<NormalizedUnit> col_units_;  ///< per metric column
  std::vector<std::string> raw_units_;     ///< per metric column, as written (trimmed)
  std::vector<size_t> by_name_;            ///< metric column numbers in name order (map insertion)
  bool moved_ = false;                     ///< the cells of rec_ were moved out (a full read)
  size_t rows_read_ = 0;                   ///< launch rows read whole (for the damaged-file message)
  void fill(KernelMetrics& k, const std::vector<bool>* wanted);
  bool long_ = false;
};

}  // namespace kprof
