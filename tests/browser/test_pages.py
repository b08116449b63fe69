#!/usr/bin/env python3
"""kprof's report.html in a real browser (headless Debian chromium over the DevTools protocol).

Builds the pages with the built kprof from committed H200 data, loads each one and checks: no console
error, no network request, the visible text (document.body.innerText, not attributes) carries the
JSON's numbers, the roofline has one mark per version, the page reads with JavaScript off, and the
screenshot is not blank by its pixels. Pages:
  - analyze: the SGEMM progression of tests/data/gemmprog (v0..v5, real H200 ncu exports), one page each;
  - compare of ncu reports: the six exports as one baseline comparison, and the before/after pair v4 -> v5;
  - run: a six-version run result assembled without a GPU by the GoogleTest HtmlPage.SixVersionRun... from
    the same real exports (its per-call samples and rounds are synthetic: no GPU run result is committed);
  - compare of saved runs: two such run results.
Usage: test_pages.py KPROF KPROF_TESTS DATA_DIR [--out DIR] [--screenshots DIR]
Exit 0 all passed, 1 a check failed, 77 skipped (no chromium or no websocket client), with the reason."""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

SKIP = 77


def skip(why):
    print("SKIP: " + why)
    sys.exit(SKIP)


try:
    import cdp  # noqa: E402
    import png  # noqa: E402
    import trace_view  # noqa: E402
    from trace_format import check_trace  # noqa: E402
except ImportError as e:
    if "websocket" in str(e) and os.path.exists("/usr/bin/python3") and sys.executable != "/usr/bin/python3" \
            and not os.environ.get("KPROF_BROWSER_REEXEC"):
        os.environ["KPROF_BROWSER_REEXEC"] = "1"  # Debian's python3-websocket is for the system Python
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    skip("no websocket client for the DevTools protocol (%s): apt-get install python3-websocket, or "
         "pip install websocket-client" % e)


def num(v):
    """The page's number format (report/html.hpp html_num: %.4g)."""
    return format(float(v), ".4g")


