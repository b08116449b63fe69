"""``kprof mcp``: kprof's commands as MCP tools over stdio (the official MCP Python SDK 2,
``pip install kprof[mcp]``).

Every tool calls kprof's Python API, whose GPU work runs in child processes with their output
captured: stdout stays the protocol's. A tool returns ``{"report": ..., "truncated": bool,
"next_step": "..."}``; a failure returns ``{"error": {"code", "message", "hint"}}`` (usage errors
are found by the C++ parser before any child starts). ``run`` and ``profile`` take minutes: they
start a job and return its id at once; ``job_status`` gives its progress lines and, once it has
ended, its report. The children still running are stopped when the client goes away.
"""

from __future__ import annotations

import atexit
import json
import os
import threading
import time
import uuid
from typing import Any, Callable, Dict, List, Optional

import kprof
from kprof import _child

#: The largest JSON a tool returns (characters); longer reports lose their longest lists first.
MAX_JSON_CHARS = 100_000
#: Lists longer than this are cut to it when a report is too large (per-call samples first).
MAX_LIST_ITEMS = 50

_jobs: Dict[str, Dict[str, Any]] = {}
_jobs_lock = threading.Lock()


def shrink(report: Any, limit: int = MAX_JSON_CHARS) -> tuple:
    """``(report, truncated)``: the report, with lists over MAX_LIST_ITEMS items cut (and a
    ``"…_truncated_from"`` count beside each) when its JSON exceeds ``limit`` characters."""
    if len(json.dumps(report, default=str)) <= limit:
        return report, False

    def cut(node: Any) -> Any:
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                if isinstance(value, list) and len(value) > MAX_LIST_ITEMS:
                    out[key] = [cut(v) for v in value[:MAX_LIST_ITEMS]]
                    out[key + "_truncated_from"] = len(value)
                else:
                    out[key] = cut(value)
            return out
        if isinstance(node, list):
            return [cut(v) for v in node]
        return node

    small = cut(report)
    text = json.dumps(small, default=str)
    if len(text) > limit:
        return {"json_prefix": text[:limit]}, True
    return small, True


def _error(code: str, message: str, hint: str = "") -> Dict[str, Any]:
    return {"error": {"code": code, "message": message, "hint": hint}}


def _answer(call: Callable[[], kprof.Report], next_step: Callable[[kprof.Report], str]) -> Dict[str, Any]:
    try:
        report = call()
        if report.path is None and report.exit_code != 0:  # stopped before writing its report (no GPU, ...)
            err = report.get("error") or {}
            return {"error": {"code": "not_run", "message": err.get("message", ""), "hint": err.get("hint", ""),
                              "exit_code": report.exit_code, "progress": report.stderr_tail[-10:]}}
    except kprof.UsageError as e:
        return _error("usage_error", e.message, e.hint)
    except kprof.CheckFailed as e:
        return _error("failed", str(e))
    except TimeoutError as e:
        return _error("timeout", str(e), "pass a larger wall_timeout_s or fewer versions")
    body, truncated = shrink(dict(report))
    return {"report": body, "truncated": truncated, "exit_code": report.exit_code,
            "output_dir": report.output_dir, "next_step": next_step(report)}


def _after_analyze(r: kprof.Report) -> str:
    return ("read report['call'] (class, limiter, bound, findings): fix the top finding first, then profile the "
            "new version" if r.ok else "the report could not be analyzed: see report and error")


def _after_compare(r: kprof.Report) -> str:
    if r.exit_code == 1:
        return "a version is slower beyond noise or no longer correct: revert it or look at its findings"
    return "no regression beyond noise: keep the new version"


def _after_run(r: kprof.Report) -> str:
    if r.exit_code == 2:
        return "fix the usage error"
    if r.exit_code == 1:
        return "a version failed its check or could not be measured: see versions[].status_reason"
    return ("compare versions[].time_ms and pct_of_bound; call findings on output_dir for what to fix next")


def _start_job(kind: str, call: Callable[[Callable[[str], None]], kprof.Report]) -> Dict[str, Any]:
    job_id = uuid.uuid4().hex[:12]
    job: Dict[str, Any] = {"kind": kind, "status": "running", "started": time.time(), "lines": [], "result": None}

    def progress(line: str) -> None:
        job["lines"].append(line)
        del job["lines"][:-30]

    def work() -> None:
        job["result"] = _answer(lambda: call(progress), _after_run)
        job["status"] = "done"
        job["ended"] = time.time()

    with _jobs_lock:
        _jobs[job_id] = job
    threading.Thread(target=work, daemon=True).start()
    return {"job_id": job_id, "status": "running",
            "next_step": f"call job_status with job_id={job_id!r} until status is 'done' (minutes)"}


def tool_findings(result_dir: str) -> Dict[str, Any]:
    """The ranked findings of every profile.json under ``result_dir`` (a kprof profile or run
    folder): per version, its class, limiter, % of bound and findings."""
    if not os.path.isdir(result_dir):
        return _error("usage_error", f"{result_dir} is not a folder", "pass the -o folder of kprof profile or run")
    out: List[Dict[str, Any]] = []
    for root, _dirs, files in os.walk(result_dir):
        if "profile.json" not in files:
            continue
        try:
            with open(os.path.join(root, "profile.json"), encoding="utf-8") as f:
                profile = json.load(f)
        except (OSError, ValueError) as e:
            out.append({"folder": root, "error": str(e)})
            continue
        call = profile.get("call") or {}
        out.append({"folder": os.path.relpath(root, result_dir), "class": call.get("class"),
                    "limiter": call.get("limiter"), "bound": call.get("bound"), "findings": call.get("findings")})
    if not out:
        return _error("usage_error", f"no profile.json under {result_dir}", "run kprof profile or run first")
    body, truncated = shrink({"versions": out})
    return {"report": body, "truncated": truncated, "next_step": "fix the first finding of the slowest version"}


