"""An offline look at a trace.json (Perfetto and chrome://tracing need the network or a Chrome build
here): draws its complete events ("X") as bars per process/thread and its counters ("C") as step lines,
in one self-contained SVG page, for a screenshot. Reads only what the Chrome trace event format
defines (ph, ts/dur in microseconds, pid/tid, args, M names). Not a replacement for Perfetto."""

import html
import json
import sys


def render(doc, width=1200):
    ev = doc["traceEvents"]
    names = {}
    for e in ev:
        if e["ph"] == "M" and e["name"] in ("process_name", "thread_name"):
            names[(e["pid"], e.get("tid"))] = e["args"]["name"]
    slices = [e for e in ev if e["ph"] == "X"]
    counters = {}
    for e in ev:
        if e["ph"] == "C":
            for k, v in e["args"].items():
                counters.setdefault((e["pid"], e["name"] + " " + k), []).append((e["ts"], v))
    end = max([e["ts"] + e["dur"] for e in slices] + [1.0])
    x = lambda t: 180 + (width - 200) * t / end  # noqa: E731
    rows = sorted({(e["pid"], e["tid"]) for e in slices})
    out, y = [], 20
    for pid, tid in rows:
        label = "%s / %s" % (names.get((pid, None), pid), names.get((pid, tid), tid))
        out.append('<text x="4" y="%d">%s</text>' % (y + 12, html.escape(label[:32])))
        for e in slices:
            if (e["pid"], e["tid"]) != (pid, tid):
                continue
            col = "#d1495b" if e.get("cat") == "discarded" else "#a15c00" if e.get("cat") == "warmup" else "#2457a6"
            out.append('<rect x="%.1f" y="%d" width="%.2f" height="14" fill="%s"><title>%s</title></rect>'
                       % (x(e["ts"]), y, max(0.5, x(e["ts"] + e["dur"]) - x(e["ts"])), col, html.escape(e["name"])))
        y += 20
    for (pid, name), pts in sorted(counters.items()):
        lo, hi = min(v for _, v in pts), max(v for _, v in pts)
        span = (hi - lo) or 1
        path = " ".join("%.1f,%.1f" % (x(t), y + 30 - 28 * (v - lo) / span) for t, v in sorted(pts))
        out.append('<text x="4" y="%d">%s</text><polyline points="%s" fill="none" stroke="#17803d"/>'
                   '<text x="%d" y="%d" font-size="10">%g..%g</text>'
                   % (y + 20, html.escape(name[:30]), path, width - 16, y + 20, lo, hi))
        y += 40
    return ('<!DOCTYPE html><html><head><meta charset="utf-8"><title>trace.json (offline view)</title></head>'
            '<body style="font:12px sans-serif;margin:8px"><p>trace.json: %d events, %.1f ms laid out (kprof\'s '
            'offline view; open the file in Perfetto or chrome://tracing for the real viewer)</p>'
            '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d">%s</svg></body></html>'
            % (len(ev), end / 1000, width, y + 10, "".join(out)))


if __name__ == "__main__":
    sys.stdout.write(render(json.load(open(sys.argv[1]))))
