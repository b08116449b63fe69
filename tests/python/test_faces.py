"""The typed faces (issue 47): signatures and checks built from the option table, each call's own
folder and outcome document (10 threads and 10 concurrent MCP calls, one folder name shared), and
the MCP edges (typed input schemas, raw arguments checked, the error shape, JSON-RPC replies)."""

import inspect
import json
import os
import subprocess
import sys
import threading
import typing

import pytest

import kprof
from conftest import COPY_CSV, VADD, VADD_REF


def test_signature_is_typed_from_the_table():
    sig = inspect.signature(kprof.run)
    assert sig.parameters["decide_time"].annotation == typing.Literal["call", "kernel"]
    assert sig.parameters["warmup_ms"].default == 100.0 and sig.parameters["warmup_ms"].annotation is float
    assert sig.parameters["metrics"].default == "kprof"
    assert "options" not in sig.parameters  # no **options left
    assert inspect.signature(kprof.env).parameters["timeout"].default == 60.0
    assert inspect.signature(kprof.analyze).parameters["timeout"].default == 300.0  # another --timeout


@pytest.mark.parametrize("call, words", [
    (lambda: kprof.profile(VADD, warmup_msx=5), ["warmup_msx", "warmup_ms"]),
    (lambda: kprof.check(VADD, VADD_REF, nvcc_flags="-O3"), ["list of strings"]),
    (lambda: kprof.run([VADD], VADD_REF, sweep="N=1..8"), ["list of strings"]),
    (lambda: kprof.run([VADD], VADD_REF, help=True), ["help"]),
    (lambda: kprof.run([VADD], VADD_REF, dims={"output-dir": "x"}), ["not a parameter name"]),
    (lambda: kprof.run([VADD], VADD_REF, output_dir="--json"), ["not a folder name"]),
    (lambda: kprof.run([VADD], VADD_REF, output_dir=""), ["not a folder name"]),
    (lambda: kprof.profile(VADD, metrics="fast"), ["kprof, sections, full"]),
])
def test_wrong_calls_raise_usage_error_before_any_child(call, words, monkeypatch):
    monkeypatch.setattr("kprof._api.run_kprof", lambda *a, **k: pytest.fail("a child started"))
    with pytest.raises(kprof.UsageError) as e:
        call()
    text = e.value.message + " " + e.value.hint
    assert all(w in text for w in words), text


def test_each_call_gets_its_own_folder_and_outcome(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = kprof.analyze(COPY_CSV, no_roofline=True)
    assert r.exit_code == 0 and r.path.startswith(os.path.join("analyze_out", "analyze-"))
    with open(r.path, encoding="utf-8") as f:
        assert json.load(f) == dict(r)


def test_ten_threads_sharing_one_folder_name_each_get_their_own_report(tmp_path, monkeypatch):
    """Ten analyze calls at once, half of them into one folder they all name: each report is the
    call's own (its source), read from its outcome document, and the files on disk are whole."""
    monkeypatch.chdir(tmp_path)  # the other half write their default folders here, not in the checkout
    reports = {}
    csvs = []
    for i in range(10):  # ten distinct inputs: the copy export under ten names
        path = tmp_path / f"in{i}.raw.csv"
        path.write_bytes(open(COPY_CSV, "rb").read())
        csvs.append(str(path))

    def one(i):
        out = str(tmp_path / "shared") if i % 2 else None
        reports[i] = kprof.analyze(csvs[i], output_dir=out, no_roofline=True)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wrong = [i for i, r in reports.items() if r.exit_code != 0 or r.get("source") != csvs[i]]
    assert not wrong, {i: (reports[i].exit_code, reports[i].get("source")) for i in wrong}
    for i, r in reports.items():
        with open(r.path, encoding="utf-8") as f:
            json.load(f)  # whole JSON on disk


async def _mcp_calls(tmp_path, csvs):
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "kprof", "mcp"], cwd=str(tmp_path),
                                   env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            got = {}

            async def one(i):
                args = {"report": csvs[i]}
                if i % 2:
                    args["output_dir"] = str(tmp_path / "shared")
                res = await session.call_tool("analyze", args)
                data = res.structured_content or json.loads(res.content[0].text)
                got[i] = data.get("result", data) if set(data) == {"result"} else data

            async with anyio.create_task_group() as tg:
                for i in range(10):
                    tg.start_soon(one, i)
            misspelt = await session.call_tool("run", {"kernels": [VADD], "ref": VADD_REF,
                                                       "options": {"decide_tme": "kernel"}})
            return tools, got, misspelt


def test_mcp_schema_ten_concurrent_calls_and_a_misspelt_option(tmp_path):
    anyio = pytest.importorskip("anyio")
    pytest.importorskip("mcp")
    csvs = []
    for i in range(10):
        path = tmp_path / f"in{i}.raw.csv"
        path.write_bytes(open(COPY_CSV, "rb").read())
        csvs.append(str(path))
    tools, got, misspelt = anyio.run(_mcp_calls, tmp_path, csvs)
    options = tools["run"].input_schema["properties"]["options"]
    assert options["properties"]["decide_time"]["enum"] == ["call", "kernel"]
    assert options["properties"]["rounds"]["default"] == 60 and options["additionalProperties"] is False
    wrong = [i for i, g in got.items() if g.get("exit_code") != 0 or g["report"].get("source") != csvs[i]]
    assert not wrong, got
    err = misspelt.structured_content["error"]
    assert err["code"] == "usage_error" and "decide_time" in err["hint"]


def test_mcp_answers_a_malformed_request_with_an_id():
    pytest.importorskip("mcp")
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    lines = [init, {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": "bad"}, {"jsonrpc": "2.0", "id": 3}]
    text = "".join(json.dumps(m) + "\n" for m in lines)
    p = subprocess.run([sys.executable, "-m", "kprof", "mcp"], input=text, capture_output=True, text=True, timeout=60)
    replies = {m.get("id"): m for m in map(json.loads, p.stdout.splitlines())}
    assert replies[2]["error"]["code"] == -32602
    assert replies[3]["error"]["code"] == -32600


def test_typed_views_read_the_saved_results_of_kprof_0():
    from conftest import DATA
    from kprof._views import CallVerdict, RunReport

    with open(os.path.join(DATA, "saved", "run", "comparison.json"), encoding="utf-8") as f:
        run = RunReport.from_json(json.load(f))
    assert [v.name for v in run.versions] == ["v0", "v1"] and run.versions[1].correct
    with open(os.path.join(DATA, "saved", "profile", "profile.json"), encoding="utf-8") as f:
        call = CallVerdict.from_json(json.load(f))
    assert call.cls and isinstance(call.findings, list)
    with pytest.raises(ValueError, match="correct"):
        RunReport.from_json({"versions": [{"name": "v0", "correct": "yes"}]})
