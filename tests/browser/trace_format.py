"""Checks a trace against the Chrome trace event format (the "JSON Object Format" that Perfetto and
chrome://tracing open): {"traceEvents": [...]} with, per event, a phase `ph`, `pid`/`tid`, and a
timestamp `ts` in microseconds (a number); complete events ("X") with a non-negative `dur`; counter
events ("C") with numeric `args`; metadata ("M") naming processes and threads; instants ("i") with a
scope. Returns the list of problems (empty: well-formed)."""

PHASES = {"X", "B", "E", "i", "I", "C", "M", "b", "e", "n", "s", "t", "f"}


def check_trace(doc):
    problems = []
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["not an object with a traceEvents array"]
    if doc.get("displayTimeUnit") not in (None, "ms", "ns"):
        problems.append("displayTimeUnit must be ms or ns")
    seen = set()
    for i, e in enumerate(doc["traceEvents"]):
        where = "event %d (%s)" % (i, e.get("name"))
        ph = e.get("ph")
        seen.add(ph)
        if ph not in PHASES:
            problems.append(where + ": unknown phase %r" % ph)
            continue
        if not isinstance(e.get("pid"), int):
            problems.append(where + ": pid is not an integer")
        if ph != "M" and not isinstance(e.get("ts"), (int, float)):
            problems.append(where + ": ts (microseconds) is not a number")
        if ph != "C" and ph != "M" and not isinstance(e.get("tid"), int):
            problems.append(where + ": tid is not an integer")
        if ph == "X" and not (isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0):
            problems.append(where + ": complete event without a non-negative dur")
        if ph == "C":
            args = e.get("args")
            if not isinstance(args, dict) or not args or not all(isinstance(v, (int, float)) for v in args.values()):
                problems.append(where + ": counter without numeric args")
        if ph == "M" and e.get("name") not in ("process_name", "thread_name", "process_sort_index",
                                               "thread_sort_index", "process_labels"):
            problems.append(where + ": unknown metadata event")
        if ph in ("i", "I") and e.get("s", "t") not in ("g", "p", "t"):
            problems.append(where + ": instant with a bad scope")
    for needed in ("X", "C", "M"):
        if needed not in seen:
            problems.append("no %r event (a run's trace has calls, counters and names)" % needed)
    return problems
