// kprof's own source-counter section for ncu: the per-instruction metrics of ncu's
// SourceCounters section that the hot lines read (stages/ncu/ncu_rep_py.cpp's _PC_METRICS and
// the sampled stall reasons), and nothing else. The stock section also collects seven
// memory-descriptor eviction counters, the not-issued stall samples and the memory access types,
// which kprof does not read; measured on the H200 (ncu 2025.3.1, docs/gpu-runs.md) the
// profiled call of an attention kernel took 0.3-0.7 s less with this section (v1: 5.4 -> 4.8 s,
// v4: 3.4 -> 2.8 s for one ncu process each), the same replay passes (25).
//
// ncu reads sections from a folder (--section-folder): the text is written to a folder of its own
// under kprof's cache, named by a hash of the text, so a recorded ncu command line stays valid.
#pragma once

#include <string>

namespace kprof {

/// The section's identifier (`--section KprofSourceCounters`).
inline constexpr const char* kKprofSourceSectionId = "KprofSourceCounters";

/// The section file's text (ncu's protobuf text format: MetricDefinitions for the two
/// "excessive" derived metrics, SourceMetrics in four groups: warp-state samples, instructions
/// executed, L1, L2).
const std::string& kprof_source_section_text();

/// The folder name the section file goes in: "ncu-sections-<16 hex digits of the text's FNV-1a
/// hash>" (a recorded ncu command line stays valid: another text, another folder). The flows
/// write it (flows/ncu_options.hpp: stages write no files).
std::string kprof_source_section_dir_name();

}  // namespace kprof
