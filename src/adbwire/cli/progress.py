"""Transfer feedback for push and pull: a progress line on a terminal, quiet otherwise, and
adb's closing lines ("N files pushed, M skipped. X MB/s (B bytes in Ts)").

Labels, file names and device messages are shown through `terminal_text.visible`, so a
name with escape sequences or a carriage return cannot take over the terminal."""

from __future__ import annotations

import shutil
import sys
import time
from typing import TextIO

from adbwire.cli.terminal_text import visible
from adbwire.wire.services.sync import TransferResult
from adbwire.wire.services.sync.results import summary_line

REDRAW_INTERVAL = 0.1
MIB = 1024 * 1024


class ProgressLine:
    """A `(bytes_done, bytes_total)` callback that redraws one terminal line.

    It draws only when `stream` is a terminal (or `enabled=True`), at most every 100 ms,
    and `finish()` erases the line so the summary that follows starts clean.
    """

    def __init__(
        self, label: str, stream: TextIO | None = None, *, enabled: bool | None = None
    ) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = _is_terminal(self.stream) if enabled is None else enabled
        # The clock starts with the transfer (the first callback), not when the line is made:
        # connecting and authorizing are no part of the rate, as in the closing summary.
        self._started: float | None = None
        self._last_draw = 0.0
        self._drawn = False

    def __call__(self, done: int, total: int | None) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if self._started is None:
            self._started = now
        if now - self._last_draw < REDRAW_INTERVAL and done != total:
            return
        self._last_draw = now
        self._draw(render(self.label, done, total, now - self._started))

    def _draw(self, text: str) -> None:
        width = shutil.get_terminal_size((80, 24)).columns - 1
        self.stream.write("\r" + visible(text)[:width].ljust(width))
        self.stream.flush()
        self._drawn = True

    def finish(self) -> None:
        if self._drawn:
            width = shutil.get_terminal_size((80, 24)).columns - 1
            self.stream.write("\r" + " " * width + "\r")
            self.stream.flush()
            self._drawn = False


def render(label: str, done: int, total: int | None, seconds: float) -> str:
    """`[ 42%] label: 26.9/64.0 MiB, 85.2 MB/s` (`[   ?]` and no total when unknown)."""
    if total:
        percent = f"{min(100, done * 100 // total):3d}%"
        amount = f"{done / MIB:.1f}/{total / MIB:.1f} MiB"
    else:
        percent = "   ?"
        amount = f"{done / MIB:.1f} MiB"
    rate = f", {done / seconds / MIB:.1f} MB/s" if seconds > 0 and done else ""
    return f"[{percent}] {label}: {amount}{rate}"


def report(result: TransferResult, *, quiet: bool, out: TextIO, err: TextIO) -> int:
    """Print skipped files, failures and adb's summary lines; the exit status (0 or 1)."""
    verb = "push" if result.direction == "push" else "pull"
    for skipped in result.skipped:
        if not skipped.expected:
            print(visible(f"adbwire: warning: skipping {skipped.reason}"), file=err)
    for failed in result.failed:
        line = (
            f"adbwire: error: failed to {verb} '{failed.source}' to '{failed.destination}': "
            f"{failed.error}"
        )
        print(visible(line, multiline=True), file=err)
    if not quiet:
        for source in result.sources:
            line = summary_line(
                source.source,
                source.files,
                source.skipped,
                source.bytes,
                source.seconds,
                direction=result.direction,
            )
            print(visible(line), file=out)
        if len(result.sources) > 1:
            print(visible(result.summary()), file=out)
    return 0 if result.ok else 1


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
