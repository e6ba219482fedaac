"""A trace directory on disk: what the writer puts down and the viewer reads back.

    DIR/                      created 0700
      trace.jsonl             line 1: the header; then one line per finished tool call
      shots/000003-before.webp, 000003-after.webp, ...

Line 1 is ``{"format": "adbwire-trace", "version": 1, "created": ..., "budget_bytes": ...}``.
Each step line is ``{"kind": "step", "index": N, ...}`` (`StepRecord` lists the keys); the
last line may be ``{"kind": "end", "steps": N, "dropped_steps": M}``. Steps are written as
they finish, so concurrent calls can be out of order: readers sort by ``index`` (the order the
calls arrived in).

A trace is read as untrusted input (it may have been edited, or cut by a crash): lines past
`MAX_LINE_BYTES` and lines that are not whole JSON objects are skipped, at most `MAX_STEPS`
steps are read, and screenshot names must match `SHOT_NAME` (no path leaves the directory).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from adbwire.errors import UsageError

FORMAT = "adbwire-trace"
VERSION = 1
TRACE_FILE = "trace.jsonl"
SHOTS_DIR = "shots"
SHOT_NAME = re.compile(r"^shots/\d{6}-(?:before|after)\.(?:webp|png)$")
MIME_TYPES = {"webp": "image/webp", "png": "image/png"}
MAX_LINE_BYTES = 1024 * 1024
MAX_STEPS = 20_000
MAX_TRACE_BYTES = 64 * 1024 * 1024
MAX_SHOT_BYTES = 4 * 1024 * 1024
CRASH_CODES = frozenset({"app_crashed", "app_not_responding"})


def shot_name(index: int, moment: str, extension: str) -> str:
    return f"{SHOTS_DIR}/{index:06d}-{moment}.{extension}"


@dataclass
class Trace:
    """A trace as read back: its header, its steps in call order, and what was lost."""

    directory: Path
    header: dict[str, Any]
    steps: list[dict[str, Any]]
    dropped_steps: int = 0
    """Calls not written because the size budget was spent."""
    skipped_lines: int = 0
    """Lines that were not whole JSON objects (a cut last line, an edited file)."""
    notes: list[str] = field(default_factory=list)

    def shot_path(self, name: object) -> Path | None:
        """The file of a screenshot a step names, if the name is one the writer makes and
        the file is still there (the budget drops the oldest)."""
        if not isinstance(name, str) or not SHOT_NAME.match(name):
            return None
        path = self.directory / name
        if not path.is_file() or path.is_symlink():
            return None
        inside = path.resolve().parent == (self.directory / SHOTS_DIR).resolve()
        return path if inside and not (self.directory / SHOTS_DIR).is_symlink() else None


def find_trace(path: Path) -> Path:
    """The trace directory `path` names: itself, or the newest trace directly inside it
    (``adbwire serve --trace DIR`` writes one per run)."""
    if (path / TRACE_FILE).is_file():
        return path
    if not path.is_dir():
        raise UsageError(f"{path}: no such trace directory")
    inside = [child for child in path.iterdir() if (child / TRACE_FILE).is_file()]
    if not inside:
        raise UsageError(f"{path}: not a trace (no {TRACE_FILE} in it or in a directory inside)")
    return max(inside, key=lambda child: ((child / TRACE_FILE).stat().st_mtime, child.name))


def read_trace(path: Path) -> Trace:
    directory = find_trace(path)
    file = directory / TRACE_FILE
    if file.stat().st_size > MAX_TRACE_BYTES:
        raise UsageError(f"{file}: larger than {MAX_TRACE_BYTES} bytes; not read")
    header: dict[str, Any] | None = None
    trace = Trace(directory, {}, [])
    with file.open("rb") as handle:
        for raw in _bounded_lines(handle):
            record = None if raw is None else _record(raw)
            if record is None:
                trace.skipped_lines += 1
            elif header is None:
                if record.get("format") != FORMAT:
                    raise UsageError(f"{file}: not an adbwire trace (line 1 has no format)")
                header = record
            elif record.get("kind") == "step" and _is_index(record.get("index")):
                if len(trace.steps) < MAX_STEPS:
                    trace.steps.append(record)
                else:
                    trace.dropped_steps += 1
            elif record.get("kind") == "end" and _is_index(record.get("dropped_steps")):
                trace.dropped_steps += record["dropped_steps"]
            else:
                trace.skipped_lines += 1
    if header is None:
        raise UsageError(f"{file}: empty; not an adbwire trace")
    if header.get("version") != VERSION:
        trace.notes.append(f"trace format version {header.get('version')!r}; this reads {VERSION}")
    trace.header = header
    trace.steps.sort(key=lambda step: int(step["index"]))
    return trace


def _bounded_lines(handle: BinaryIO) -> Iterator[bytes | None]:
    """Each line, or None for one longer than `MAX_LINE_BYTES` (skipped, never held)."""
    while raw := handle.readline(MAX_LINE_BYTES + 1):
        if len(raw) <= MAX_LINE_BYTES:
            yield raw
            continue
        while raw and not raw.endswith(b"\n"):
            raw = handle.readline(MAX_LINE_BYTES + 1)
        yield None


def _record(raw: bytes) -> dict[str, Any] | None:
    if not raw.endswith(b"\n"):  # the last line of a trace cut by a crash
        return None
    try:
        found = json.loads(raw)
    except ValueError:  # UnicodeDecodeError is a ValueError too
        return None
    return found if isinstance(found, dict) else None


def _is_index(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**31
