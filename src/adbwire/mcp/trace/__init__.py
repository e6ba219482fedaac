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

if TYPE_CHECKING:
    from adbwire.mcp.trace.recorder import TraceRecorder


def new_trace_dir(parent: Path, prefix: str = "") -> Path:
    """A fresh directory name under `parent` for one run: ``[prefix-]YYYYmmdd-HHMMSS-PID``."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    name = f"{prefix}-{stamp}-{os.getpid()}" if prefix else f"{stamp}-{os.getpid()}"
    candidate, number = parent / name, 1
    while candidate.exists():
        number += 1
        candidate = parent / f"{name}-{number}"
    return candidate


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
