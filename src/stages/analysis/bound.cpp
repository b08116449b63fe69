#include "stages/analysis/bound.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "stages/analysis/derived.hpp"
#include "stages/analysis/format.hpp"
#include "core/text.hpp"
#include "stages/ncu/metrics.hpp"

namespace kprof {

namespace m = metric;

WorkModel work_from_buffers(const std::vector<BufferUse>& buffers) {
  WorkModel w;
  if (buffers.empty()) return w;
  double in = 0, out = 0;
  std::vector<std::string> ins, outs, ruled;
  for (const auto& b : buffers) {
    (b.output ? out : in) += b.bytes;
    (b.output ? outs : ins).push_back(fmt::format("{} {}", b.name, format_si(b.bytes, "B")));
    if (b.sized_by_rule) ruled.push_back(b.name);
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s.empty() ? std::string("none") : s;
  };
  w.min_bytes = in + out;
  w.input_bytes = in;
  w.bytes_how = fmt::format("inputs read once ({}) + outputs written once ({}) = {}", join(ins), join(outs),
                            format_si(in + out, "B"));
  if (!ruled.empty()) {
    w.bytes_rest_on_seed_rule = true;
    w.bytes_how += fmt::format(
        "; {} sized by the seed's rule, which may be larger than the kernel uses "
        "(pass --size NAME=EXPR for exact sizes)",
        join(ruled));
  }
  return w;
}

namespace {

std::optional<Rate> per_cycle_rate(const KernelMetrics& k, const char* peak_name, double factor, double hz,
                                   const std::string& clock_how, const char* what) {
  auto peak = catalog_value(k, peak_name);
  if (!peak || *peak <= 0 || hz <= 0) return std::nullopt;
  return Rate{factor * *peak * hz, fmt::format("{}{} {} {}/cycle x {}", factor != 1 ? fmt_sig(factor, 2) + " x " : "",
                                               peak_name, fmt_sig(*peak, 6), what, clock_how)};
}

/// `peak_name` (per cycle) x `width` bytes x the unit's clock `hz_name`.
std::optional<Rate> clock_rate(const KernelMetrics& k, const char* peak_name, double width, const char* hz_name) {
  auto peak = catalog_value(k, peak_name);
  auto hz = catalog_value(k, hz_name);
  if (!peak || !hz || *peak <= 0 || *hz <= 0) return std::nullopt;
  return Rate{*peak * width * *hz,
              fmt::format("{} {}{} B/cycle x {} {}", peak_name, fmt_sig(*peak, 6),
                          width != 1 ? " x " + fmt_sig(width, 3) : std::string(), hz_name, format_si(*hz, "Hz"))};
}

/// One tensor source type: the op counter and the dense peaks to try (best first).
struct TensorPath {
  const char* label;
  const char* ops;
  std::vector<const char*> dense_peaks;
};

const std::vector<TensorPath>& tensor_paths() {
  static const std::vector<TensorPath> paths = {
      {"FP16 tensor", "sm__ops_path_tensor_src_fp16.sum", {m::kHgmmaFp16Peak, m::kHmmaFp16Peak}},
      {"BF16 tensor", "sm__ops_path_tensor_src_bf16_dst_fp32.sum", {m::kHgmmaBf16Peak, m::kHmmaBf16Peak}},
      {"TF32 tensor", "sm__ops_path_tensor_src_tf32_dst_fp32.sum", {m::kHgmmaTf32Peak, m::kHmmaTf32Peak}},
      {"FP64 tensor", "sm__ops_path_tensor_src_fp64.sum", {m::kTensorFp64Peak}},
      {"FP8 tensor", "sm__ops_path_tensor_src_fp8_sparsity_off.sum", {m::kTensorFp8Peak}},
  };
  return paths;
}

}  // namespace

Ceilings ceilings_from_ncu(const KernelMetrics& k, std::optional<double> sm_hz) {
  Ceilings c;
  double hz = 0;
  if (sm_hz && *sm_hz > 0) {
    hz = *sm_hz;
    c.sm_clock_how = fmt::format("SM clock {} (NVML mean during the timed calls)", format_si(hz, "Hz"));
  } else if (auto f = catalog_value(k, m::kSmFreq)) {
    hz = *f;
    c.sm_clock_how = fmt::format("{} {}", m::kSmFreq, format_si(hz, "Hz"));
  }
  c.dram = clock_rate(k, m::kDramPeakPerCycle, 1, m::kDramFreq);
  c.l2 = clock_rate(k, m::kL2XbarPeak, 32, m::kL2Freq);        // ncu's derived__lts__lts2xbar_bytes
  c.l1 = clock_rate(k, m::kL1WritebackPeak, 128, m::kL1Freq);  // ncu's derived__l1tex__lsu_writeback_bytes_mem_lgds
  auto add = [&](const char* label, std::optional<Rate> r) {
    if (r) c.compute.emplace_back(label, *r);
  };
  add("FP32", per_cycle_rate(k, m::kFfmaPeak, 2, hz, c.sm_clock_how, "FFMA"));
  add("FP64", per_cycle_rate(k, m::kDfmaPeak, 2, hz, c.sm_clock_how, "DFMA"));
  add("FP16", per_cycle_rate(k, m::kHfmaPeak, 4, hz, c.sm_clock_how, "HFMA2"));
  for (const auto& p : tensor_paths())
    for (const char* peak : p.dense_peaks)
      if (auto r = per_cycle_rate(k, peak, 1, hz, c.sm_clock_how, "op")) {
        c.compute.emplace_back(p.label, *r);
        break;
      }

  // The precision used: the class of FLOPs the kernel executed most of.
  Roofline r = roofline_point(k);
  std::vector<std::pair<std::string, double>> used = {
      {"FP32", r.fp32_flop.value_or(0)}, {"FP64", r.fp64_flop.value_or(0)}, {"FP16", r.fp16_flop.value_or(0)}};
  for (const auto& p : tensor_paths()) used.emplace_back(p.label, catalog_value(k, p.ops).value_or(0));
  auto best =
      std::max_element(used.begin(), used.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  c.precision = best->second > 0 ? best->first : "FP32";
  for (const auto& [label, rate] : c.compute)
    if (label == c.precision) c.flop_peak = rate;
  return c;
}

double TimeBound::headroom() const {
  if (!bound_s || measured_s <= 0) return 0;
  return std::clamp(1.0 - *bound_s / measured_s, 0.0, 1.0);
}

TimeBound compute_bound(const WorkModel& work, const Ceilings& c, double measured_s, std::string measured_how) {
  TimeBound b;
  b.measured_s = measured_s;
  b.measured_how = std::move(measured_how);
  auto term = [&](const char* kind, const char* ceiling, double amount, const Rate& rate, const char* unit) {
    BoundTerm t{kind, ceiling, amount, rate.per_s, amount / rate.per_s, ""};
    t.arithmetic = fmt::format("{} / {} = {}", format_si(amount, unit), format_si(rate.per_s, std::string(unit) + "/s"),
                               format_value(t.time_s * 1e9, "ns"));
    b.terms.push_back(t);
    return t.time_s;
  };
  std::optional<double> mem_theo, mem_best, compute;
  if (work.min_bytes && *work.min_bytes > 0) {
    if (c.dram) mem_theo = term("memory", "theoretical", *work.min_bytes, *c.dram, "B");
    if (c.dram_achievable) mem_best = term("memory", "achievable", *work.min_bytes, *c.dram_achievable, "B");
    if (!c.dram)
      b.notes.push_back("no DRAM peak (dram__bytes.sum.peak_sustained, dram__cycles_elapsed.avg.per_second)");
    if (!c.dram_achievable)
      b.notes.push_back("no achievable bandwidth measured: the memory term uses ncu's theoretical peak");
    if (work.bytes_rest_on_seed_rule) b.notes.push_back("the byte count rests on the seed's sizing rule");
  } else {
    b.notes.push_back("the bytes the call must move are not known");
  }
  if (work.flops && *work.flops > 0) {
    if (c.flop_peak)
      compute = term("compute", "theoretical", *work.flops, *c.flop_peak, "FLOP");
    else
      b.notes.push_back("no peak for " + c.precision + " in the report: the compute term is missing");
  } else {
    b.notes.push_back("FLOPs not declared (ref.py flops(**dims)): the bound is the memory term only");
  }
  std::optional<double> mem = mem_best ? mem_best : mem_theo;
  if (mem || compute) {
    bool mem_binds = mem && (!compute || *mem >= *compute);
    b.bound_s = mem_binds ? *mem : *compute;
    b.binding = mem_binds
                    ? fmt::format("memory at the {} {}", mem_best ? "achievable" : "theoretical",
                                  format_si(mem_best ? c.dram_achievable->per_s : c.dram->per_s, "B/s"))
                    : fmt::format("compute at the {} peak {}", c.precision, format_si(c.flop_peak->per_s, "FLOP/s"));
  }
  if (mem_theo || compute) b.theoretical_s = std::max(mem_theo.value_or(0), compute.value_or(0));
  if (b.bound_s && measured_s > 0) {
    b.pct_of_bound = 100.0 * *b.bound_s / measured_s;  // above 100%: faster than the ceiling assumed
    b.max_speedup = std::max(1.0, measured_s / *b.bound_s);
    if (*b.bound_s > measured_s)
      b.notes.push_back(
          fmt::format("measured {} is below the bound {} (over 100% of it): the ceiling underestimates "
                      "this GPU (kprof's own copy did not reach the bandwidth this kernel does), timing "
                      "noise, a clock above the one the peak assumes, or buffers larger than the kernel uses",
                      format_value(measured_s * 1e9, "ns"), format_value(*b.bound_s * 1e9, "ns")));
  }
  if (b.theoretical_s && measured_s > 0) b.pct_of_theoretical = 100.0 * *b.theoretical_s / measured_s;
  return b;
}

std::string bound_sentence(const TimeBound& b) {
  if (!b.bound_s || !b.pct_of_bound)
    return "time bound: not known (" + (b.notes.empty() ? std::string("no work model") : b.notes.front()) + ")";
  std::string s = fmt::format("at {} of the bound ({} {}; {} measured): at most {}x faster",
                              format_value(*b.pct_of_bound, "%"), format_value(*b.bound_s * 1e9, "ns"), b.binding,
                              format_value(b.measured_s * 1e9, "ns"), fmt_sig(*b.max_speedup, 3));
  if (b.pct_of_theoretical && b.theoretical_s && *b.theoretical_s != *b.bound_s)
    s += fmt::format(" ({} of the theoretical bound {})", format_value(*b.pct_of_theoretical, "%"),
                     format_value(*b.theoretical_s * 1e9, "ns"));
  return s;
}

std::optional<Efficiency> implementation_efficiency(const KernelMetrics& k) {
  std::vector<std::tuple<std::string, std::string, double>> c;
  SolReading s = read_sol(k);
  if (s.dram) c.emplace_back("DRAM", m::kDramPct, *s.dram);
  if (s.l1) c.emplace_back("L1", s.l1_metric.empty() ? m::kL1Pct : s.l1_metric, *s.l1);
  if (s.l2) c.emplace_back("L2", m::kL2Pct, *s.l2);
  if (s.sm) c.emplace_back("SM (busiest sub-unit)", m::kSmSol, *s.sm);
  for (const auto& p : pipe_utilizations(k)) c.emplace_back(p.name + " pipe", p.metric, p.pct);
  if (c.empty()) return std::nullopt;
  std::stable_sort(c.begin(), c.end(), [](const auto& a, const auto& b) { return std::get<2>(a) > std::get<2>(b); });
  Efficiency e{std::get<0>(c[0]), std::get<1>(c[0]), std::get<2>(c[0]), ""};
  for (const auto& [unit, metric, pct] : c) e.all += (e.all.empty() ? "" : ", ") + unit + " " + format_value(pct, "%");
  return e;
}

}  // namespace kprof
