#include "stages/analysis/analyze_stream.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "stages/analysis/classify.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/text.hpp"
#include "stages/ncu/metrics.hpp"
#include "stages/ncu/raw_reader.hpp"
#include "stages/ncu/value_range.hpp"

namespace kprof {
namespace {

/// A launch kept in full.
struct Kept {
  size_t row = 0;  ///< 0-based launch index in the file
  KernelMetrics metrics;
  Verdict verdict;
};

/// GPU time for ranking: launches without one rank last.
double rank_time(const Verdict& v) { return std::isnan(v.gpu_time_ns) ? -1.0 : v.gpu_time_ns; }

std::ifstream open_export(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw usage_error("cannot read " + path, "check that the file exists and is readable");
  return in;
}

/// Removes impossible values, classifies, and notes what was removed in the verdict.
Verdict classify_checked(KernelMetrics& k, StreamedAnalysis& a) {
  std::vector<InvalidValue> bad = drop_invalid_values(k);
  Verdict v = classify_kernel(k);
  for (const auto& b : bad) {
    v.not_concluded.push_back(impossible_value_note(b));
    if (a.invalid_examples.size() < 5) a.invalid_examples.push_back(fmt::format("launch {}: {}", k.id, describe(b)));
  }
  a.invalid_values += bad.size();
  return v;
}

void add(LaunchTotals& t, const Verdict& v) {
  ++t.launches;
  if (!std::isnan(v.gpu_time_ns)) t.gpu_time_ns += v.gpu_time_ns;
  ++t.classes[v.cls];
}

/// Reads launch `row` (0-based) of the file again (the leading launch when it was not kept).
Kept reread(const std::string& path, size_t row) {
  std::ifstream in = open_export(path);
  NcuRawReader reader(in);
  Kept k;
  for (size_t i = 0; reader.next(k.metrics); ++i)
    if (i == row) {
      StreamedAnalysis scratch;  // its invalid values were counted in the first pass
      k.row = row;
      k.verdict = classify_checked(k.metrics, scratch);
      return k;
    }
  throw usage_error(path + " changed while kprof read it", "analyze a file nothing else is writing");
}

/// One kernel name's launches while reading, and its longest launch.
struct NameTotals {
  LaunchTotals totals;
  double longest = -1;     ///< rank_time of its longest launch
  size_t longest_row = 0;  ///< that launch's row
};

/// What the reading pass gathered.
struct Scan {
  std::vector<Kept> top;  ///< the launches kept in full
  std::map<std::string, NameTotals> names;
  size_t first_classified = SIZE_MAX;  ///< row of the first classified launch
};

/// The call's verdict over all launches (as classify_call computes it: the leading launch is the
/// longest launch of the kernel name with the most GPU time; without durations the first classified
/// launch), the kept launches in file order (the leading one read again when it was not kept), and
/// the totals per name and of the launches not kept.
void finish(StreamedAnalysis& a, Scan& scan, const std::string& path) {
  CallVerdict& call = a.kept.verdict;
  double best_time = -1;
  std::string best_name;
  for (const auto& [name, acc] : scan.names) {
    call.total_gpu_time_ns += acc.totals.gpu_time_ns;
    if (acc.longest >= 0 && acc.totals.gpu_time_ns > best_time) best_time = acc.totals.gpu_time_ns, best_name = name;
  }
  size_t lead_row = !best_name.empty() ? scan.names[best_name].longest_row
                                       : (scan.first_classified == SIZE_MAX ? 0 : scan.first_classified);
  auto& top = scan.top;
  if (a.launches > 0 && std::none_of(top.begin(), top.end(), [&](const Kept& k) { return k.row == lead_row; }))
    top.push_back(reread(path, lead_row));
  std::sort(top.begin(), top.end(), [](const Kept& x, const Kept& y) { return x.row < y.row; });
  LaunchTotals kept;
  for (auto& k : top) {
    if (k.row == lead_row) call.leading = static_cast<int>(call.kernels.size());
    add(kept, k.verdict);
    call.kernels.push_back(std::move(k.verdict));
    a.kept.table.kernels.push_back(std::move(k.metrics));
  }
  if (call.leading >= 0) {
    call.leading_name = best_name.empty() ? call.kernels[static_cast<size_t>(call.leading)].kernel : best_name;
    if (!best_name.empty() && call.total_gpu_time_ns > 0)
      call.leading_share_pct = 100.0 * best_time / call.total_gpu_time_ns;
  }
  for (const auto& [name, acc] : scan.names) {
    a.by_name.push_back({name, acc.totals});
    a.others.gpu_time_ns += acc.totals.gpu_time_ns;
    for (const auto& [cls, n] : acc.totals.classes) a.others.classes[cls] += n;
  }
  std::sort(a.by_name.begin(), a.by_name.end(), [](const KernelNameTotals& x, const KernelNameTotals& y) {
    return x.totals.gpu_time_ns > y.totals.gpu_time_ns;
  });
  a.others.launches = a.launches - call.kernels.size();
  a.others.gpu_time_ns -= kept.gpu_time_ns;
  for (const auto& [cls, n] : kept.classes)
    if ((a.others.classes[cls] -= n) == 0) a.others.classes.erase(cls);
}

}  // namespace

std::vector<bool> classifier_columns(const std::vector<std::string>& columns) {
  std::set<std::string> names;
  for (const auto& s : metric_catalog()) {
    names.insert(s.name);
    if (s.fallback) names.insert(s.fallback);
  }
  for (const auto* leaves : {&sm_sol_leaves(), &memory_sol_leaves()})  // the units behind each SOL
    for (const auto& leaf : *leaves) names.insert(leaf.name);
  std::vector<bool> wanted(columns.size());
  for (size_t i = 0; i < columns.size(); ++i) wanted[i] = names.count(columns[i]) > 0;
  return wanted;
}

StreamedAnalysis analyze_ncu_file(const std::string& path, size_t keep, const AnalyzeProgress& progress,
                                  const AnalysisContext& ctx) {
  StreamedAnalysis a;
  std::ifstream in = open_export(path);
  NcuRawReader reader(in);
  if (reader.long_layout()) {  // one record per metric: small exports, read whole
    a.kept = analyze_ncu_csv(read_file(path), ctx);
    a.launches = a.kept.verdict.kernels.size();
    a.invalid_values = a.kept.invalid_values.size();
    for (size_t i = 0; i < a.kept.invalid_values.size() && i < 5; ++i)
      a.invalid_examples.push_back(a.kept.invalid_values[i]);
    return a;
  }
  std::error_code ec;
  const uint64_t total = std::filesystem::file_size(path, ec);
  keep = std::max<size_t>(keep, 1);
  Scan scan;
  auto later = [](const Kept& x, const Kept& y) { return rank_time(x.verdict) > rank_time(y.verdict); };
  auto last_report = std::chrono::steady_clock::now();
  bool reported = false;  // small exports finish without progress lines
  const std::vector<bool> wanted = classifier_columns(reader.columns());
  KernelMetrics light;
  for (size_t row = 0; reader.next(light, &wanted); ++row) {
    Verdict v = classify_checked(light, a);
    ++a.launches;
    NameTotals& acc = scan.names[v.kernel];
    add(acc.totals, v);
    if (acc.totals.launches == 1 || rank_time(v) > acc.longest) acc.longest = rank_time(v), acc.longest_row = row;
    if (scan.first_classified == SIZE_MAX && v.cls != Bottleneck::NotClassified) scan.first_classified = row;
    std::vector<Kept>& top = scan.top;  // a min-heap: the `keep` launches with the most GPU time
    if (top.size() < keep || rank_time(v) > rank_time(top.front().verdict)) {
      if (top.size() == keep) {
        std::pop_heap(top.begin(), top.end(), later);
        top.pop_back();
      }
      Kept k;  // read and classified again on every column
      k.row = row;
      reader.full(k.metrics);
      StreamedAnalysis scratch;  // its impossible values were counted on the light row
      k.verdict = classify_checked(k.metrics, scratch);
      top.push_back(std::move(k));
      std::push_heap(top.begin(), top.end(), later);
    }
    if (progress && (row & 63) == 0 && std::chrono::steady_clock::now() - last_report > std::chrono::seconds(2)) {
      last_report = std::chrono::steady_clock::now();
      reported = true;
      progress(a.launches, reader.bytes_read(), total);
    }
  }
  if (reported) progress(a.launches, reader.bytes_read(), total);
  a.kept.table.columns = reader.columns();
  finish(a, scan, path);
  assess_verdict(a.kept.table, a.kept.verdict, ctx);
  return a;
}

}  // namespace kprof
