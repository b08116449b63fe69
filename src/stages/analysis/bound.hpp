// How far a kernel is from its limit: the time bound of the work the call must do at
// least (the algorithm bound), against two ceilings (ncu's theoretical peaks and kprof's measured
// achievable bandwidth), and the implementation efficiency (how busy the busiest unit is on the
// work the kernel actually executed). docs/CLASSIFICATION.md "Time bound and headroom" defines
// each quantity with a worked example.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "stages/ncu/metric_table.hpp"
#include "stages/timing/launch_floor.hpp"

namespace kprof {

/// The largest bound / measured time kept (2x): above 100% a clock above the one the peak assumes or
/// a ceiling that underestimates the GPU explains a few percent (the H200's 1980 MHz boost over its
/// base clock is 1.25x); beyond 2x only a count that cannot be (issue 50: damaged or edited reports)
/// does, and the bound is dropped ("not concluded"). Source: kprof's rule.
inline constexpr double kImpossibleBoundRatio = 2.0;

/// One buffer of the call as the bound sees it.
struct BufferUse {
  std::string name;
  double bytes = 0;            ///< count x element size
  bool output = false;         ///< written by the kernel (non-const pointer / listed in "outputs")
  bool sized_by_rule = false;  ///< its count comes from the seed's sizing rule, not --size/--ptr-size/setup()
  std::optional<DType> dtype;  ///< its element type, when known (the outputs' sets the compute ceiling)
};

/// Where WorkModel::flops came from, most trusted first.
enum class FlopSource {
  None,      ///< no count: no compute term
  Declared,  ///< ref.py's flops(**dims)
  Counted,   ///< PyTorch's FlopCounterMode around reference() (matmul, conv, attention, ...)
  Executed,  ///< the kernel's executed FLOPs (ncu's instruction counts): not the algorithm's minimum
};

/// The least work the call must do.
struct WorkModel {
  std::optional<double> min_bytes;             ///< bytes it must move at least (inputs read once, outputs written once)
  std::string bytes_how;                       ///< how min_bytes was obtained, with the numbers
  bool bytes_rest_on_seed_rule = false;        ///< a buffer was sized by the seed's rule (may be larger than used)
  std::optional<double> input_bytes;           ///< bytes of the input buffers (the footprint the call reads)
  std::optional<double> flops;                 ///< FLOPs the algorithm needs (ref.py flops(**dims), or counted)
  std::string flops_how;                       ///< how `flops` was obtained, with the numbers
  FlopSource flops_source = FlopSource::None;  ///< None with `flops` set counts as Declared
  /// The element type of the outputs (the largest output buffer's): the precision the compute
  /// term is held to (output_precision_peak). nullopt: the precision the kernel's FLOPs ran in.
  std::optional<DType> output_dtype;
};

/// The work model of buffers: every input read once, every output written once (an output that
/// is also read, in place, is counted once: a lower bound). Sets bytes_rest_on_seed_rule when a
/// buffer's size came from the seed's rule, and output_dtype to the dtype of the largest output
/// (by bytes) when known. Empty `buffers` gives an empty model.
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
  /// The least kernel duration on this GPU (an empty kernel's gpu__time_duration.sum): the time
  /// bound is never below it. Cached per GPU (flows/ceiling_cache.hpp), or committed for a known
  /// GPU (known_gpus.hpp).
  std::optional<LaunchFloor> floor;
};

/// Ceilings from ncu's .peak_sustained metrics of `k`. Per-cycle SM peaks are converted with
/// `sm_hz` when given (kprof's NVML mean during the timed calls, so the bound refers to the
/// timing's conditions), else with ncu's gpc__cycles_elapsed.avg.per_second. The precision is
/// the one that executed the most FLOPs (tensor ops count per their source type).
Ceilings ceilings_from_ncu(const KernelMetrics& k, std::optional<double> sm_hz);

/// What one launch (or several, summed) executed, from ncu's counters: its DRAM traffic and its
/// FLOPs per precision (docs/CLASSIFICATION.md "Roofline point"). The implementation's own work,
/// wasted work included: not the algorithm's minimum.
struct ExecutedWork {
  std::optional<double> dram_read;   ///< dram__bytes_read.sum, bytes
  std::optional<double> dram_write;  ///< dram__bytes_write.sum, bytes
  std::optional<double> gpu_time_s;  ///< gpu__time_duration.sum, seconds (ncu's, under the profiler)
  /// FLOPs per precision label of Ceilings::compute ("FP32", "FP16 tensor", ...), those > 0 only.
  std::vector<std::pair<std::string, double>> flops;
  int launches = 0;  ///< how many launches were summed
  /// dram_read + dram_write when both were collected.
  std::optional<double> dram_bytes() const;
  /// The sum of `flops` (0 when none).
  double total_flops() const;
};

