"""What a push or pull reports: per-file outcomes, per-source totals, progress callbacks.

A multi-file transfer never stops silently at the first failing file: every file ends up
in `transferred`, `failed` or `skipped`, and `TransferResult.ok` says whether all went.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from adbwire.errors import AdbwireError

ProgressCallback = Callable[[int, "int | None"], None]
"""Called as `(bytes_done, bytes_total)` while data moves; total is None when unknown."""


@dataclass(frozen=True)
class FileTransferred:
    source: str
    destination: str
    size: int


@dataclass(frozen=True)
class FileFailed:
    source: str
    destination: str
    error: AdbwireError


@dataclass(frozen=True)
class FileSkipped:
    source: str
    destination: str
    reason: str
    expected: bool = False
    """True when skipping is what the caller asked for (up to date with sync_only)."""


@dataclass
class SourceSummary:
    """Totals for one source named by the caller (a file, or a directory and its tree)."""

    source: str
    files: int = 0
    skipped: int = 0
    failed: int = 0
    bytes: int = 0
    seconds: float = 0.0


@dataclass
class TransferResult:
    direction: str
    """"push" or "pull"."""
    transferred: list[FileTransferred] = field(default_factory=list)
    failed: list[FileFailed] = field(default_factory=list)
    skipped: list[FileSkipped] = field(default_factory=list)
    sources: list[SourceSummary] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failed

    @property
    def bytes_transferred(self) -> int:
        return sum(item.size for item in self.transferred)

    def raise_first(self) -> TransferResult:
        """Raise the first file's error if any file failed; else return self."""
        if self.failed:
            raise self.failed[0].error
        return self

    def summary(self, name: str = "") -> str:
        """adb's closing line: "N files pushed, M skipped. X MB/s (B bytes in Ts)"."""
        files = len(self.transferred)
        return summary_line(
            name,
            files,
            len(self.skipped),
            self.bytes_transferred,
            self.seconds,
            direction=self.direction,
        )


def summary_line(
    name: str, files: int, skipped: int, size: int, seconds: float, *, direction: str
) -> str:
    verb = "pushed" if direction == "push" else "pulled"
    prefix = f"{name}: " if name else ""
    line = f"{prefix}{files} file{'' if files == 1 else 's'} {verb}, {skipped} skipped."
    if size and seconds > 0:
        rate = size / seconds / (1024 * 1024)
        line += f" {rate:.1f} MB/s ({size} bytes in {seconds:.3f}s)"
    return line


class Ledger:
    """Bookkeeping shared by push and pull: outcomes, per-source totals, progress."""

    def __init__(self, direction: str, total: int | None, progress: ProgressCallback | None):
        self.result = TransferResult(direction)
        self.total = total
        self.done = 0
        self._progress = progress
        self._started = time.monotonic()
        self._by_source: dict[str, SourceSummary] = {}
        self._source_started: dict[str, float] = {}

    def begin_source(self, source: str) -> None:
        if source not in self._by_source:
            summary = SourceSummary(source)
            self._by_source[source] = summary
            self.result.sources.append(summary)
            self._source_started[source] = time.monotonic()

    def _close(self, source: str) -> SourceSummary:
        self.begin_source(source)
        summary = self._by_source[source]
        summary.seconds = time.monotonic() - self._source_started[source]
        return summary

    def transferred(self, root: str, source: str, destination: str, size: int) -> None:
        self.result.transferred.append(FileTransferred(source, destination, size))
        summary = self._close(root)
        summary.files += 1
        summary.bytes += size

    def failed(self, root: str, source: str, destination: str, error: AdbwireError) -> None:
        self.result.failed.append(FileFailed(source, destination, error))
        self._close(root).failed += 1

    def skipped(
        self, root: str, source: str, destination: str, reason: str, *, expected: bool = False
    ) -> None:
        self.result.skipped.append(FileSkipped(source, destination, reason, expected))
        self._close(root).skipped += 1

    def set_total(self, total: int) -> None:
        """The total became known (a pull's trees are walked while files move)."""
        self.total = total
        if self._progress is not None:
            self._progress(self.done, total)

    def advance(self, size: int) -> None:
        self.done += size
        if self._progress is not None:
            self._progress(self.done, self.total)

    def rewind(self, size: int) -> None:
        """Bytes sent for nothing (a file that will be sent again after a FAIL)."""
        self.done -= size

    def finish(self) -> TransferResult:
        self.result.seconds = time.monotonic() - self._started
        return self.result
