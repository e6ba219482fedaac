"""Measurement 5: from spawning `adbwire serve --simulate` to the first tools/list answer.

The MCP client's first three messages (initialize, initialized, tools/list) are written to
the server's stdin at once, as a client would send them without waiting; the clock stops
when the tools/list reply line arrives on stdout. `python -c pass` is timed the same way
as a reference for what the interpreter alone costs on this machine.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.cold_start import first_tools_list

WAIT = 60.0


def serve_unavailable_reason() -> str | None:
    try:
        from adbwire.cli.main import build_parser  # noqa: PLC0415
    except ImportError as exc:
        return f"pending: adbwire.cli.main does not import ({exc})"
    actions = [a for a in build_parser()._actions if a.dest == "command"]
    if not actions or "serve" not in (actions[0].choices or {}):
        return "pending: `adbwire serve` is not registered in adbwire.cli.main yet"
    return None


def _first_tools_list(scratch: Path) -> tuple[float, int]:
    environment = {
        "HOME": str(scratch / "home"),
        "XDG_STATE_HOME": str(scratch / "state"),
        "PATH": os.environ.get("PATH", ""),
    }
    argv = [sys.executable, "-m", "adbwire", "serve", "--simulate", "--no-audit"]
    elapsed, reply = first_tools_list(argv, environment)
    return elapsed, len(reply["result"]["tools"])


def _bare_interpreter() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True, timeout=WAIT)
    return time.perf_counter() - started


def run(scratch: Path, runs: int) -> dict[str, object]:
    pending = serve_unavailable_reason()
    if pending is not None:
        return {"pending": pending}
    seconds: list[float] = []
    interpreter: list[float] = []
    tools = 0
    for _ in range(runs):  # interleaved with the bare interpreter start
        interpreter.append(_bare_interpreter())
        elapsed, tools = _first_tools_list(scratch)
        seconds.append(elapsed)
    return {
        "runs_s": seconds,
        "median_s": statistics.median(seconds),
        "tools_listed": tools,
        "python_c_pass_median_s": statistics.median(interpreter),
    }