/// The executed work of `k`: FP32 / FP64 / FP16 FLOPs as ncu's roofline counts them (FADD, FMUL
/// = 1, FFMA = 2, the half2 ops x2), tensor-core ops per source type
/// (sm__ops_path_tensor_src_*.sum), DRAM bytes read and written, gpu__time_duration.sum.
ExecutedWork executed_work(const KernelMetrics& k);

/// The executed work of every launch in `kernels`, summed (a quantity any launch lacks stays unset).
ExecutedWork executed_work(const std::vector<KernelMetrics>& kernels);

/// The compute peak a count of FLOPs is held to, and the peak that would change the answer.
struct ComputeCeiling {
  std::string precision;  ///< a label of Ceilings::compute: "FP32", "FP16 tensor", ...
  Rate rate;
  std::string why;  ///< "float32 outputs: FP32 on CUDA cores (FFMA)"
  /// Another peak worth naming in a note (the tensor path for float32 outputs), with the
  /// reason it was not used: "changes the precision".
  std::optional<std::pair<std::string, Rate>> other;
  std::string other_why;
};

/// The precision of the outputs sets the compute ceiling of an algorithm's FLOPs: float32 ->
/// FP32 on CUDA cores (2 x FFMA peak x SM clock), the TF32 tensor peak as a note ("changes the
/// precision"), unless the kernel itself ran its FLOPs on TF32 tensor cores, then that peak (the
/// FP32 one as the note); float16 / bfloat16 -> the dense FP16 / BF16 tensor peak (the CUDA-core
/// FP16 peak as a note when the kernel ran there); float64 -> FP64 (DFMA), the FP64 tensor
/// (DMMA) peak as a note, unless the kernel ran on it. Without a dtype (or an integer one): the
/// precision the kernel's FLOPs ran in (Ceilings::precision). nullopt when the report holds no
/// such peak.
std::optional<ComputeCeiling> output_precision_peak(const Ceilings& c, std::optional<DType> output);

/// One term of the bound: an amount of work at a rate.
struct BoundTerm {
  std::string kind;        ///< "memory" or "compute"
  std::string ceiling;     ///< "theoretical" or "achievable"
  double amount = 0;       ///< bytes or FLOPs
  double rate = 0;         ///< bytes/s or FLOP/s
  double time_s = 0;       ///< amount / rate
  std::string arithmetic;  ///< "805 MB / 4.80 TB/s = 168 us"; compute: "FP32: 137 GFLOP / 66.9 TFLOP/s = 2.05 ms"
  std::string precision;   ///< compute terms: the peak's label ("FP32", "FP16 tensor"); "" for memory
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
  std::optional<double> floor_s;             ///< the launch floor under the bound (Ceilings::floor), s
  std::string floor_how;                     ///< how the floor was obtained
  bool floor_binds = false;                  ///< the floor, not the work, is the bound (the work takes less)
  /// True for implementation_bound: the implementation's own traffic and executed work, not
  /// the least work of the algorithm.
  bool implementation = false;
  /// Fraction of the measured time above the bound, 0..1 (0 without a bound).
  double headroom() const;
};

/// The bound of `work` at `c` against the measured time (seconds): max(launch floor, work), the
/// floor (c.floor) named as the binding term when the work takes less. Terms: memory at the
/// theoretical and, when measured, the achievable DRAM bandwidth; compute: work.flops at
/// output_precision_peak(c, work.output_dtype), or without work.flops the FLOPs `executed`
/// holds, each precision at its own peak (the slowest binds), labelled as executed, not the
/// algorithm's minimum. A measured time below the bound is shown as it is (over 100%) with a
/// note; when `executed` moved DRAM bytes faster than the achievable ceiling (a copy: reads and
/// writes in equal parts) a note names its read share.
TimeBound compute_bound(const WorkModel& work, const Ceilings& c, double measured_s, std::string measured_how,
                        const ExecutedWork* executed = nullptr);

/// The bound of the implementation as executed, from an ncu report alone: max(launch floor, its
/// own DRAM bytes (read + written) at the achievable DRAM bandwidth when `c` holds one (measured
/// or committed for the GPU), else at the theoretical peak, and its executed FLOPs, each precision at its
/// peak, against its gpu__time_duration.sum. It holds at this traffic and work: a fix that
/// removes traffic or work (coalescing, caching, a better algorithm) can beat it. No bound
/// (bound_s unset, a note says why) without the duration or any term.
TimeBound implementation_bound(const ExecutedWork& executed, const Ceilings& c);

/// "implementation bound: at 80.8% of it (104 us memory at the theoretical 4.81 TB/s; 129 us
/// measured by ncu): at most ~1.24x faster at this traffic and work".
std::string implementation_bound_sentence(const TimeBound& b);

/// "; the floor 1.47 us bounds, not the work (how)" when the launch floor binds, "; launch floor
/// 1.47 us" when it is known and the work binds, "" without a floor.
std::string floor_clause(const TimeBound& b);

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
