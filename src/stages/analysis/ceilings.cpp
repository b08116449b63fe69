// The ceilings of the time bound (bound.hpp): ncu's peaks per precision, the precision an
// algorithm's FLOPs are held to, what a launch executed, and the implementation efficiency.
// docs/CLASSIFICATION.md "Roofline point" and "Time bound and headroom" give the formulas.
#include <fmt/format.h>

#include <algorithm>

#include "core/text.hpp"
#include "stages/analysis/bound.hpp"
#include "stages/analysis/derived.hpp"
#include "stages/analysis/format.hpp"
#include "stages/ncu/metrics.hpp"

namespace kprof {

namespace m = metric;

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
      {"FP16 tensor", m::kTensorOpsFp16, {m::kHgmmaFp16Peak, m::kHmmaFp16Peak}},
      {"BF16 tensor", m::kTensorOpsBf16, {m::kHgmmaBf16Peak, m::kHmmaBf16Peak}},
      {"TF32 tensor", m::kTensorOpsTf32, {m::kHgmmaTf32Peak, m::kHmmaTf32Peak}},
      {"FP64 tensor", m::kTensorOpsFp64, {m::kTensorFp64Peak}},
      {"FP8 tensor", m::kTensorOpsFp8, {m::kTensorFp8Peak}},
  };
  return paths;
}

const Rate* find_peak(const Ceilings& c, const std::string& label) {
  for (const auto& [name, rate] : c.compute)
    if (name == label) return &rate;
  return nullptr;
}

/// `label`'s peak as the ceiling, with `other` (when the report has it) as the note's peak.
std::optional<ComputeCeiling> ceiling_of(const Ceilings& c, const std::string& label, std::string why,
                                         const std::string& other, std::string other_why) {
  const Rate* r = find_peak(c, label);
  if (!r) return std::nullopt;
  ComputeCeiling cc{label, *r, std::move(why), std::nullopt, ""};
  if (const Rate* o = other.empty() ? nullptr : find_peak(c, other)) {
    cc.other = std::make_pair(other, *o);
    cc.other_why = std::move(other_why);
  }
  return cc;
}

/// The ceiling for float outputs of type `t`, or nullopt when the report lacks its peak.
std::optional<ComputeCeiling> float_ceiling(const Ceilings& c, DType t) {
  const std::string& ran = c.precision;
  switch (t) {
    case DType::F32:
      if (ran == "TF32 tensor")
        return ceiling_of(c, "TF32 tensor", "float32 outputs, and the kernel ran its FLOPs on TF32 tensor cores",
                          "FP32", "full FP32 precision on CUDA cores");
      return ceiling_of(c, "FP32", "float32 outputs: FP32 on CUDA cores (2 x FFMA)", "TF32 tensor",
                        "changes the precision");
    case DType::F16:
      if (auto cc = ceiling_of(c, "FP16 tensor", "float16 outputs: the dense FP16 tensor-core peak",
                               ran == "FP16" ? "FP16" : "", "the CUDA cores this kernel ran on"))
        return cc;
      return ceiling_of(c, "FP16", "float16 outputs: FP16 on CUDA cores (4 x HFMA2)", "", "");
    case DType::BF16:
      if (auto cc = ceiling_of(c, "BF16 tensor", "bfloat16 outputs: the dense BF16 tensor-core peak", "", ""))
        return cc;
      return ceiling_of(c, "FP16", "bfloat16 outputs: the CUDA cores' half-precision pipe (4 x HFMA2)", "", "");
    case DType::F64:
      if (ran == "FP64 tensor")
        return ceiling_of(c, "FP64 tensor", "float64 outputs, and the kernel ran its FLOPs on FP64 tensor cores",
                          "FP64", "DFMA on CUDA cores");
      return ceiling_of(c, "FP64", "float64 outputs: FP64 on CUDA cores (2 x DFMA)", "FP64 tensor",
                        "the DMMA tensor path, same precision");
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<double> ExecutedWork::dram_bytes() const {
  if (!dram_read || !dram_write) return std::nullopt;
  return *dram_read + *dram_write;
}

double ExecutedWork::total_flops() const {
  double s = 0;
  for (const auto& [label, n] : flops) s += n;
  return s;
}

ExecutedWork executed_work(const KernelMetrics& k) {
  ExecutedWork e;
  e.launches = 1;
  e.dram_read = catalog_value(k, m::kDramRead);
  e.dram_write = catalog_value(k, m::kDramWrite);
  if (auto ns = catalog_value(k, m::kDuration)) e.gpu_time_s = *ns * 1e-9;
  Roofline r = roofline_point(k);
  std::vector<std::pair<std::string, std::optional<double>>> all = {
      {"FP32", r.fp32_flop}, {"FP64", r.fp64_flop}, {"FP16", r.fp16_flop}};
  for (const auto& p : tensor_paths()) all.emplace_back(p.label, catalog_value(k, p.ops));
  for (const auto& [label, n] : all)
    if (n && *n > 0) e.flops.emplace_back(label, *n);
  return e;
}

ExecutedWork executed_work(const std::vector<KernelMetrics>& kernels) {
  ExecutedWork sum;
  auto add = [](std::optional<double>& to, const std::optional<double>& v, bool first) {
    to = (first || to) && v ? std::optional<double>(to.value_or(0) + *v) : std::nullopt;
  };
  for (const auto& k : kernels) {
    ExecutedWork e = executed_work(k);
    bool first = sum.launches == 0;
    add(sum.dram_read, e.dram_read, first);
    add(sum.dram_write, e.dram_write, first);
    add(sum.gpu_time_s, e.gpu_time_s, first);
    for (const auto& [label, n] : e.flops) {
      auto it = std::find_if(sum.flops.begin(), sum.flops.end(), [&](const auto& f) { return f.first == label; });
      if (it == sum.flops.end())
        sum.flops.emplace_back(label, n);
      else
        it->second += n;
    }
    sum.launches += 1;
  }
  return sum;
}

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
  ExecutedWork e = executed_work(k);
  auto best = std::max_element(e.flops.begin(), e.flops.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  c.precision = best != e.flops.end() ? best->first : "FP32";
  if (const Rate* r = find_peak(c, c.precision)) c.flop_peak = *r;
  return c;
}

std::optional<ComputeCeiling> output_precision_peak(const Ceilings& c, std::optional<DType> output) {
  if (output && dtype_is_float(*output))
    if (auto cc = float_ceiling(c, *output)) return cc;
  if (!c.flop_peak) return std::nullopt;
  std::string why = output && dtype_is_float(*output)
                        ? fmt::format(
                              "{} outputs, but the report holds no peak for their precision: the "
                              "precision the kernel's FLOPs ran in",
                              dtype_name(*output))
                        : std::string("the precision the kernel's FLOPs ran in");
  return ComputeCeiling{c.precision, *c.flop_peak, why, std::nullopt, ""};
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