class Checks:
    def __init__(self):
        self.failed = 0
        self.passed = 0

    def ok(self, cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if cond:
            self.passed += 1
        else:
            self.failed += 1
        return cond


def kprof(args, env=None):
    e = dict(os.environ, NO_COLOR="1", KPROF_NCU_REPORT="off")
    e.update(env or {})
    t0 = time.time()
    r = subprocess.run(args, capture_output=True, text=True, env=e, timeout=300)
    if r.returncode != 0:
        raise RuntimeError("%s: exit %d\n%s%s" % (" ".join(args), r.returncode, r.stdout, r.stderr))
    return time.time() - t0


def build_pages(a, out):
    data = os.path.join(a.data, "gemmprog")
    csv = [os.path.join(data, "gemm_v%d.raw.csv" % v) for v in range(6)]
    pages = []
    for v in range(6):
        d = os.path.join(out, "analyze_v%d" % v)
        s = kprof([a.kprof, "analyze", csv[v], "--json", "--no-roofline", "-o", d])
        pages.append(("analyze v%d" % v, d, "analysis.json", 1, s))
    d = os.path.join(out, "reports")
    s = kprof([a.kprof, "compare"] + csv + ["-o", d])
    pages.append(("compare of 6 ncu reports", d, "comparison.json", 6, s))
    d = os.path.join(out, "pair")
    s = kprof([a.kprof, "compare", csv[4], csv[5], "-o", d])
    pages.append(("compare v4 -> v5 reports", d, "comparison.json", 2, s))
    s = kprof([a.kprof_tests, "--gtest_filter=HtmlPage.SixVersionRun*:RunTrace.Rounds*"], env={"KPROF_PAGE_OUT": out})
    pages.append(("run (6 versions)", os.path.join(out, "run"), "comparison.json", 6, s))
    d = os.path.join(out, "compare")
    s = kprof([a.kprof, "compare", os.path.join(out, "run"), os.path.join(out, "run2"), "-o", d])
    pages.append(("compare of 2 saved runs", d, "comparison.json", 0, s))
    return pages


def numbers_of(doc):
    """Numbers of the JSON the visible text must carry, per kind of document."""
    want = []
    if "kernels" in doc:  # analysis.json
        for k in doc["kernels"][:1]:
            want.append(("gpu_time_ns", num(k["gpu_time_ns"])))
            want.append(("flop_per_s", num(k["roofline"]["flop_per_s"])))
            for e in k["verdict"]["evidence"]:
                want.append(("evidence " + e["check"], e["text"]))
            for f in k["verdict"]["findings"]:
                want.append(("gain " + f["id"], num(f["gain_pct"]) + "%"))
    if doc.get("kind") == "ncu_reports":
        for d in doc["diffs"]:
            for p in d["pairs"]:
                want.append(("time ratio " + p["name"], num(p["time_ratio"])))
                want.append(("time before", num(p["before"]["gpu_time_ns"])))
    elif "versions" in doc:
        for v in doc["versions"]:
            if "runs" in v:
                for run in v["runs"]:
                    want.append(("median " + v["name"] + "@" + run["input"], num(run["row"]["time_ms"]) + " ms"))
            else:
                want.append(("median " + v["name"], num(v["time_ms"]) + " ms"))
        for v in (doc.get("decision") or {}).get("versions", []):
            want.append(("interval " + v["name"], "[%s, %s]" % (num(v["interval"][0]), num(v["interval"][1]))))
        if doc.get("decision", {}).get("aa_floor_pct") is not None:
            want.append(("A/A floor", "A/A floor " + num(doc["decision"]["aa_floor_pct"]) + "%"))
    return want


def check_page(b, c, name, folder, json_name, marks, shots):
    path = os.path.join(folder, "report.html")
    doc = json.load(open(os.path.join(folder, json_name)))
    c.ok(doc.get("report_html") == path or name.startswith("run"), "%s: JSON names the page (report_html)" % name)
    size = os.path.getsize(path)
    c.ok(size < 1 << 20, "%s: %d bytes (< 1 MB)" % (name, size))
    page = b.open("file://" + path)
    errs = page.console_errors()
    c.ok(not errs, "%s: no console error %s" % (name, errs[:3]))
    reqs = page.requests()
    c.ok(not reqs, "%s: no network request %s" % (name, reqs[:3]))
    text = page.visible_text()
    missing = [(k, v) for k, v in numbers_of(doc) if v not in text]
    c.ok(not missing, "%s: visible text carries the JSON's numbers (%d checked) %s" % (name, len(numbers_of(doc)), missing[:3]))
    if marks:
        n = page.eval("document.querySelectorAll('svg.roofline g.mark').length")
        c.ok(n == marks, "%s: roofline marks %s == %d" % (name, n, marks))
    shot = page.screenshot()
    share, colours = png.ink(shot)
    c.ok(share > 0.02 and colours > 8, "%s: screenshot not blank (%.1f%% ink, %d colours)" % (name, 100 * share, colours))
    if shots:
        slug = "".join(ch if ch.isalnum() else "_" for ch in name).strip("_").replace("__", "_")
        with open(os.path.join(shots, "page_" + slug + ".png"), "wb") as f:
            f.write(page.screenshot(full_page=False))
    off = b.open("file://" + path, javascript=False)
    t = off.visible_text()
    c.ok(all(v in t for _, v in numbers_of(doc)), "%s: the same numbers with JavaScript off" % name)
    return shot


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kprof")
    ap.add_argument("kprof_tests")
    ap.add_argument("data")
    ap.add_argument("--out")
    ap.add_argument("--screenshots", help="save PNGs here (docs/img for the Show)")
    ap.add_argument("--trace", help="a trace.json to check against the Chrome trace event format and load")
    a = ap.parse_args()
    exe = cdp.find_chromium()
    if not exe:
        skip("no chromium on PATH (Debian: apt-get install chromium)")
    out = a.out or tempfile.mkdtemp(prefix="kprof-pages-")
    pages = build_pages(a, out)
    c = Checks()
    b = cdp.Browser(exe)
    try:
        for name, folder, json_name, marks, seconds in pages:
            print("page %s: %s (%d bytes; the command took %.2f s)" % (name, os.path.join(folder, "report.html"),
                                                                       os.path.getsize(os.path.join(folder, "report.html")), seconds))
            check_page(b, c, name, folder, json_name, marks, a.screenshots)
        trace = a.trace or os.path.join(out, "run", "trace.json")
        doc = json.load(open(trace))
        problems = check_trace(doc)
        c.ok(not problems, "trace %s: Chrome trace event format (%d events) %s" % (trace, len(doc["traceEvents"]), problems[:3]))
        view = os.path.join(os.path.dirname(trace), "trace_view.html")
        with open(view, "w") as f:
            f.write(trace_view.render(doc))
        tp = b.open("file://" + view)
        share, colours = png.ink(tp.screenshot())
        c.ok(not tp.console_errors() and share > 0.02, "trace in the browser (offline view %s): %.1f%% ink, %d colours"
             % (view, 100 * share, colours))
        if a.screenshots:
            with open(os.path.join(a.screenshots, "trace_offline_view.png"), "wb") as f:
                f.write(tp.screenshot())
    finally:
        b.close()
    print("%d passed, %d failed" % (c.passed, c.failed))
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