def create_server() -> Any:
    """The MCP server with kprof's tools (imports the SDK here, so kprof imports without it)."""
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError as e:  # pragma: no cover - the message is the test
        raise SystemExit(f"kprof mcp needs the MCP Python SDK 2 in this environment: pip install 'mcp>=2,<3' "
                         f"(or install kprof with its extra: pip install '.[mcp]' in the checkout) ({e})")

    server = MCPServer("kprof", instructions="Check, time and profile GPU kernels; every tool returns kprof's "
                       "JSON report with a next step. run and profile are jobs: poll job_status.")

    @server.tool()
    def env(gpu: int = 0) -> Dict[str, Any]:
        """Is this machine ready (GPU, driver, nvcc, ncu counters, PyTorch, Triton, CUPTI)? env_check.json."""
        return _answer(lambda: kprof.env(gpu=gpu, output=os.path.join(_scratch(), "env_check.md")),
                       lambda r: "ready" if r.get("ready") else "fix report['blockers'] first")

    @server.tool()
    def check(kernel: str, ref: str, dims: Optional[Dict[str, Any]] = None, sizes: Optional[Dict[str, str]] = None,
              options: Optional[Dict[str, Any]] = None, output_dir: Optional[str] = None) -> Dict[str, Any]:
        """kprof check: the kernel's outputs against ref.py's reference(**kwargs). correctness.json."""
        return _answer(lambda: kprof.check(kernel, ref, dims, sizes=sizes, output_dir=output_dir, progress=False,
                                           **(options or {})),
                       lambda r: "correct: profile it" if r.ok else "wrong output: see report['trials']")

    @server.tool()
    def profile(kernel: str, dims: Optional[Dict[str, Any]] = None, sizes: Optional[Dict[str, str]] = None,
                options: Optional[Dict[str, Any]] = None, output_dir: Optional[str] = None) -> Dict[str, Any]:
        """kprof profile as a job: timing, ncu metrics, class and findings (profile.json via job_status)."""
        return _start_job("profile", lambda progress: kprof.profile(
            kernel, dims, sizes=sizes, output_dir=output_dir, progress=progress, **(options or {})))

    @server.tool()
    def run(kernels: List[str], ref: str, dims: Optional[Dict[str, Any]] = None,
            sizes: Optional[Dict[str, str]] = None, options: Optional[Dict[str, Any]] = None,
            output_dir: Optional[str] = None) -> Dict[str, Any]:
        """kprof run as a job: check, time, profile and compare every version (comparison.json via job_status)."""
        try:  # usage errors at once, not in the job
            kprof._api._validate(kprof._api.run_argv(kernels, ref, dims, sizes=sizes, output_dir=output_dir,
                                                     **(options or {})))
        except kprof.UsageError as e:
            return _error("usage_error", e.message, e.hint)
        return _start_job("run", lambda progress: kprof.run(
            kernels, ref, dims, sizes=sizes, output_dir=output_dir, progress=progress, **(options or {})))

    @server.tool()
    def job_status(job_id: str) -> Dict[str, Any]:
        """A profile or run job: status ('running' or 'done'), seconds so far, its last progress lines,
        and its result once done."""
        with _jobs_lock:
            job = _jobs.get(job_id)
        if job is None:
            return _error("unknown_job", f"no job {job_id!r}", "use the job_id that profile or run returned")
        return {"job_id": job_id, "kind": job["kind"], "status": job["status"],
                "elapsed_s": round(job.get("ended", time.time()) - job["started"], 1),
                "progress": list(job["lines"]), "result": job["result"]}

    @server.tool()
    def compare(results: List[str], fail_if_slower: Optional[float] = None,
                output_dir: Optional[str] = None) -> Dict[str, Any]:
        """kprof compare: saved results (comparison.json / profile.json or folders), baseline first."""
        return _answer(lambda: kprof.compare(results, fail_if_slower=fail_if_slower, output_dir=output_dir),
                       _after_compare)

    @server.tool()
    def analyze(report: str, output_dir: Optional[str] = None, top: int = 10) -> Dict[str, Any]:
        """kprof analyze: the bottleneck verdict of an .ncu-rep or raw CSV, no GPU needed. analysis.json."""
        return _answer(lambda: kprof.analyze(report, output_dir=output_dir, top=top, no_roofline=True),
                       _after_analyze)

    @server.tool()
    def findings(result_dir: str) -> Dict[str, Any]:
        """The ranked findings of each version under a kprof profile/run output folder."""
        return tool_findings(result_dir)

    return server


def _scratch() -> str:
    import tempfile

    return tempfile.mkdtemp(prefix="kprof-mcp-")


def main() -> None:
    """Serves kprof's tools on stdio until the client closes it; then stops every child."""
    atexit.register(_child.stop_all)
    create_server().run("stdio")
