"""The ``kprof`` console script and ``python -m kprof``: the command line of the C++ core.

Exactly the executable's commands, options, reports and exit codes (0 success, 1 the checked thing
failed, 2 usage or input error), on this Python: its PyTorch, Triton and CuTe DSL run the
references and the Python kernels.
"""

from __future__ import annotations

import signal
import sys
from typing import List, Optional


def main(argv: Optional[List[str]] = None) -> int:
    """Runs ``kprof ARGS...`` in this process and exits with its code (never returns normally
    for a finished command: the core leaves through _Exit, as the executable does)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:
        # The version alone needs no C++: `kprof --version` answers in the time Python starts.
        from kprof._version import __version__

        print(f"kprof {__version__}")
        return 0
    if args[:1] == ["mcp"]:
        # The package's one command beyond the executable's: kprof's tools for MCP clients.
        if args[1:] in (["--help"], ["-h"]):
            print("Usage: kprof mcp\n\nServes kprof's commands as MCP tools on stdin/stdout (the MCP Python SDK 2:\n"
                  'pip install "kprof[mcp]"). Tools: env, check, profile and run (jobs, polled with job_status),\n'
                  "compare, analyze, findings. It takes no options; it ends when its client closes stdin.")
            return 0
        if args[1:]:
            print(f"error: kprof mcp takes no options or arguments (got {' '.join(args[1:])})\n"
                  "  hint: run `kprof mcp --help`", file=sys.stderr)
            sys.exit(2)
        from kprof import mcp_server

        mcp_server.main()
        return 0
    # The executable's signal dispositions: Ctrl-C ends kprof (and its process group) at once, a
    # closed pipe ends it quietly; Python's own handlers would wait for Python code that never
    # runs while the core works, and children would inherit SIGPIPE ignored.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    from kprof import _host

    core = _host.prepare(owns_stdout=True)
    sys.stdout.flush()
    code = core.main(["kprof"] + args)
    sys.exit(code)


if __name__ == "__main__":
    main()
