// The hot lines (stages/analysis/hot_lines.hpp) as Markdown (ncu_summary.md's "Hot lines" section and the
// "Where in the source" table that links each finding to its line), JSON (profile.json and
// analysis.json: numbers, not strings) and console text.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "stages/analysis/hot_lines.hpp"
#include "stages/analysis/verdict.hpp"

namespace kprof {

/// The Markdown anchor of a kernel's hot-lines section: "hot-lines-<id>".
std::string hot_lines_anchor(int kernel_id);

/// The "Hot lines" section (heading at `level`, an explicit anchor before it): samples behind the
/// ranking and a warning when too few, then one row per line (share ± standard error, leading
/// stalls, executed instructions, threads per instruction, excess global sectors, excess shared
/// wavefronts, local sectors), library lines with the user line that led there; the SASS
/// instructions per line when `with_sass`. Without line info: says so and ranks SASS instructions.
std::string hot_lines_markdown(const KernelHotLines& h, int level, bool with_sass);

/// "Where in the source": for each waste site (uncoalesced, bank conflicts, local memory,
/// divergence, each leading stall reason), the secondary signals of `v` it explains (matched by
/// their ncu metric names) and whether they fire, the line linked to the hot-lines section, the
/// amount and its share of the kernel's total. "" when there is no site.
std::string where_in_source_markdown(const KernelHotLines& h, const Verdict& v, int level);

/// The hot lines as JSON: {kernel_id, kernel, has_source_counters, has_line_info, total_samples,
/// min_reliable_samples, too_few_samples, lines_sampled, note, lines: [{file, line, text,
/// samples, share_pct, share_stderr_pct, stalls: [{reason, samples, share_pct}], inst_executed,
/// threads_per_inst, global_sectors{,_ideal,_excess}, shared_wavefronts{,_ideal,_excess},
/// local_sectors, divergent_branch_targets, library, via, instructions: [...]}],
/// top_instructions: [...], waste: [...]}.
nlohmann::json hot_lines_json(const KernelHotLines& h);

/// The top `n` lines for a terminal, one per line ("  hot: planted.cu:16 76.5% long_scoreboard
/// 97% | out[i] = in[j] * 2.0f;"), or the note.
std::string hot_lines_text(const KernelHotLines& h, size_t n = 3);

}  // namespace kprof
