"""``kprof mcp``: kprof's commands as MCP tools over stdio (the official MCP Python SDK 2,
``pip install kprof[mcp]``).

Every tool calls kprof's Python API, whose GPU work runs in child processes with their output
captured: stdout stays the protocol's. A tool returns ``{"report": ..., "truncated": bool,
"next_step": "..."}``; every failure (a missing file, a bad option or argument, a command that
stopped before its report) is an MCP tool error: ``isError`` true and structuredContent
``{"error": {"code", "message", "hint"}}`` (codes: usage_error, not_run, failed, timeout,
unknown_job, unknown_tool, internal_error; usage errors are found before any child starts). A
finished job's error is its ``job_status`` answer's ``result``. ``run`` and ``profile`` take minutes: they
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
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import kprof
from kprof import _child, _options
from kprof._views import CallVerdict

#: A tool's sizes argument: {buffer: expression} or the command line's 'NAME=EXPR' strings.
Sizes = Union[Dict[str, str], List[str]]

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
        return _error("timeout", str(e), "pass a larger wall_timeout_s (seconds; 0: no limit) or fewer versions")
    body, truncated = shrink(dict(report))
    # The page's path (issue 52) at the top, so a truncated report still names it.
    return {"report": body, "truncated": truncated, "exit_code": report.exit_code,
            "output_dir": report.output_dir, "report_html": report.get("report_html"),
            "next_step": next_step(report)}


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
        try:  # every job ends: an exception is its result, in kprof's error shape
            job["result"] = _answer(lambda: call(progress), _after_run)
        except BaseException as e:  # noqa: BLE001
            job["result"] = _error("internal_error", f"{kind}: {type(e).__name__}: {e}",
                                   "report this with the arguments that caused it")
        finally:
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
        try:
            call = CallVerdict.from_json(profile)  # typed view of profile.json (kprof._views)
        except ValueError as e:
            out.append({"folder": root, "error": f"damaged profile.json: {e}"})
            continue
        out.append({"folder": os.path.relpath(root, result_dir), "class": call.cls,
                    "limiter": call.limiter, "bound": call.bound, "findings": call.findings})
    if not out:
        return _error("usage_error", f"no profile.json under {result_dir}", "run kprof profile or run first")
    body, truncated = shrink({"versions": out})
    return {"report": body, "truncated": truncated, "next_step": "fix the first finding of the slowest version"}


#: Each tool's own arguments (not options of the table), and the command whose options it takes.
TOOL_ARGS: Dict[str, Tuple[Tuple[str, ...], Optional[str]]] = {
    "env": ((), "env"),
    "check": (("kernel", "ref", "dims", "sizes", "options", "output_dir"), "check"),
    "profile": (("kernel", "dims", "sizes", "options", "output_dir"), "profile"),
    "run": (("kernels", "ref", "dims", "sizes", "options", "output_dir"), "run"),
    "compare": (("results", "output_dir"), "compare"),
    "analyze": (("report", "output_dir"), "analyze"),
    "job_status": (("job_id",), None),
    "findings": (("result_dir",), None),
}
#: Options the MCP tools set themselves (a tool's report goes to its own folder, analyze draws no chart).
TOOL_DROPS: Dict[str, Tuple[str, ...]] = {"env": ("output",), "compare": ("output",),
                                          "analyze": ("output_dir", "no_roofline")}
#: Tools whose options are top-level properties (the others take them in "options").
FLAT = ("env", "compare", "analyze")


def check_arguments(tool: str, arguments: Any) -> Optional[Dict[str, Any]]:
    """kprof's own check of a tool call's raw arguments, before the SDK's argument model (which
    drops keys it does not know): an unknown argument or option is an error naming the closest one;
    a value of the wrong type, strings where lists belong, dims keys and output_dir are checked by
    the table's rules. Returns the error in kprof's shape, or None when the arguments are fine."""
    if tool not in TOOL_ARGS:
        return None
    own, command = TOOL_ARGS[tool]
    if not isinstance(arguments, dict):
        return _error("usage_error", f"{tool}: arguments must be an object, not {type(arguments).__name__}")
    drops = TOOL_DROPS.get(tool, ())
    flat = [r["keyword"] for r in _options.rows(command) if r["keyword"] not in drops] if tool in FLAT else []
    try:
        for key in arguments:
            if key not in own and key not in flat:
                near = _options.closest(key, list(own) + flat)
                return _error("usage_error", f"{tool}: unknown argument {key!r}",
                              f"did you mean {near!r}?" if near else f"the arguments of {tool} are: "
                              + ", ".join(list(own) + flat))
        if command is None:
            return None
        options = arguments.get("options") if tool not in FLAT else {k: v for k, v in arguments.items() if k in flat}
        if options is not None and not isinstance(options, dict):
            return _error("usage_error", f"{tool}: options must be an object of kprof {command}'s options",
                          "e.g. options={'no_ncu': true}")
        options = {k: v for k, v in (options or {}).items() if k not in drops or tool in FLAT}
        for k in drops:
            if k in options and tool not in FLAT:
                return _error("usage_error", f"{tool}: option {k!r} is set by the MCP tool itself")
        if "progress" in options and tool not in FLAT:
            return _error("usage_error", f"{tool}: 'progress' is not an option of the MCP tool",
                          "a job's progress lines come with job_status; drop options.progress")
        if "size" in options and tool not in FLAT:  # one way: the sizes argument
            fixed = kprof._api._as_sizes_dict(options["size"])
            return _error("usage_error", f"{tool}: the buffer sizes are the argument sizes, not options.size",
                          f"write \"sizes\": {json.dumps(fixed)}" if fixed else
                          'e.g. "sizes": {"input": "N*D"} or "sizes": ["input=N*D"]')
        _options.check_keywords(command, options, tool, own=own if tool in FLAT else (), common=False)
        _options.check_dims(arguments.get("dims"), command, tool)
        kprof._api._checked(command, tool, {}, sizes=arguments.get("sizes"), output_dir=arguments.get("output_dir"))
        for key in ("kernels", "results"):
            if key in arguments and not isinstance(arguments[key], list):
                return _error("usage_error", f"{tool}: {key} is a list of paths, not {arguments[key]!r}",
                              f"write {key}: [{arguments[key]!r}]")
    except kprof.UsageError as e:
        return _error("usage_error", e.message, e.hint)
    return None


def tool_error_of(structured: Any) -> Optional[Dict[str, Any]]:
    """The error a tool answered (its return value {"error": {code, message, hint, ...}}, which the SDK
    wraps as {"result": ...}), or None for an answer that is not an error. A finished command whose
    check failed (exit 1 with its report) is an answer; a job's error stays in job_status's result."""
    body = structured.get("result") if isinstance(structured, dict) and set(structured) == {"result"} else structured
    if isinstance(body, dict) and set(body) == {"error"} and isinstance(body["error"], dict):
        return body
    return None


#: What a JSON schema type expects, in words.
_EXPECTS = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
            "object": "an object", "array": "a list", "null": "null"}


#: What a failed check of pydantic's (its error type's first word: string_type, int_parsing, ...) expects.
_PYDANTIC_EXPECTS = {"string": "a string", "int": "an integer", "float": "a number", "bool": "true or false",
                     "dict": "an object", "list": "a list"}


def _expects(prop: Mapping[str, Any]) -> str:
    """``prop`` (a property of a tool's input schema) in words: "a string", "a list of strings", ..."""
    kinds = [p for p in prop.get("anyOf", [prop]) if p.get("type") != "null"]
    words = []
    for p in kinds:
        word = _EXPECTS.get(p.get("type", ""), "a value of its schema")
        items = p.get("items", {}).get("type")
        if p.get("type") == "array" and items in _EXPECTS:
            word += " of " + _EXPECTS[items].split(" ", 1)[1] + "s"
        words.append(word)
    return " or ".join(words) or "a value of its schema"


def _argument_path(arguments: Any, loc: Sequence[Any]) -> List[str]:
    """The keys of pydantic's error location that are in the arguments (``sizes``, ``x``), less the
    names it gives a union's members (``dict[str,str]``), which are not."""
    path: List[str] = []
    node = arguments
    for part in loc:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        elif path:  # a union member's name: not the caller's key
            continue
        path.append(str(part))
    return path


def argument_error(tool: str, errors: Sequence[Mapping[str, Any]], schema: Mapping[str, Any],
                   arguments: Any = None) -> Dict[str, Any]:
    """The caller's mistake the SDK's argument model found (pydantic's ``errors()``: a required
    argument missing, a value of the wrong type) as kprof's usage_error: one sentence naming the first
    argument and what it expects."""
    props = schema.get("properties", {})
    first = errors[0] if errors else {"loc": (), "type": ""}
    loc = _argument_path(arguments if isinstance(arguments, dict) else {}, first.get("loc", ()))
    where = ".".join(loc) or "?"
    kind = str(first.get("type", ""))
    # At the top, the property's schema says what it takes; inside one (sizes.input), the check that failed.
    expects = _expects(props.get(loc[0], {})) if len(loc) == 1 else _PYDANTIC_EXPECTS.get(
        kind.split("_")[0], "a value of the tool's input schema")
    own = [k for k in TOOL_ARGS.get(tool, ((), None))[0] if k in props] or list(props)
    required = schema.get("required", [])
    hint = f"{tool} takes " + ", ".join(f"{k} ({_expects(props[k])}{', required' if k in required else ''})"
                                        for k in own)
    if kind == "missing":
        return _error("usage_error", f"{tool}: argument {where!r} is required: {expects}", hint)
    given = json.dumps(first.get("input"), default=str)
    return _error("usage_error", f"{tool}: argument {where!r} takes {expects}, not {given}", hint)


def _typed(fn: Callable[..., Any], command: str, drop: Tuple[str, ...] = ()) -> Callable[..., Any]:
    """``fn`` with the table's options of ``command`` as its typed keyword parameters (its
    ``**options`` replaced), so the SDK's input schema holds each with its type, enum and default."""
    fn.__signature__ = _options.signature_of(fn, command, drop)  # type: ignore[attr-defined]
    return fn


def create_server() -> Any:
    """The MCP server with kprof's tools (imports the SDK here, so kprof imports without it).
    Every tool's options come from the option table (kprof._options); kprof checks each call's raw
    arguments itself (check_arguments), and every failure, an exception included, is answered in
    kprof's {"error": {code, message, hint}} shape."""
    missing = sdk_missing()
    if missing:
        raise SystemExit(missing)
    from mcp.server.mcpserver import MCPServer
    from mcp.types import CallToolResult, TextContent

    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
    from pydantic import ValidationError

    class KprofServer(MCPServer):  # type: ignore[misc, valid-type]
        async def call_tool(self, name: str, arguments: Dict[str, Any], context: Any = None) -> Any:
            """Every error, kprof's (a tool's answer {"error": ...}) or the caller's, is the MCP way's
            tool error: isError true, structuredContent {"error": {code, message, hint}}."""
            try:
                err = check_arguments(name, arguments)
            except Exception as e:  # noqa: BLE001 - kprof's own check failing is kprof's error, in its shape
                err = _error("internal_error", f"{name}: {type(e).__name__}: {e}",
                             "report this with the arguments that caused it")
            if err is None:
                try:
                    result = await super().call_tool(name, arguments, context)
                except ToolError as e:  # the SDK's: an unknown tool, arguments off the schema, a crash
                    tool = self._tool_manager.get_tool(name)
                    if tool is None:
                        err = _error("unknown_tool", f"no tool {name!r}", "call list_tools for kprof's tools")
                    elif isinstance(e.__cause__, ValidationError) and not isinstance(e, UnexpectedToolError):
                        err = argument_error(name, e.__cause__.errors(), tool.parameters, arguments)
                    else:
                        err = _error("internal_error", f"{name}: {e.__cause__ or e}",
                                     "report this with the arguments that caused it")
                else:
                    err = tool_error_of(result.structured_content)
                    if err is None:
                        return result
            return CallToolResult(content=[TextContent(type="text", text=json.dumps(err, indent=2))],
                                  structured_content=err, is_error=True)

    server = KprofServer("kprof", instructions="Check, time and profile GPU kernels; every tool returns kprof's "
                         "JSON report with a next step. run and profile are jobs: poll job_status.")

    def env(**options: Any) -> Dict[str, Any]:
        """Is this machine ready (GPU, driver, nvcc, ncu counters, PyTorch, Triton, CUPTI)? env_check.json."""
        return _answer(lambda: kprof.env(output=os.path.join(_scratch(), "env_check.md"), **options),
                       lambda r: "ready" if r.get("ready") else "fix report['blockers'] first")

    def check(kernel: str, ref: str, dims: Optional[Dict[str, Any]] = None, sizes: Optional[Sizes] = None,
              options: Optional[Dict[str, Any]] = None, output_dir: Optional[str] = None) -> Dict[str, Any]:
        """kprof check: the kernel's outputs against ref.py's reference(**kwargs). correctness.json."""
        return _answer(lambda: kprof.check(kernel, ref, dims, sizes=sizes, output_dir=output_dir, progress=False,
                                           **(options or {})),
                       lambda r: "correct: profile it" if r.ok else "wrong output: see report['trials']")

    def profile(kernel: str, dims: Optional[Dict[str, Any]] = None, sizes: Optional[Sizes] = None,
                options: Optional[Dict[str, Any]] = None, output_dir: Optional[str] = None) -> Dict[str, Any]:
        """kprof profile as a job: timing, ncu metrics, class and findings (profile.json via job_status)."""
        opts = {k: v for k, v in (options or {}).items() if k != "progress"}  # the job reports progress itself
        return _start_job("profile", lambda progress: kprof.profile(
            kernel, dims, sizes=sizes, output_dir=output_dir, progress=progress, **opts))

    def run(kernels: List[str], ref: str, dims: Optional[Dict[str, Any]] = None,
            sizes: Optional[Sizes] = None, options: Optional[Dict[str, Any]] = None,
            output_dir: Optional[str] = None) -> Dict[str, Any]:
        """kprof run as a job: check, time, profile and compare every version (comparison.json via job_status)."""
        try:  # usage errors at once, not in the job
            kprof._api._validate(kprof._api.run_argv(kernels, ref, dims, sizes=sizes, output_dir=output_dir,
                                                     **(options or {})))
        except kprof.UsageError as e:
            return _error("usage_error", e.message, e.hint)
        return _start_job("run", lambda progress: kprof.run(
            kernels, ref, dims, sizes=sizes, output_dir=output_dir, progress=progress, **(options or {})))

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

    def compare(results: List[str], output_dir: Optional[str] = None, **options: Any) -> Dict[str, Any]:
        """kprof compare: saved results (comparison.json / profile.json or folders), baseline first."""
        return _answer(lambda: kprof.compare(results, output_dir=output_dir, **options), _after_compare)

    def analyze(report: str, output_dir: Optional[str] = None, **options: Any) -> Dict[str, Any]:
        """kprof analyze: the bottleneck verdict of an .ncu-rep or raw CSV, no GPU needed. analysis.json."""
        return _answer(lambda: kprof.analyze(report, output_dir=output_dir, no_roofline=True, **options),
                       _after_analyze)

    def findings(result_dir: str) -> Dict[str, Any]:
        """The ranked findings of each version under a kprof profile/run output folder."""
        return tool_findings(result_dir)

    for fn in (check, profile, run, job_status, findings):
        server.add_tool(fn)
    for fn in (env, compare, analyze):
        server.add_tool(_typed(fn, fn.__name__, TOOL_DROPS.get(fn.__name__, ())))
    for name in FLAT:  # the table's enum, range and description on each top-level option property
        props = server._tool_manager.get_tool(name).parameters["properties"]
        for key, prop in _options.json_schema(name)["properties"].items():
            if key in props:
                props[key] = prop
    for name in ("check", "profile", "run"):  # "options": one typed property per option of the table
        tool = server._tool_manager.get_tool(name)
        schema = _options.json_schema(name)
        del schema["properties"]["size"]  # the buffer sizes: the tool's own sizes argument
        schema["description"] = f"kprof {name}'s options (the command line's, '-' written '_')"
        tool.parameters["properties"]["options"] = schema
    return server


def _scratch() -> str:
    import tempfile

    return tempfile.mkdtemp(prefix="kprof-mcp-")


def malformed_reply(line: str) -> Optional[Dict[str, Any]]:
    """The JSON-RPC error reply kprof's server gives itself to a request line that has an id but is
    malformed (no method, a method that is not a string, params that are not an object: -32600 /
    -32602), which the MCP SDK 2 drops without a reply, leaving the client waiting forever. None for
    every other line (the SDK answers those, or they are notifications or responses)."""
    try:
        msg = json.loads(line)
    except ValueError:
        return None
    if not isinstance(msg, dict) or "id" not in msg or "result" in msg or "error" in msg:
        return None
    rid = msg["id"]
    if not isinstance(rid, (str, int)) or isinstance(rid, bool):
        return None

    def reply(code: int, message: str) -> Dict[str, Any]:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}

    if msg.get("jsonrpc") != "2.0":
        return reply(-32600, 'Invalid Request: "jsonrpc" must be "2.0"')
    if not isinstance(msg.get("method"), str):
        return reply(-32600, 'Invalid Request: a request needs a "method" string')
    if "params" in msg and not isinstance(msg["params"], dict):
        return reply(-32602, 'Invalid params: "params" must be an object')
    return None


