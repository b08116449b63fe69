// Reading Nsight Compute reports (.ncu-rep) without the ncu executable, through Nsight Compute's own
// Python report interface `ncu_report` in kprof's embedded Python (PyTorch is not imported).
// `ncu_report` is taken from, in order: $KPROF_NCU_REPORT (a folder holding ncu_report; "off"
// turns this reader off), the extras/python folder of the installed ncu (the module that matches
// the ncu that wrote the report), then `import ncu_report` from the embedded Python's sys.path
// (PyPI's `ncu-report`, tested with kNcuReportTestedVersion). The result says which was used.
//
// One reader for every consumer: the metrics of each launch (`kprof analyze` without ncu), the
// per-instruction source counters (hot lines, stages/analysis/hot_lines.hpp) and ncu's rule results.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stages/ncu/metric_table.hpp"

namespace kprof {

/// The PyPI `ncu-report` version kprof's tests read the H200 reports with (ncu 2025.3.1 wrote them).
inline constexpr const char* kNcuReportTestedVersion = "2026.3.1";

/// One SASS instruction with the source-level counters ncu attributed to it (SourceCounters
/// section). Counter names are ncu's: smsp__pcsamp_sample_count (warp samples at this PC),
/// smsp__pcsamp_warps_issue_stalled_<reason> (samples per stall reason), inst_executed (warp-level
/// instructions), thread_inst_executed, memory_l2_theoretical_sectors_global(_ideal),
/// derived__memory_l2_theoretical_sectors_global_excessive, memory_l1_wavefronts_shared(_ideal),
/// derived__memory_l1_wavefronts_shared_excessive, memory_l2_theoretical_sectors_local,
/// smsp__branch_targets_threads_divergent. Counters that are zero are absent.
struct NcuRepInstruction {
  uint64_t pc = 0;   ///< address of the instruction
  std::string file;  ///< source file from the line info ("" when the kernel has none)
  int line = 0;      ///< 1-based source line (0 when none)
  std::string sass;  ///< disassembly, e.g. "@!P0  LDG.E.CONSTANT R2, desc[UR6][R4.64]"
  std::map<std::string, double> counters;
  /// The counter `name`, 0 when absent.
  double counter(const std::string& name) const;
};

/// One of ncu's rule results (the guidance shown under each section in the GUI).
struct NcuRepRule {
  std::string id;                 ///< rule identifier, e.g. "UncoalescedGlobalAccess"
  std::string name;               ///< rule name
  std::string section;            ///< section identifier, e.g. "SourceCounters"
  std::string title;              ///< message title
  std::string message;            ///< message text (ncu's own markup kept)
  int type = 0;                   ///< ncu_report MsgType (0 none, 1 ok, 2 optimization, 3 warning, 4 error)
  int speedup_type = 0;           ///< ncu_report SpeedupType (0 unknown, 1 local, 2 global)
  std::optional<double> speedup;  ///< estimated speedup, % of the kernel's time
  std::vector<std::pair<std::string, std::optional<double>>> focus_metrics;  ///< metric name, value
};

/// One profiled launch (an ncu "action").
struct NcuRepKernel {
  int id = 0;            ///< index in the report, as ncu's "ID" column
  std::string function;  ///< function name ("uncoalesced_gather")
  std::string name;      ///< demangled name with parameters, as the CSV's "Kernel Name"
  std::string mangled;   ///< mangled name
  /// Every metric without per-instance values: ncu name -> (number or nullopt, text, unit).
  struct Metric {
    std::optional<double> number;
    std::string text;  ///< the value as text (strings, or the number printed)
    std::string unit;  ///< ncu's unit ("ns", "byte", "hz", "%", "")
  };
  std::map<std::string, Metric> metrics;            ///< filled when read with `metrics`
  std::vector<NcuRepInstruction> instructions;      ///< by PC; filled when read with `source`
  std::map<std::string, std::string> source_files;  ///< file -> text ("" when not imported)
  std::vector<NcuRepRule> rules;                    ///< filled when read with `rules`
  /// The NVTX push/pop ranges open at the launch, every domain (ncu_report's
  /// IAction.nvtx_state(): INvtxDomainInfo.push_pop_ranges()); filled when read with `nvtx` from a
  /// report collected with `ncu --nvtx`, else empty.
  std::vector<std::string> nvtx_ranges;
};

/// A report read through ncu_report.
struct NcuRep {
  std::string path;
  std::string
      module_origin;  ///< which ncu_report was used: "ncu's extras/python (...)" or "PyPI package ncu-report X (...)"
  std::vector<NcuRepKernel> kernels;
  bool sass_deferred = false;  ///< read with source but not sass: read_ncu_rep_sass gives it
};

/// What to read (each costs time: metrics ~0.5 s per launch, source ~0.1-1 s).
struct NcuRepReadOptions {
  bool metrics = true;
  bool source = true;
  /// With `source`: the disassembly of every instruction with data (ncu_report's sass_by_pc, 40-60 us
  /// each on the H200, 0.86 s for a 6-version session's kernels). false leaves NcuRepInstruction::sass
  /// empty (NcuRep::sass_deferred) for read_ncu_rep_sass to fill for the few PCs a report shows; the
  /// disassembler's one-time set-up (about 0.45 s per process) then starts on a thread of its own
  /// after the read.
  bool sass = true;
  bool rules = true;
  bool nvtx = false;  ///< the NVTX ranges of each launch (`kprof run`'s one session)
};

/// The folders searched for ncu_report before sys.path, as (folder, label): $KPROF_NCU_REPORT
/// ("off" passed through), then extras/python of the ncu found by find_ncu() (its real path) and
/// of every /usr/local/cuda*/nsight-compute-*/ and /opt/nvidia/nsight-compute/*/.
std::vector<std::pair<std::string, std::string>> ncu_report_search_dirs();

/// "" when an ncu_report module can be imported (starts Python); else why not, with what to do.
std::string ncu_report_unavailable_reason();

/// What to install when ncu_report is missing (one line).
std::string ncu_report_install_hint();

/// Reads `path` when an ncu_report module imports; nullopt (and `why_not`, where it looked) when
/// none does. Throws usage_error (exit 2) when the file is missing or does not start like a
/// .ncu-rep (another file); damaged_input (exit 2, "damaged or truncated", core/error.hpp) when its
/// chain of blocks is cut (checked before the module reads it), when ncu_report cannot load it,
/// fails part-way or reads no launch from it: never the module's own exception text.
std::optional<NcuRep> try_read_ncu_rep(const std::string& path, const NcuRepReadOptions& opts, std::string* why_not);

/// Reads `path`. Throws usage_error (exit 2) when the file is missing or ncu_report cannot load
/// it (the module's error quoted); check_failed (exit 1) when no ncu_report module can be imported
/// (message: where it looked; hint: ncu_report_install_hint()).
NcuRep read_ncu_rep(const std::string& path, const NcuRepReadOptions& opts = {});

/// The disassembly of the instructions at `pcs` of launch `kernel_id` (NcuRepKernel::id) of the
/// report at `path`, by PC (ncu_report's sass_by_pc, text trimmed). The report read last stays
/// loaded in the embedded Python for these lookups. Throws usage_error (exit 2) when the file is
/// missing or holds no such launch, check_failed (exit 1) when no ncu_report module imports.
std::map<uint64_t, std::string> read_ncu_rep_sass(const std::string& path, int kernel_id,
                                                  const std::vector<uint64_t>& pcs);

/// Sets up ncu_report's disassembler (its first SASS lookup in a process: about 0.45 s on the H200,
/// whatever the report) on kprof's own small embedded report (stages/ncu/warmup_report.hpp,
/// written to a temporary file for the read and removed), so that a SASS lookup after the real
/// report's read does not wait for it: call it while ncu still runs. Once per process (later calls
/// return at once); true when the disassembler is set up. Never throws: no ncu_report module, a
/// report this ncu_report cannot read, or no temporary file just leave the set-up for later.
bool warm_disassembler_early();

/// The launches' metrics as the table a raw-page CSV export gives (identity columns from
/// launch__block_dim_*, launch__grid_dim_*, launch__device_id and
/// device__attribute_compute_capability_*; values normalised with normalize_unit).
MetricTable metric_table_from_rep(const NcuRep& rep);

}  // namespace kprof
