// How far a kernel is from its limit (issue 16): the time bound of the work the call must do at
// least (the algorithm bound), against two ceilings (ncu's theoretical peaks and kprof's measured
// achievable bandwidth), and the implementation efficiency (how busy the busiest unit is on the
// work the kernel actually executed). docs/CLASSIFICATION.md "Time bound and headroom" defines
// each quantity with a worked example.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "stages/ncu/metric_table.hpp"

namespace kprof {

/// One buffer of the call as the bound sees it.
struct BufferUse {
  std::string name;
  double bytes = 0;            ///< count x element size
  bool output = false;         ///< written by the kernel (non-const pointer / listed in "outputs")
  bool sized_by_rule = false;  ///< its count comes from the seed's sizing rule, not --size/--ptr-size/setup()
};

/// The least work the call must do.
struct WorkModel {
  std::optional<double> min_bytes;       ///< bytes it must move at least (inputs read once, outputs written once)
  std::string bytes_how;                 ///< how min_bytes was obtained, with the numbers
  bool bytes_rest_on_seed_rule = false;  ///< a buffer was sized by the seed's rule (may be larger than used)
  std::optional<double> input_bytes;     ///< bytes of the input buffers (the footprint the call reads)
  std::optional<double> flops;           ///< FLOPs the algorithm needs (ref.py flops(**dims))
  std::string flops_how;
};

/// The work model of buffers: every input read once, every output written once (an output that
/// is also read, in place, is counted once: a lower bound). Sets bytes_rest_on_seed_rule when a
/// buffer's size came from the seed's rule. Empty `buffers` gives an empty model.
WorkModel work_from_buffers(const std::vector<BufferUse>& buffers);

/// A rate with how it was obtained.
struct Rate {
  double per_s = 0;  ///< bytes/s or FLOP/s
  std::string how;   ///< "dram__bytes.sum.peak_sustained 1504 B/cycle x dram__cycles_elapsed.avg.per_second 3.2 GHz"
};

/// The ceilings the bound and the roofline use, for one GPU (from one kernel's ncu metrics).
struct Ceilings {
  std::optional<Rate> dram;             ///< theoretical DRAM bandwidth (ncu's peak x DRAM clock)
  std::optional<Rate> dram_achievable;  ///< kprof's measured device-to-device copy (cached per GPU)
  std::optional<Rate> l2, l1;           ///< theoretical L2 / L1 bandwidth (ncu's hierarchical roofline)
  /// Compute peaks that apply on this GPU, busiest first is not implied: {"FP32", rate}, ...
  std::vector<std::pair<std::string, Rate>> compute;
  std::string precision;          ///< the precision the kernel's FLOPs ran in ("FP32", "FP16 tensor", ...)
  std::optional<Rate> flop_peak;  ///< the peak of `precision`
  std::string sm_clock_how;       ///< which SM clock converts per-cycle peaks to per-second
};

/// Ceilings from ncu's .peak_sustained metrics of `k`. Per-cycle SM peaks are converted with
/// `sm_hz` when given (kprof's NVML mean during the timed calls, so the bound refers to the
/// timing's conditions), else with ncu's gpc__cycles_elapsed.avg.per_second. The precision is
/// the one that executed the most FLOPs (tensor ops count per their source type).
Ceilings ceilings_from_ncu(const KernelMetrics& k, std::optional<double> sm_hz);

/// One term of the bound: an amount of work at a rate.
struct BoundTerm {
  std::string kind;        ///< "memory" or "compute"
  std::string ceiling;     ///< "theoretical" or "achievable"
  double amount = 0;       ///< bytes or FLOPs
  double rate = 0;         ///< bytes/s or FLOP/s
  double time_s = 0;       ///< amount / rate
  std::string arithmetic;  ///< "805 MB / 4.80 TB/s = 168 us"
};

/// The time bound of one call (or one kernel) and where the measurement stands against it.
struct TimeBound {
  double measured_s = 0;
  std::string measured_how;  ///< "kernel time per call (CUPTI, median of 100)"
  std::vector<BoundTerm> terms;
  std::optional<double>
      bound_s;  ///< the binding term: the larger of memory and compute, memory at the achievable ceiling when measured
  std::optional<double> theoretical_s;       ///< the same with theoretical ceilings only
  std::string binding;                       ///< "memory at the achievable 4.30 TB/s"
  std::optional<double> pct_of_bound;        ///< 100 x bound_s / measured_s
  std::optional<double> pct_of_theoretical;  ///< 100 x theoretical_s / measured_s
  std::optional<double> max_speedup;         ///< measured_s / bound_s: "at most Y x faster"
  std::vector<std::string> notes;            ///< what the bound rests on, what is missing
  /// Fraction of the measured time above the bound, 0..1 (0 without a bound).
  double headroom() const;
};

/// The bound of `work` at `c` against the measured time. Terms: memory at the theoretical and,
/// when measured, the achievable DRAM bandwidth; compute at the peak of the precision used.
/// A measured time at or below the bound is reported as 100% with a note (noise or a bound
/// resting on the seed's sizing rule).
TimeBound compute_bound(const WorkModel& work, const Ceilings& c, double measured_s, std::string measured_how);

/// One line: "at 80% of the bound (168 us memory at 4.3 TB/s achievable; 235 us measured): at most 1.25x faster".
std::string bound_sentence(const TimeBound& b);

/// Implementation efficiency: how busy the busiest unit is on the work the kernel executed
/// (wasted work included), from ncu's SOL breakdown: DRAM, L1, L2 throughput (% of peak,
/// elapsed), SM SOL, and each pipe (% of peak, active cycles).
struct Efficiency {
  std::string unit;    ///< "DRAM", "L1", "L2", "SM", "Tensor pipe", ...
  std::string metric;  ///< its ncu metric
  double pct = 0;
  std::string all;  ///< every candidate with its value, busiest first
};
std::optional<Efficiency> implementation_efficiency(const KernelMetrics& k);

}  // namespace kprof
