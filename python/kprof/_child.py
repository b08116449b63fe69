"""Running one kprof command in a child process of this interpreter (``sys.executable -m kprof``).

GPU work never runs in the caller's process: a kernel fault, a sticky CUDA error or a hang ends the
child, not the caller's PyTorch. The child is the leader of its own process group, so Ctrl-C in the
caller stops the child and everything it started (ncu, nvcc, compute-sanitizer) and then raises
KeyboardInterrupt as usual.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, IO, List, Optional, Set, Union

from kprof._errors import UsageError

#: Seconds a child gets after SIGINT (then SIGTERM, then SIGKILL) when the caller is interrupted.
INTERRUPT_GRACE_S = 10.0

#: The children running now (the MCP server stops them all when its client goes away).
_ACTIVE: Set[subprocess.Popen] = set()
_ACTIVE_LOCK = threading.Lock()

Progress = Union[bool, Callable[[str], None]]


@dataclass
class ChildResult:
    """The end of one child: exit code (0, 1, 2; negative: killed by that signal), its stdout,
    the last lines of its stderr, and the last error it reported (message, hint) if any."""

    exit_code: int
    stdout: str
    stderr_tail: List[str] = field(default_factory=list)
    error_message: str = ""
    error_hint: str = ""
    #: The child's outcome document (core/outcome.hpp): {exit_code, command, report: {path,
    #: content} | None, error: {message, hint} | None}; None when the child wrote none (killed).
    outcome: Optional[Dict[str, Any]] = None


def _echo(lines: List[str]) -> None:
    try:
        for line in lines:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except Exception:  # a closed notebook stream must not stop the pump
        pass


def _pump(stream: IO[bytes], tail: List[str], progress: Progress, held: List[str]) -> None:
    """Reads the child's stderr lines into ``tail`` and hands them to ``progress``. Echoed (True), an
    error's lines ("error: ..." and its indented hint) wait in ``held`` until another line comes: the
    last error is echoed by run_kprof only when it is not raised (a usage error's exception carries it)."""
    for raw in iter(stream.readline, b""):
        line = raw.decode("utf-8", "replace").rstrip("\n")
        tail.append(line)
        del tail[:-40]
        if callable(progress):
            try:
                progress(line)
            except Exception:  # a closed notebook stream must not stop the pump
                pass
        elif progress:
            if line.startswith("error: ") or (held and line.startswith("  ")):
                held.append(line)
                continue
            _echo(held + [line])
            del held[:]
    stream.close()


def stop_all() -> None:
    """Stops every child still running (SIGINT, SIGTERM, SIGKILL to its process group)."""
    with _ACTIVE_LOCK:
        procs = list(_ACTIVE)
    for proc in procs:
        _stop(proc)


def _stop(proc: subprocess.Popen) -> None:
    for sig, wait_s in ((signal.SIGINT, INTERRUPT_GRACE_S), (signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait_s)
            return
        except subprocess.TimeoutExpired:
            continue


def run_kprof(argv: List[str], *, progress: Progress = True, timeout: Optional[float] = None,
              env: Optional[dict] = None) -> ChildResult:
    """Runs ``kprof ARGV...`` as ``sys.executable -m kprof`` and waits for it.

    ``progress``: kprof's progress lines (stderr) are echoed to ``sys.stderr`` as they come (True; the
    error of a child that exits 2 is not: the caller raises it as UsageError),
    handed to a callable, or only kept (False; the last 40 lines either way). ``timeout``: seconds
    before the child is stopped (its process group: SIGINT, SIGTERM, SIGKILL) and ``TimeoutError``
    raised; None waits.
    Raises KeyboardInterrupt after stopping the child when the caller is interrupted.
    """
    fd, error_file = tempfile.mkstemp(prefix="kprof-error-", suffix=".jsonl")
    os.close(fd)
    outcome_file = error_file[:-len(".jsonl")] + ".outcome.json"
    child_env = dict(os.environ if env is None else env)
    child_env["KPROF_ERROR_FILE"] = error_file
    child_env["KPROF_OUTCOME_FILE"] = outcome_file  # one request in, one outcome document out
    child_env.setdefault("PYTHONUNBUFFERED", "1")
    tail: List[str] = []
    held: List[str] = []  # the child's last error lines, not echoed yet (_pump)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "kprof", *argv], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env,
                                start_new_session=True)
        with _ACTIVE_LOCK:
            _ACTIVE.add(proc)
        pump = threading.Thread(target=_pump, args=(proc.stderr, tail, progress, held), daemon=True)
        pump.start()
        out_chunks: List[bytes] = []
        reader = threading.Thread(target=lambda: out_chunks.append(proc.stdout.read()), daemon=True)
        reader.start()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _stop(proc)
            raise TimeoutError(f"kprof {' '.join(argv[:1])} ran past its wall-clock limit of {timeout:g} s "
                               "(wall_timeout_s) and was stopped, with everything it started; no report of "
                               "this call is returned")
        except KeyboardInterrupt:
            _stop(proc)
            raise
        finally:
            with _ACTIVE_LOCK:
                _ACTIVE.discard(proc)
        reader.join()
        pump.join()
        if proc.returncode != 2:  # exit 2 raises UsageError, whose message this is: not printed twice
            _echo(held)
        stdout = b"".join(out_chunks).decode("utf-8", "replace")
        message, hint = _last_error(error_file)
        return ChildResult(proc.returncode, stdout, tail, message, hint, read_outcome(outcome_file))
    finally:
        for path in (error_file, outcome_file):
            try:
                os.unlink(path)
            except OSError:
                pass


def read_outcome(path: str) -> Optional[Dict[str, Any]]:
    """The outcome document a child wrote at ``path`` (None when it wrote none: it was killed)."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and "exit_code" in doc else None


def _last_error(path: str) -> tuple:
    try:
        with open(path, encoding="utf-8") as f:
            lines = [ln for ln in f.read().splitlines() if ln.strip()]
    except OSError:
        return "", ""
    for line in reversed(lines):
        try:
            err = json.loads(line)
            return err.get("message", ""), err.get("hint", "")
        except ValueError:
            continue
    return "", ""


def raise_usage(result: ChildResult, argv: List[str]) -> None:
    """Raises UsageError for a child that exited 2, with kprof's message and hint."""
    message = result.error_message or next((ln for ln in reversed(result.stderr_tail) if ln.strip()),
                                           "kprof exited with a usage error")
    raise UsageError(message, result.error_hint, argv=argv)
