#include "python/plot.hpp"

#include "core/error.hpp"
#include "python/errors.hpp"
#include "python/interpreter.hpp"
#include "python/py_internal.hpp"

#include <pybind11/eval.h>

namespace kprof {

namespace {

// What every chart ends with: the figure saved as SVG and PNG, each to a temporary file renamed into
// place (a chart is whole or absent). Run in the chart's namespace before its code; a chart worker
// (chart_pool.cpp) replaces _save with one that writes the PNG in a forked process beside the SVG.
const char* kSavePy = R"PY(
import os

def _save_one(fig, path, fmt):
    tmp = path + ".tmp"
    fig.savefig(tmp, format=fmt, dpi=130)
    os.replace(tmp, path)

def _save(fig, svg_path, png_path):
    _save_one(fig, svg_path, "svg")
    _save_one(fig, png_path, "png")
)PY";

// The chart code, run in a fresh namespace of the embedded interpreter. Two panels: the
// hierarchical roofline for kernels with FLOPs (log axes), and achieved bandwidth per memory
// level for kernels without (they have no place on a log intensity axis).
const char* kRooflinePy = R"PY(
import json, math, os

def _eng(unit):
    from matplotlib.ticker import EngFormatter
    return EngFormatter(unit=unit, places=0, sep=" ")

_MARK = {"DRAM": "o", "L2": "s", "L1": "^"}

def _si(v, unit):
    for p, f in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(v) >= f:
            return "{:.3g} {}{}".format(v / f, p, unit)
    return "{:.3g} {}".format(v, unit)

# Kernel colours: tab10 without the blue, green and orange of the memory ceilings.
_KERNEL_COLORS = ["#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#393b79"]

def _short(label, n=34):
    return label if len(label) <= n else label[: n - 3] + "..."

def _roofline(ax, spec, points, colors):
    bws = spec.get("bandwidth_ceilings", [])
    peaks = sorted(spec.get("compute_ceilings", []), key=lambda c: -c["flop_per_s"])
    xs = [l["intensity"] for p in points for l in p["levels"] if l["intensity"] > 0]
    xs += [p["bound"]["intensity"] for p in points if p.get("bound")]
    top = peaks[0]["flop_per_s"] if peaks else max(p["flop_per_s"] for p in points) * 10
    ridges = [top / b["bytes_per_s"] for b in bws if b["bytes_per_s"] > 0]
    lo = 10 ** math.floor(math.log10(min(xs + ridges)) - 1)
    hi = 10 ** math.ceil(math.log10(max(xs + ridges)) + 1)
    grid = [lo * (hi / lo) ** (i / 400) for i in range(401)]
    for b in bws:
        ys = [min(b["bytes_per_s"] * x, top) for x in grid]
        ax.plot(grid, ys, color=b.get("color", "0.3"), ls=b.get("ls", "-"), lw=1.2,
                label="{} {}".format(b["name"], _si(b["bytes_per_s"], "B/s")))
    bmax = max((b["bytes_per_s"] for b in bws), default=0)
    for c in peaks:
        x0 = c["flop_per_s"] / bmax if bmax else lo
        ax.plot([x0, hi], [c["flop_per_s"]] * 2, color="0.25", lw=1.0, ls=":")
        ax.annotate("{} {}".format(c["name"], _si(c["flop_per_s"], "FLOP/s")), (hi, c["flop_per_s"]),
                    ha="right", va="bottom", fontsize=7, color="0.25")
    from matplotlib.lines import Line2D
    from matplotlib.ticker import NullFormatter
    kernel_handles = []
    for i, p in enumerate(points):
        col = colors[i % len(colors)]
        lv = [l for l in p["levels"] if l["intensity"] > 0]
        ax.plot([l["intensity"] for l in lv], [p["flop_per_s"]] * len(lv), color=col, lw=0.8, alpha=0.6)
        for l in lv:
            ax.plot(l["intensity"], p["flop_per_s"], _MARK.get(l["level"], "o"), color=col, ms=7, mec="k", mew=0.5)
        if p.get("bound"):
            ax.plot(p["bound"]["intensity"], p["bound"]["flop_per_s"], "*", color=col, ms=12, mec="k", mew=0.5)
        kernel_handles.append((Line2D([], [], ls="-", marker="o", color=col, mec="k", mew=0.5), _short(p["label"])))
    ys = [p["flop_per_s"] for p in points] + [c["flop_per_s"] for c in peaks]
    ys += [p["bound"]["flop_per_s"] for p in points if p.get("bound")]
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(min(ys) / 4, max(ys) * 2.5)
    ax.set_xlabel("Arithmetic intensity (FLOP/byte)")
    ax.set_ylabel("Performance")
    ax.yaxis.set_major_formatter(_eng("FLOP/s"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.grid(True, which="major", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    for h, l in kernel_handles:
        handles.append(h)
        labels.append(l)
    for lvl, mk in _MARK.items():
        handles.append(Line2D([], [], ls="", marker=mk, color="0.5", mec="k", mew=0.5))
        labels.append("point at " + lvl)
    if any(p.get("bound") for p in points):
        handles.append(Line2D([], [], ls="", marker="*", color="0.5", ms=10, mec="k", mew=0.5))
        labels.append("time bound of the version")
    ax.legend(handles, labels, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    ax.set_title("Hierarchical roofline (kernels with FLOPs)", fontsize=10)

def _bandwidth(ax, spec, kernels, colors):
    levels = ["DRAM", "L2", "L1"]
    present = [lv for lv in levels if any(lv in k["bytes_per_s"] for k in kernels)]
    width = 0.8 / max(1, len(present))
    lvl_color = {"DRAM": "#1f77b4", "L2": "#2ca02c", "L1": "#ff7f0e"}
    for j, lv in enumerate(present):
        xs = [i + (j - (len(present) - 1) / 2) * width for i in range(len(kernels))]
        ys = [k["bytes_per_s"].get(lv, 0) for k in kernels]
        ax.bar(xs, ys, width=width * 0.95, color=lvl_color[lv], label="achieved " + lv)
    for b in spec.get("bandwidth_ceilings", []):
        ax.axhline(b["bytes_per_s"], color=b.get("color", "0.3"), ls=b.get("ls", "-"), lw=1.1,
                   label="{} {}".format(b["name"], _si(b["bytes_per_s"], "B/s")))
    useful = [(i, k["useful_bytes_per_s"]) for i, k in enumerate(kernels) if k.get("useful_bytes_per_s")]
    if useful:
        ax.plot([u[0] for u in useful], [u[1] for u in useful], "D", color="k", mfc="w", ms=7,
                label="least bytes / measured time")
    ax.set_xticks(range(len(kernels)))
    ax.set_xticklabels([_short(k["label"], 24) for k in kernels], rotation=20, ha="right", fontsize=8)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(_eng("B/s"))
    ax.set_ylabel("Bandwidth")
    ax.grid(True, axis="y", which="major", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    ax.set_title("Bandwidth (kernels without FLOPs)", fontsize=10)

def draw(spec_text, svg_path, png_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    spec = json.loads(spec_text)
    points, bw = spec.get("points", []), spec.get("bandwidth_kernels", [])
    panels = [x for x in (points, bw) if x]
    if not panels:
        raise ValueError("nothing to draw: no kernel has FLOPs or memory traffic")
    fig, axes = plt.subplots(1, len(panels), figsize=(9.5 * len(panels), 5.6), squeeze=False)
    axes = list(axes[0])
    colors = _KERNEL_COLORS
    if points:
        _roofline(axes.pop(0), spec, points, colors)
    if bw:
        _bandwidth(axes.pop(0), spec, bw, colors)
    fig.suptitle(spec.get("title", "Roofline"), fontsize=11)
    fig.tight_layout()
    _save(fig, svg_path, png_path)
    plt.close(fig)
)PY";

// The sweep chart: time and % of bound against the swept size, one line per version (log axes
// for size and time).
const char* kSweepPy = R"PY(
import json, os

def draw(spec_text, svg_path, png_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    spec = json.loads(spec_text)
    series = spec.get("series", [])
    if not series:
        raise ValueError("nothing to draw: no unit has a time")
    fig, (ax_t, ax_b) = plt.subplots(1, 2, figsize=(13, 5))
    for s in series:
        xt = [(x, y) for x, y in zip(s["x"], s["time_ms"]) if y is not None]
        if xt:
            ax_t.plot([p[0] for p in xt], [p[1] for p in xt], marker="o", label=s["label"])
        xb = [(x, y) for x, y in zip(s["x"], s["pct_of_bound"]) if y is not None]
        if xb:
            ax_b.plot([p[0] for p in xb], [p[1] for p in xb], marker="o", label=s["label"])
    for ax in (ax_t, ax_b):
        ax.set_xscale("log", base=2)
        ax.set_xlabel(spec.get("x_label", "size"))
        ax.grid(True, which="major", alpha=0.3)
    ax_t.set_yscale("log")
    ax_t.set_ylabel("Median time (ms)")
    ax_t.set_title("Time by size", fontsize=10)
    ax_b.set_ylim(0, 105)
    ax_b.set_ylabel("% of the time bound")
    ax_b.set_title("% of bound by size (100% = at the bound)", fontsize=10)
    ax_t.legend(fontsize=7)
    fig.suptitle(spec.get("title", "Sweep"), fontsize=11)
    fig.tight_layout()
    _save(fig, svg_path, png_path)
    plt.close(fig)
)PY";

/// Runs chart code `code` (defining draw(spec_text, svg_path, png_path)) on `spec_json`; "" when
/// drawn, else why not (`what`: "the roofline chart").
std::string run_chart(const char* code, const char* what, const std::string& spec_json, const std::string& svg_path,
                      const std::string& png_path) {
  try {
    ensure_python();
  } catch (const Error& e) {
    return std::string("Python cannot start: ") + e.what();
  }
  py::gil_scoped_acquire gil;
  try {
    py::module_::import("matplotlib");
  } catch (py::error_already_set&) {
    std::string exe = "kprof's Python";
    try {
      exe = py::module_::import("sys").attr("executable").cast<std::string>();
    } catch (py::error_already_set&) {
    }
    return "matplotlib is not installed in kprof's Python (" + exe + "): pip install matplotlib";
  }
  try {
    py::dict ns;
    ns["__builtins__"] = py::module_::import("builtins");
    py::exec(kSavePy, ns);
    py::exec(code, ns);
    ns["draw"](spec_json, svg_path, png_path);
  } catch (py::error_already_set& e) {
    return std::string(what) + " could not be drawn: " + describe_python_error(e, "");
  }
  return "";
}

}  // namespace

const char* chart_save_code() { return kSavePy; }

const char* chart_code(ChartKind kind) { return kind == ChartKind::Roofline ? kRooflinePy : kSweepPy; }

const char* chart_name(ChartKind kind) {
  return kind == ChartKind::Roofline ? "the roofline chart" : "the sweep chart";
}

std::string render_chart(ChartKind kind, const std::string& spec_json, const std::string& svg_path,
                         const std::string& png_path) {
  return run_chart(chart_code(kind), chart_name(kind), spec_json, svg_path, png_path);
}

std::string render_roofline(const std::string& spec_json, const std::string& svg_path, const std::string& png_path) {
  return render_chart(ChartKind::Roofline, spec_json, svg_path, png_path);
}

std::string render_sweep_chart(const std::string& spec_json, const std::string& svg_path, const std::string& png_path) {
  return render_chart(ChartKind::Sweep, spec_json, svg_path, png_path);
}

}  // namespace kprof
