"""Session traces: what an agent did, call by call, and a page to look at it (docs/trace.md).

- `format`: the directory's layout and a bounded reader;
- `writer`: the private directory, the JSON lines, screenshots within a size budget;
- `extract`: what is kept of a result (bounded, secrets scrubbed, target, log, crash);
- `recorder`: the hooks ``mcp/runtime.py`` calls per tool call (`app.trace`);
- `viewer` and `page`: ``adbwire trace show``'s self-contained HTML.

Only the recorder needs the device and MCP layers; ``adbwire trace show`` imports the
format and the viewer alone.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from adbwire.errors import UsageError

if TYPE_CHECKING:
    from adbwire.mcp.trace.recorder import TraceRecorder


def new_trace_dir(parent: Path, prefix: str = "") -> Path:
    """A fresh directory for one run, made now (0700, so two runs in the same second never
    share one): ``parent/[prefix-]YYYYmmdd-HHMMSS-PID[-N]``."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    name = f"{prefix}-{stamp}-{os.getpid()}" if prefix else f"{stamp}-{os.getpid()}"
    parent.mkdir(parents=True, exist_ok=True)
    for number in range(1, 1000):
        candidate = parent / (name if number == 1 else f"{name}-{number}")
        try:
            candidate.mkdir(mode=0o700)
        except FileExistsError:
            continue
        return candidate
    raise UsageError(f"{parent}: no free name for a new trace directory")


def start_trace(
    directory: Path,
    budget_bytes: int | None = None,
    *,
    source: str = "api",
    title: str | None = None,
) -> TraceRecorder:
    """A recorder writing into `directory` (new or empty; created 0700)."""
    from adbwire.mcp.trace.recorder import TraceRecorder  # noqa: PLC0415 - device layer
    from adbwire.mcp.trace.writer import DEFAULT_BUDGET_BYTES, TraceWriter  # noqa: PLC0415

    writer = TraceWriter(
        directory, budget_bytes=budget_bytes or DEFAULT_BUDGET_BYTES, source=source, title=title
    )
    return TraceRecorder(writer)
