"""`kprof mcp` driven by the MCP SDK's own stdio client: the tools listed, analyze and compare on
committed / saved results, a structured error for a bad path."""

import json
import sys

import pytest

mcp = pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'kprof[mcp]')")

from conftest import COPY_CSV, VADD, VADD_REF  # noqa: E402
from test_plugin import write_comparison  # noqa: E402


def payload(result):
    if getattr(result, "structured_content", None):
        data = result.structured_content
        return data.get("result", data) if isinstance(data, dict) and set(data) == {"result"} else data
    return json.loads(result.content[0].text)


async def session_calls(tmp_path):
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "kprof", "mcp"], cwd=str(tmp_path))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name for t in (await session.list_tools()).tools}
            analyzed = payload(await session.call_tool(
                "analyze", {"report": COPY_CSV, "output_dir": str(tmp_path / "a")}))
            base = write_comparison(tmp_path / "base", 15.62e-3, seed=5)
            slow = write_comparison(tmp_path / "slow", 15.62e-3 * 1.1, seed=6, status="fail")  # no longer correct
            compared = payload(await session.call_tool(
                "compare", {"results": [base, slow], "fail_if_slower": 5, "output_dir": str(tmp_path / "c")}))
            bad = payload(await session.call_tool("analyze", {"report": str(tmp_path / "missing.ncu-rep")}))
            bad_run = payload(await session.call_tool("run", {"kernels": [VADD], "ref": VADD_REF,
                                                              "options": {"iters": "many"}}))
            # sizes as the command line's NAME=EXPR strings: accepted, the job starts.
            sized = payload(await session.call_tool("run", {"kernels": [VADD], "ref": VADD_REF, "dims": {"N": 8},
                                                            "sizes": ["input=N"], "output_dir": str(tmp_path / "r")}))
            assert "job_id" in sized, sized
            return tools, analyzed, compared, bad, bad_run


def test_mcp_session(tmp_path):
    import anyio

    tools, analyzed, compared, bad, bad_run = anyio.run(session_calls, tmp_path)
    assert {"env", "check", "profile", "run", "job_status", "compare", "analyze", "findings"} <= tools
    assert analyzed["exit_code"] == 0 and analyzed["report"]["schema_version"] == 2
    assert analyzed["truncated"] is False and analyzed["next_step"]
    assert analyzed["report_html"] == str(tmp_path / "a" / "report.html")  # the page's path (issue 52)
    assert (tmp_path / "a" / "report.html").is_file()
    assert compared["exit_code"] == 1 and "revert" in compared["next_step"]
    assert bad["error"]["code"] == "usage_error" and "missing.ncu-rep" in bad["error"]["message"]
    assert bad["error"]["hint"]
    assert bad_run["error"]["code"] == "usage_error" and "many" in bad_run["error"]["message"]


def test_large_reports_are_cut_and_flagged():
    from kprof.mcp_server import shrink

    report = {"versions": [{"name": "v", "time_samples_ms": [0.001 * i for i in range(40000)]}]}
    small, truncated = shrink(report, limit=20000)
    assert truncated
    assert len(small["versions"][0]["time_samples_ms"]) == 50
    assert small["versions"][0]["time_samples_ms_truncated_from"] == 40000
    assert shrink({"a": 1})[1] is False


async def error_calls(tmp_path):
    """The raw CallToolResult of tool calls that are the caller's mistakes or failures kprof reports."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "kprof", "mcp"], cwd=str(tmp_path))
    calls = {
        "missing_report": ("analyze", {"report": "/nope.ncu-rep"}),
        "bad_option": ("run", {"kernels": [VADD], "ref": VADD_REF, "options": {"iters": "many"}}),
        "missing_results": ("compare", {"results": [str(tmp_path / "a"), str(tmp_path / "b")]}),
        "not_a_folder": ("findings", {"result_dir": str(tmp_path / "none")}),
        "no_argument": ("findings", {}),
        "wrong_type": ("findings", {"result_dir": 5}),
        "no_kernel": ("check", {"ref": VADD_REF}),
        "unknown_job": ("job_status", {"job_id": "nope"}),
        "options_size": ("check", {"kernel": VADD, "ref": VADD_REF, "options": {"size": ["input=N*D"]}}),
        "bad_sizes": ("run", {"kernels": [VADD], "ref": VADD_REF, "sizes": ["input"]}),
        "sizes_value": ("check", {"kernel": VADD, "ref": VADD_REF, "sizes": {"input": 1}}),
        "dims_number": ("check", {"kernel": VADD, "ref": VADD_REF, "dims": 5}),
    }
    out = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for key, (tool, arguments) in calls.items():
                out[key] = await session.call_tool(tool, arguments)
    return out


def test_every_tool_error_is_an_mcp_tool_error_in_one_shape(tmp_path):
    """A missing file, a bad option, a missing or ill-typed argument: isError true and
    structuredContent {"error": {code, message, hint}}, the same shape for all; a missing or
    ill-typed argument is the caller's usage_error naming it, not an internal error."""
    import anyio

    results = anyio.run(error_calls, tmp_path)
    for key, result in results.items():
        assert result.is_error is True, (key, result)
        data = result.structured_content
        assert isinstance(data, dict) and set(data) == {"error"}, (key, data)
        assert {"code", "message", "hint"} <= set(data["error"]), (key, data)
        assert json.loads(result.content[0].text) == data, key  # the text is the same object
        assert "pydantic" not in json.dumps(data) and "report this" not in json.dumps(data), (key, data)
    codes = {key: r.structured_content["error"]["code"] for key, r in results.items()}
    assert codes == {"missing_report": "usage_error", "bad_option": "usage_error", "missing_results": "usage_error",
                     "not_a_folder": "usage_error", "no_argument": "usage_error", "wrong_type": "usage_error",
                     "no_kernel": "usage_error", "unknown_job": "unknown_job", "options_size": "usage_error",
                     "bad_sizes": "usage_error", "sizes_value": "usage_error", "dims_number": "usage_error"}
    sizes_value = results["sizes_value"].structured_content["error"]["message"]
    assert "argument 'sizes.input' takes a string, not 1" in sizes_value, sizes_value
    assert results["options_size"].structured_content["error"]["hint"] == 'write "sizes": {"input": "N*D"}'
    assert "/nope.ncu-rep" in results["missing_report"].structured_content["error"]["message"]
    missing = results["no_argument"].structured_content["error"]["message"]
    assert "'result_dir'" in missing and "required" in missing and "string" in missing, missing
    assert len(missing.splitlines()) == 1
    wrong = results["wrong_type"].structured_content["error"]["message"]
    assert "'result_dir'" in wrong and "string" in wrong and "5" in wrong, wrong
    assert "'kernel'" in results["no_kernel"].structured_content["error"]["message"]
