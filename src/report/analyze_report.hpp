// The Markdown `kprof analyze` adds for a large export: the launches it did not keep in full.
#pragma once

#include <cstddef>
#include <string>

#include "stages/analysis/analyze_stream.hpp"

namespace kprof {

/// Markdown for the launches not kept in full: one summary line (how many, share of GPU time,
/// classes) and a table of the kernel names with the most GPU time over all launches (at most
/// `max_names` rows). "" when every launch was kept.
std::string other_launches_markdown(const StreamedAnalysis& a, size_t max_names = 20);

}  // namespace kprof