class _StdinLines:
    """stdin as the async lines the SDK's stdio transport reads, less the malformed requests,
    which are answered here (malformed_reply) on the transport's own stdout."""

    def __init__(self, inp: Any, out: Any) -> None:
        self._inp, self._out = inp, out

    def __aiter__(self) -> "_StdinLines":
        return self

    async def __anext__(self) -> str:
        import anyio

        while True:
            line = await anyio.to_thread.run_sync(self._inp.readline)
            if not line:
                raise StopAsyncIteration
            answer = malformed_reply(line)
            if answer is None:
                return line
            await self._out.write(json.dumps(answer) + "\n")
            await self._out.flush()


async def _serve(server: Any) -> None:
    import io
    import sys

    import anyio
    from mcp.server.stdio import stdio_server

    out = anyio.wrap_file(io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", write_through=True))
    inp = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    async with stdio_server(stdin=_StdinLines(inp, out), stdout=out) as (read_stream, write_stream):  # type: ignore
        low = server._lowlevel_server
        await low.run(read_stream, write_stream, low.create_initialization_options())


def sdk_missing() -> Optional[str]:
    """kprof's message (error and hint lines) when the MCP Python SDK 2 cannot be imported here (kprof
    installed without its [mcp] extra), else None."""
    try:
        import anyio  # noqa: F401 - the SDK's own dependency, which the stdio loop uses directly
        from mcp.server.mcpserver import MCPServer  # noqa: F401
    except ImportError as e:
        return (f"error: kprof mcp needs the MCP Python SDK 2, which this Python cannot import ({e})\n"
                f"  hint: pip install \"kprof[mcp]\" (the SDK alone: pip install 'mcp>=2.3,<2.4')")
    return None


def main() -> None:
    """Serves kprof's tools on stdio until the client closes it; then stops every child. Without the
    MCP SDK: kprof's message on stderr and exit 2 (a setup error, as a missing ncu_report is)."""
    missing = sdk_missing()
    if missing:
        import sys

        print(missing, file=sys.stderr)
        sys.exit(2)
    import anyio

    atexit.register(_child.stop_all)
    anyio.run(_serve, create_server())
