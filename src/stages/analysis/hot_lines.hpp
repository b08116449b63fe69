// Hot lines: where in the source a kernel spends its time and wastes memory work, from the
// per-instruction counters of ncu's SourceCounters section (stages/ncu/ncu_rep.hpp). Lines are ranked by
// their share of the warp stall samples (ncu's PC sampling: every smsp__pcsamp_interval_cycles a
// warp's PC and state are sampled, so a line's share of samples is its share of warp time). Each
// line carries its leading stall reasons and, where they apply, its executed instructions, excess
// global sectors (uncoalesced access), excess shared wavefronts (bank conflicts), local-memory
// sectors (spills, local arrays) and divergent branch targets. A kernel without line info (cuBLAS,
// a build without -lineinfo) is ranked by SASS instruction instead, and says so.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stages/ncu/metrics.hpp"
#include "stages/ncu/ncu_rep.hpp"

namespace kprof {

/// Fewer warp samples than this and the ranking is flagged unreliable: at n = 500 a line holding
/// 10% of the samples has a binomial standard error of sqrt(0.1 * 0.9 / 500) = 1.3 points, so lines
/// a few points apart cannot be ordered (kprof's choice; ncu gives no threshold).
inline constexpr double kMinReliableSamples = 500;

/// ncu's per-instruction counters the ranking reads (SourceCounters section).
namespace srcmetric {
inline constexpr const char* kSamples = metric::kPcSamples;
inline constexpr const char* kStallPrefix = metric::kPcStallPrefix;
inline constexpr const char* kInst = "inst_executed";
inline constexpr const char* kThreadInst = "thread_inst_executed";
inline constexpr const char* kGlobalSectors = "memory_l2_theoretical_sectors_global";
inline constexpr const char* kGlobalSectorsIdeal = "memory_l2_theoretical_sectors_global_ideal";
inline constexpr const char* kGlobalSectorsExcess = "derived__memory_l2_theoretical_sectors_global_excessive";
inline constexpr const char* kSharedWavefronts = "memory_l1_wavefronts_shared";
inline constexpr const char* kSharedWavefrontsIdeal = "memory_l1_wavefronts_shared_ideal";
inline constexpr const char* kSharedWavefrontsExcess = "derived__memory_l1_wavefronts_shared_excessive";
inline constexpr const char* kLocalSectors = "memory_l2_theoretical_sectors_local";
inline constexpr const char* kDivergentTargets = metric::kPcDivergentTargets;
}  // namespace srcmetric

/// A stall reason's samples on one line (or instruction).
struct LineStall {
  std::string reason;  ///< ncu's name without the prefix: "long_scoreboard", "mio_throttle"
  double samples = 0;
  double share_pct = 0;  ///< % of the line's samples
};

/// One SASS instruction in a ranking.
struct HotInstruction {
  uint64_t pc = 0;
  std::string sass;    ///< "LDG.E.CONSTANT R2, desc[UR6][R4.64]"
  std::string opcode;  ///< "LDG"
  double samples = 0;
  double share_pct = 0;   ///< % of the kernel's samples
  std::string top_stall;  ///< its leading stall reason ("" when unsampled)
};

/// A source position.
struct SourceRef {
  std::string file;
  int line = 0;
  std::string text;  ///< the line's text, trimmed ("" when the source is not in the report nor on disk)
};

/// One ranked source line and what ncu attributed to it (sums over its instructions).
struct HotLine {
  SourceRef where;
  double samples = 0;
  double share_pct = 0;                    ///< % of the kernel's warp samples
  double share_stderr_pct = 0;             ///< binomial standard error of share_pct, points
  std::vector<LineStall> stalls;           ///< leading stall reasons, at most 3 ("selected", i.e. issuing, excluded)
  double inst_executed = 0;                ///< warp-level instructions executed (ncu inst_executed)
  std::optional<double> threads_per_inst;  ///< thread_inst_executed / inst_executed; 32 = no divergence
  double global_sectors = 0, global_sectors_ideal = 0, global_sectors_excess = 0;  ///< L2 sectors of global accesses
  double shared_wavefronts = 0, shared_wavefronts_ideal = 0, shared_wavefronts_excess = 0;  ///< excess = bank conflicts
  double local_sectors = 0;  ///< local-memory sectors (32 bytes each): spills, local arrays
  double divergent_branch_targets = 0;
  bool library = false;                      ///< the file is a library header (CUTLASS/CuTe, CUDA, Triton runtime)
  std::optional<SourceRef> via;              ///< for a library line: the user's line that led there (see hot_lines())
  std::vector<HotInstruction> instructions;  ///< its instructions by samples, at most HotLinesOptions::sass_per_line
};

/// The line (or, without line info, the instruction) where one kind of waste concentrates; the stall
/// reasons with a site are the kernel's three leading ones, each with at least 5% of its samples.
struct WasteSite {
  std::string kind;                ///< "uncoalesced", "bank_conflicts", "local_memory", "divergence", "stall:<reason>"
  std::string what;                ///< "excess global sectors", ... (with the unit)
  std::optional<SourceRef> where;  ///< the source line (none without line info)
  std::optional<HotInstruction> instruction;  ///< without line info: the instruction
  double value = 0;                           ///< the amount at that site
  double kernel_total = 0;                    ///< the kernel's total of it
  double share_pct = 0;                       ///< value / kernel_total, %
  /// Its 1-based place among the hot lines, or among the top instructions without line info (0: not
  /// among them).
  int rank = 0;
};

/// The hot lines of one launch.
struct KernelHotLines {
  int kernel_id = 0;
  std::string kernel;
  bool has_source_counters = false;  ///< the report holds per-instruction data (SourceCounters)
  bool has_line_info = false;        ///< some instruction maps to a source line (-lineinfo)
  double total_samples = 0;          ///< warp samples behind the ranking
  bool too_few_samples = false;      ///< total_samples < kMinReliableSamples
  size_t lines_sampled = 0;          ///< distinct lines with samples
  std::vector<HotLine> lines;        ///< top lines by samples (with line info)
  std::vector<HotInstruction>
      top_instructions;          ///< top instructions by samples (always; the fallback without line info)
  std::vector<WasteSite> waste;  ///< per waste kind present, the site holding most of it
  std::string note;              ///< a plain sentence on what is missing ("" when complete)
};

/// Default of --top: hot lines per kernel.
inline constexpr size_t kDefaultHotLinesTop = 10;

/// How many lines and instructions to keep.
struct HotLinesOptions {
  size_t top = kDefaultHotLinesTop;  ///< lines (or instructions without line info)
  size_t sass_per_line = 5;
};

/// True for a library file: a path holding one of the languages' library markers
/// (LanguageRow::library_markers: /cutlass/ or /cute/, cub, thrust, cccl, Triton's runtime under
/// site-packages) or a CUDA toolkit header (cuda_*.h/hpp, sm_*, /cuda*/include/).
bool is_library_source(const std::string& file);

/// The hot lines of `k`. A library line's `via` is the nearest earlier instruction (in address
/// order) whose line is in a user file: the report's line table has no inlining call sites
/// (ncu_report exposes file and line only), so this is kprof's approximation of the call site,
/// and the reports say so. Line text comes from the report (--import-source yes), else from the
/// file on this machine when it exists.
KernelHotLines hot_lines(const NcuRepKernel& k, const HotLinesOptions& opts = {});

/// The PCs of every instruction `h` shows (its lines' instructions, its top instructions, the waste
/// sites' instructions), ascending, each once.
std::vector<uint64_t> shown_pcs(const KernelHotLines& h);

/// Sets the disassembly and opcode of every instruction `h` shows from `sass` (by PC; a PC that
/// `sass` lacks keeps its text).
void set_sass(KernelHotLines& h, const std::map<uint64_t, std::string>& sass);

/// hot_lines(k, opts) for launch `k` of `rep`. When `rep` was read without the disassembly
/// (NcuRep::sass_deferred, the quick read) that of the instructions shown is read now
/// (read_ncu_rep_sass: a few ms); when that fails the text stays empty and `note` says why.
KernelHotLines hot_lines_of_report(const NcuRep& rep, const NcuRepKernel& k, const HotLinesOptions& opts = {});

/// The SASS opcode of a disassembly line ("@!P0  LDG.E.CONSTANT R2, ..." -> "LDG").
std::string sass_opcode(const std::string& sass);

}  // namespace kprof
