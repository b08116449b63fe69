// The page's part for one profiled kernel, from one entry of "kernels" in analysis.json /
// profile.json and its "call": the class with its evidence rows (metric, value, threshold), the
// bound and how far from it, the findings with their formulas and gains (each linked to its hot
// line), and the hot lines (source marked, stalls and memory waste per line, SASS on demand).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "report/html.hpp"

namespace kprof {

/// Anchor of kernel `id`'s hot line `rank` (1-based) on the page: "k<id>-line<rank>"; prefix
/// distinguishes versions on one page ("v2-").
std::string hot_line_anchor(const std::string& prefix, const nlohmann::json& kernel_id, size_t rank);

/// The verdict (class, limiter, summary, evidence table), the bound (call "bound" or
/// "implementation_bound", for the leading kernel), the findings and the hot lines of `kernel`.
/// `prefix` makes anchors unique when several versions share a page.
std::string kernel_html(const nlohmann::json& kernel, const nlohmann::json& call, const HtmlOptions& opt,
                        const std::string& prefix = "");

/// The call's bound as HTML: its sentence and its terms (ceiling, amount, rate, time), or the
/// implementation bound; "" when the JSON has neither.
std::string bound_html(const nlohmann::json& call);

}  // namespace kprof
