// The Python side of the .ncu-rep reader (ncu_rep.hpp): imports Nsight Compute's `ncu_report`
// module from the first place that has it and returns a report's data as plain JSON values.
#include "stages/ncu/ncu_rep.hpp"

namespace kprof {

extern const char* const kNcuRepReaderSource;

const char* const kNcuRepReaderSource = R"PY(
import importlib
import math
import os
import sys

_state = {}

# Source-level counters read per instruction (ncu's SourceCounters section). The stall reasons
# (smsp__pcsamp_warps_issue_stalled_<reason>, all samples) are found by prefix.
_PC_METRICS = [
    "smsp__pcsamp_sample_count",
    "inst_executed", "thread_inst_executed", "thread_inst_executed_true",
    "memory_l2_theoretical_sectors_global", "memory_l2_theoretical_sectors_global_ideal",
    "derived__memory_l2_theoretical_sectors_global_excessive", "memory_l1_tag_requests_global",
    "memory_l1_wavefronts_shared", "memory_l1_wavefronts_shared_ideal",
    "derived__memory_l1_wavefronts_shared_excessive",
    "memory_l2_theoretical_sectors_local",
    "smsp__branch_targets_threads_divergent",
]
_STALL_PREFIX = "smsp__pcsamp_warps_issue_stalled_"


def _clear_module():
    for k in list(sys.modules):
        if k == "ncu_report" or k.startswith("ncu_report.") or k == "_ncu_report":
            del sys.modules[k]


def _import(candidates):
    """ncu_report from the first candidate folder [dir, label] that imports, else from sys.path.
    Returns (module, origin) or (None, why). KPROF_NCU_REPORT=off wins over a module already
    imported."""
    if any(folder == "off" for folder, _ in candidates):
        return None, "reading .ncu-rep files through ncu_report is turned off (KPROF_NCU_REPORT=off)"
    if "module" in _state:
        return _state["module"], _state["origin"]
    tried = []
    for folder, label in candidates:
        if not (os.path.isfile(os.path.join(folder, "ncu_report.py")) or
                os.path.isdir(os.path.join(folder, "ncu_report"))):
            tried.append("%s: no ncu_report there" % folder)
            continue
        sys.path.insert(0, folder)
        try:
            _clear_module()
            mod = importlib.import_module("ncu_report")
            _state["module"], _state["origin"] = mod, "%s (%s)" % (label, os.path.dirname(mod.__file__))
            return _state["module"], _state["origin"]
        except Exception as e:  # noqa: BLE001 - any import failure means: try the next one
            tried.append("%s: %s: %s" % (folder, type(e).__name__, e))
            _clear_module()
        finally:
            if folder in sys.path:
                sys.path.remove(folder)
    try:
        mod = importlib.import_module("ncu_report")
    except Exception as e:  # noqa: BLE001
        tried.append("import ncu_report: %s: %s" % (type(e).__name__, e))
        return None, "; ".join(tried)
    version = ""
    try:
        import importlib.metadata as md
        version = " " + md.version("ncu-report")
    except Exception:  # noqa: BLE001 - a copy without package metadata
        pass
    _state["module"] = mod
    _state["origin"] = "PyPI package ncu-report%s (%s)" % (version, os.path.dirname(mod.__file__))
    return _state["module"], _state["origin"]


def _num(v):
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    return v


def _scalars(act):
    out = {}
    for name in act.metric_names():
        m = act.metric_by_name(name)
        if m is None:  # per-instance metrics (launch__block_dim_x, inst_executed) keep their total here
            continue
        try:
            v = m.value()
        except Exception:  # noqa: BLE001 - a value kind the module cannot convert
            continue
        unit = m.unit()
        if isinstance(v, (int, float, str)) and isinstance(name, str):
            out[name] = [_num(v), unit if isinstance(unit, str) else ""]
    return out


def warm_disassembler(arg):
    """ncu_report's first sass_by_pc in a process sets up its disassembler (about 0.45 s on the H200,
    whatever the report). kprof calls this on a thread of its own right after a read without the
    SASS text, so the set-up runs while kprof analyses the report in C++ (it holds the GIL: other
    Python waits), and the lookups of the few PCs the reports show (sass()) are quick."""
    held = _state.pop("warm_pc", None)
    if held is not None and not _state.get("disassembler"):
        held[0].sass_by_pc(held[1])
        _state["disassembler"] = True
    return {"warmed": bool(_state.get("disassembler"))}


def warm_disassembler_with(arg):
    """Sets up the disassembler as warm_disassembler does, on the small report at `path` (kprof's
    own, embedded: stages/ncu/warmup_report.hpp) instead of the real one, while ncu still runs: its
    first instruction with a correlation ID is looked up once. The real report stays the one held."""
    if _state.get("disassembler"):
        return {"warmed": True}
    mod, _ = _import(arg["candidates"])
    if mod is None:
        return {"warmed": False}
    try:
        ctx = mod.load_report(arg["path"])
        for _, _, act in _actions(ctx):
            for name in _PC_METRICS:
                m = act.metric_by_name(name)
                if m is not None and m.has_correlation_ids() and m.num_instances() > 0:
                    act.sass_by_pc(m.correlation_ids().as_uint64(0))
                    _state["disassembler"] = True
                    _state.pop("warm_pc", None)
                    return {"warmed": True}
    except Exception:  # noqa: BLE001 - a report this module cannot read: the set-up waits for the real one
        pass
    return {"warmed": False}


def _instructions(act, with_sass):
    names = list(_PC_METRICS)
    for name in act.metric_names():
        if name.startswith(_STALL_PREFIX) and not name.endswith("_not_issued"):
            names.append(name)
    per_pc = {}
    for name in names:
        m = act.metric_by_name(name)
        if m is None or not m.has_correlation_ids():
            continue
        ids = m.correlation_ids()
        for i in range(m.num_instances()):
            v = m.as_double(i)
            if v:
                per_pc.setdefault(ids.as_uint64(i), {})[name] = v
    rows = []
    for pc in sorted(per_pc):
        info = act.source_info(pc)
        rows.append([pc, info.file_name() if info else "", info.line() if info else 0,
                     act.sass_by_pc(pc).strip() if with_sass else "", per_pc[pc]])
    if not with_sass and per_pc and not _state.get("disassembler"):
        _state.setdefault("warm_pc", (act, min(per_pc)))
    return rows


def _rules(act):
    out = []
    for r in act.rule_results_as_dicts():
        msg = r.get("rule_message") or {}
        sp = r.get("speedup_estimation") or {}
        out.append({"id": r.get("rule_identifier", ""), "name": r.get("name", ""),
                    "section": r.get("section_identifier", ""), "title": msg.get("title", ""),
                    "message": msg.get("message", ""), "type": int(msg.get("type", 0) or 0),
                    "speedup_type": int(sp.get("type", 0) or 0), "speedup": _num(sp.get("speedup")),
                    "focus_metrics": [[f.get("name", ""), _num(f.get("value"))]
                                      for f in r.get("focus_metrics", []) or []]})
    return out


def _nvtx(act):
    """The push/pop range names open at this launch, every domain ([] without --nvtx)."""
    out = []
    try:
        state = act.nvtx_state()
        if state is None:
            return out
        for d in state.domains():
            info = state.domain_by_id(d)
            if info is not None:
                out.extend(str(n) for n in info.push_pop_ranges())
    except Exception:  # noqa: BLE001 - a module without NVTX support: no ranges
        pass
    return out


def module_origin(arg):
    mod, origin = _import(arg["candidates"])
    return {"module": origin} if mod is not None else {"error": origin, "kind": "no_module"}


def _load(mod, path):
    """The report at `path`, kept (one at a time) for the sass() lookups that follow its read; a
    file written anew since is loaded again."""
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
    held = _state.get("report")
    if held and held[0] == key:
        return held[1]
    _state.pop("report", None)
    ctx = mod.load_report(path)
    _state["report"] = (key, ctx)
    return ctx


def _actions(ctx):
    """(id, range index, action) in report order: the ids read() gives."""
    n = 0
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        for a in range(rng.num_actions()):
            yield n, r, rng.action_by_idx(a)
            n += 1


def _open(arg):
    """(module, origin, report, None), or (None, None, None, the error to return)."""
    mod, origin = _import(arg["candidates"])
    if mod is None:
        return None, None, None, {"error": origin, "kind": "no_module"}
    try:
        return mod, origin, _load(mod, arg["path"]), None
    except Exception as e:  # noqa: BLE001
        return None, None, None, {"error": "%s: %s" % (type(e).__name__, e), "kind": "load_failed", "module": origin}


def sass(arg):
    """The disassembly of the PCs `pcs` of launch `kernel` of the report `path`: {"sass": {pc: text}}."""
    mod, origin, ctx, error = _open(arg)
    if error:
        return error
    for n, _, act in _actions(ctx):
        if n == arg["kernel"]:
            return {"sass": {str(pc): act.sass_by_pc(pc).strip() for pc in arg["pcs"]}}
    return {"error": "the report has no launch with ID %d" % arg["kernel"], "kind": "load_failed", "module": origin}


def _source_files(act):
    """{file: text} of the source ncu imported; a file whose text the module cannot convert is
    left out (its hot lines still name file and line)."""
    try:
        return dict(act.source_files())
    except Exception:  # noqa: BLE001 - e.g. text in an encoding the module cannot decode
        return {}


def read(arg):
    """{"module", "kernels"}; a report the module fails on part-way: {"error", "kind": "damaged",
    "read": launches read whole, "stage": what failed}, without the module's own exception text
    (kprof says "damaged or truncated")."""
    mod, origin, ctx, error = _open(arg)
    if error:
        return error
    kernels = []
    stage = "the list of launches"
    try:
        for n, r, act in _actions(ctx):
            stage = "launch %d's name" % n
            k = {"id": n, "range": r, "function": act.name(),
                 "name": act.name(mod.IAction.NameBase_DEMANGLED),
                 "mangled": act.name(mod.IAction.NameBase_MANGLED)}
            for key in ("function", "name", "mangled"):
                if not isinstance(k[key], str):
                    raise ValueError("no %s" % key)
            if arg.get("metrics"):
                stage = "launch %d's metrics" % n
                k["metrics"] = _scalars(act)
            if arg.get("source"):
                stage = "launch %d's source counters" % n
                k["instructions"] = _instructions(act, arg.get("sass", True))
                k["source_files"] = _source_files(act)
            if arg.get("rules"):
                stage = "launch %d's rule results" % n
                k["rules"] = _rules(act)
            if arg.get("nvtx"):
                k["nvtx"] = _nvtx(act)
            kernels.append(k)
    except Exception as e:  # noqa: BLE001 - a damaged report: the module's own text stays out
        return {"error": type(e).__name__, "kind": "damaged", "read": len(kernels), "stage": stage, "module": origin}
    return {"module": origin, "kernels": kernels}
)PY";

}  // namespace kprof
