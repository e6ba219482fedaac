"""Logcat: the device's log buffers, read from threadtime text and printed as logcat prints.

Line format (`-v threadtime`, liblog's logprint): `MM-DD HH:MM:SS.mmm  PID  TID L TAG     : msg`
with PID and TID right-aligned in 5 columns and the tag left-aligned in 8. A message with
several lines is printed as several lines, each with the same prefix.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

LEVELS = "VDIWEFS"
DEFAULT_BUFFERS = ("main", "system", "crash")
ALL_BUFFERS = ("main", "radio", "events", "system", "crash", "kernel")
_THREADTIME = re.compile(
    r"^(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3})\s+(\d+)\s+(\d+) ([VDIWEFS]) (.*?)\s*: ?(.*)$"
)


@dataclass(frozen=True)
class LogEntry:
    seq: int
    when: datetime
    pid: int
    tid: int
    level: str
    tag: str
    message: str
    buffer: str


def format_entry(entry: LogEntry, fmt: str = "threadtime") -> str:
    stamp = entry.when.strftime("%m-%d %H:%M:%S.") + f"{entry.when.microsecond // 1000:03d}"
    lines = entry.message.split("\n")
    if fmt == "brief":
        prefix = f"{entry.level}/{entry.tag:<8}({entry.pid:5d}): "
    elif fmt == "time":
        prefix = f"{stamp} {entry.level}/{entry.tag:<8}({entry.pid:5d}): "
    elif fmt == "tag":
        prefix = f"{entry.level}/{entry.tag:<8}: "
    elif fmt == "process":
        prefix = f"{entry.level}({entry.pid:5d}) "
    elif fmt == "raw":
        prefix = ""
    else:
        prefix = f"{stamp} {entry.pid:5d} {entry.tid:5d} {entry.level} {entry.tag:<8}: "
    return "".join(prefix + line + "\n" for line in lines)


class LogStore:
    """All log buffers of the device; thread-safe, with a condition to follow new entries."""

    def __init__(self, year: int) -> None:
        self._year = year
        self._entries: list[LogEntry] = []
        self._seq = 0
        self.changed = threading.Condition()

    def load(self, buffer: str, text: str) -> None:
        """Add entries from threadtime text (lines that are not log lines are skipped)."""
        parsed: list[LogEntry] = []
        for line in text.splitlines():
            match = _THREADTIME.match(line)
            if match is None:
                if parsed and line and not line.startswith("---------"):
                    last = parsed[-1]
                    parsed[-1] = LogEntry(
                        last.seq,
                        last.when,
                        last.pid,
                        last.tid,
                        last.level,
                        last.tag,
                        last.message + "\n" + line,
                        buffer,
                    )
                continue
            month, day, hour, minute, sec, milli, pid, tid, level, tag, message = match.groups()
            when = datetime(
                self._year,
                int(month),
                int(day),
                int(hour),
                int(minute),
                int(sec),
                int(milli) * 1000,
            )
            parsed.append(LogEntry(0, when, int(pid), int(tid), level, tag, message, buffer))
        with self.changed:
            merged = sorted(self._entries + parsed, key=lambda e: (e.when, e.seq))
            self._entries = []
            for entry in merged:
                self._seq += 1
                self._entries.append(
                    LogEntry(
                        self._seq,
                        entry.when,
                        entry.pid,
                        entry.tid,
                        entry.level,
                        entry.tag,
                        entry.message,
                        entry.buffer,
                    )
                )

    def add(
        self, buffer: str, when: datetime, *, pid: int, tid: int, level: str, tag: str, message: str
    ) -> None:
        with self.changed:
            self._seq += 1
            self._entries.append(LogEntry(self._seq, when, pid, tid, level, tag, message, buffer))
            self.changed.notify_all()

    def clear(self, buffers: Iterable[str]) -> None:
        wanted = set(buffers)
        with self.changed:
            self._entries = [e for e in self._entries if e.buffer not in wanted]

    def entries(self, buffers: Iterable[str], after_seq: int = 0) -> list[LogEntry]:
        wanted = set(buffers)
        with self.changed:
            return [e for e in self._entries if e.buffer in wanted and e.seq > after_seq]

    def wait_for_more(self, after_seq: int, timeout: float) -> None:
        with self.changed:
            if not self._entries or self._entries[-1].seq <= after_seq:
                self.changed.wait(timeout)

    def size(self, buffer: str) -> int:
        with self.changed:
            return sum(len(format_entry(e)) for e in self._entries if e.buffer == buffer)


@dataclass(frozen=True)
class TagFilter:
    """logcat's filterspecs: `TAG:LEVEL` pairs and a default level (`*:LEVEL`, `-s` = silent)."""

    tags: dict[str, str]
    default: str

    @classmethod
    def from_specs(cls, specs: Iterable[str], *, silent: bool) -> TagFilter:
        tags: dict[str, str] = {}
        default = "S" if silent else "V"
        for spec in specs:
            tag, _, level = spec.rpartition(":") if ":" in spec else (spec, "", "V")
            level = (level or "V").upper()[:1]
            if level not in LEVELS:
                raise ValueError(spec)
            if tag == "*":
                default = level
            else:
                tags[tag] = level
        return cls(tags, default)

    def allows(self, entry: LogEntry) -> bool:
        minimum = self.tags.get(entry.tag, self.default)
        return minimum != "S" and LEVELS.index(entry.level) >= LEVELS.index(minimum)
