// Charts drawn in parallel: a few worker processes, each a Python of kprof's own
// interpreter (python_executable()) that imported matplotlib once and then draws one chart per
// request, beside kprof's main thread. `kprof run` starts them when its Nsight Compute step
// begins, so the matplotlib imports (about 1 s each) overlap ncu, and the versions' roofline
// charts (about 0.5 s each) are drawn at the same time instead of one after the other. Without
// workers (none started, or none could start: no matplotlib, no python) a chart is drawn in this
// process as before (python/plot.hpp), with the same messages.
#pragma once

#include <cstddef>
#include <future>
#include <string>

#include "python/plot.hpp"

namespace kprof {

/// A chart being drawn: get() gives "" once it is drawn (both files written), else why not in one
/// line, as render_chart does.
using ChartResult = std::shared_future<std::string>;

/// Starts chart workers until `workers` run (at most 8 in all; more calls only add). Returns at
/// once: each worker starts and imports matplotlib on a thread of its own. Never throws.
void start_chart_workers(size_t workers);

/// Draws `kind` from `spec_json` into `svg_path` and `png_path`: on a worker when any was started
/// (returns at once), else now in this process (returns a ready result). A worker that fails or
/// stops answering hands its chart back to this process. Never throws.
ChartResult draw_chart(ChartKind kind, const std::string& spec_json, const std::string& svg_path,
                       const std::string& png_path);

/// Ends the chart workers now, once each has answered the charts asked of it (as at exit): for a
/// process about to leave through _Exit (cli/main.cpp), which skips the static teardown that
/// would else do it. No chart can be drawn on a worker afterwards. Never throws.
void stop_chart_workers();

/// How many charts the workers drew so far (the rest were drawn in this process); for tests.
size_t charts_drawn_by_workers();

}  // namespace kprof
