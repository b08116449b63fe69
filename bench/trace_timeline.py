#!/usr/bin/env python3
"""Prints a KPROF_TRACE file (src/core/trace.hpp) as one timeline: seconds from the first event,
the process (named by its "start <command>" event: kprof's own command, `__session` or `__runner`
under ncu, `__probe`; with its pid), the gap since that process's previous event, and the event.
The file is appended to: commands traced into one file show as one timeline (remove it between
commands to see one alone).

Usage: python3 bench/trace_timeline.py TRACE [--from-event TEXT] [--grep TEXT]
  --from-event TEXT  time zero at the first event containing TEXT (default: the first event)
  --grep TEXT        only events containing TEXT (the gaps still count every event)
Exit: 0; 1 when --grep or --from-event matches no event (it says so); 2 when the file is missing or
holds no event.
"""
import argparse
import sys


def read_events(path):
    """[(t_s, pid, text)] in time order; lines that do not parse are skipped."""
    events = []
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 2)
            if len(parts) < 3:
                continue
            try:
                events.append((float(parts[0]), int(parts[1]), parts[2]))
            except ValueError:
                continue
    events.sort(key=lambda e: e[0])
    return events


def process_names(events):
    """pid -> "kprof run", "__session", ... from each process's first "start X" event."""
    names = {}
    for _, pid, text in events:
        if pid not in names and text.startswith("start "):
            names[pid] = text[len("start "):]
    return names


def timeline(events, t0, only=None):
    """The lines of the timeline."""
    names = process_names(events)
    last = {}
    lines = []
    for t, pid, text in events:
        gap = t - last.get(pid, t)
        last[pid] = t
        if only and only not in text:
            continue
        who = f"{names.get(pid, '?')}[{pid}]"
        lines.append(f"{t - t0:8.3f}  {who:>18}  +{gap:6.3f}  {text}")
    return lines


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("trace")
    p.add_argument("--from-event", default=None)
    p.add_argument("--grep", default=None)
    a = p.parse_args(argv)
    try:
        events = read_events(a.trace)
    except OSError as e:
        print(f"cannot read {a.trace}: {e}", file=sys.stderr)
        return 2
    if not events:
        print(f"{a.trace} holds no event", file=sys.stderr)
        return 2
    t0 = events[0][0]
    if a.from_event:
        t0 = next((t for t, _, text in events if a.from_event in text), None)
        if t0 is None:
            print(f"no event of {a.trace} contains {a.from_event!r}", file=sys.stderr)
            return 1
    lines = timeline(events, t0, a.grep)
    if not lines:
        print(f"no event of {a.trace} contains {a.grep!r}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
