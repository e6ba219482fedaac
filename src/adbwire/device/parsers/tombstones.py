"""Native crashes as debuggerd / crash_dump print them to logcat (tag ``DEBUG``).

A tombstone in the log starts with a line of ``*** *** ***`` and carries, among register
dumps and memory maps, the lines an agent needs::

    pid: 29478, tid: 29502, name: xample.notes.db  >>> com.example.notes.db <<<
    signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0000000000000000
    Cause: null pointer dereference            (Android 9+)
    Abort message: 'FORTIFY: ...'              (after abort())
    backtrace:
          #00 pc 0000000000002fb0  /data/app/~~x/lib/arm64/libx.so (f()+12) (BuildId: ...)

Every line of one tombstone comes from one crash_dump (or debuggerd) process, whose pid is
the log entry's pid; the crashed process is named in the ``pid:`` line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from adbwire.device.parsers.logcat import LogEntry

MAX_FRAMES = 64
_START = re.compile(r"^\*\*\* \*\*\* \*\*\*")
# "pid: 876, tid: 876  >>> /system/bin/mediaserver <<<" before Android 5 (no "name:")
_PID = re.compile(
    r"^pid: (?P<pid>\d+), tid: (?P<tid>\d+)(?:, name: (?P<thread>.*?))?\s+>>> (?P<process>.*?) <<<"
)
_SIGNAL = re.compile(
    r"^signal (?P<signo>\d+) \((?P<signal>SIG\w+)\)(?:, code (?P<code>[^,]*))?"
    r"(?:, fault addr (?P<addr>\S+))?"
)
_FRAME = re.compile(r"^\s*#(?P<index>\d{2,}) (?:pc )?")
_CAUSE = re.compile(r"^Cause: (?P<cause>.*)$")
_ABORT = re.compile(r"^Abort message: '?(?P<message>.*?)'?$")
_CODE_NAME = re.compile(r"\((\w+)\)")


@dataclass
class Tombstone:
    """One native crash report read from the log."""

    head: LogEntry
    pid: int | None = None
    tid: int | None = None
    thread: str | None = None
    process: str | None = None
    signal: str | None = None
    code: str | None = None
    fault_addr: str | None = None
    cause: str | None = None
    abort_message: str | None = None
    frames: list[str] = field(default_factory=list)
    in_backtrace: bool = False

    def feed(self, message: str) -> None:
        line = message.strip()
        if (match := _PID.match(line)) is not None and self.pid is None:
            self.pid, self.tid = int(match.group("pid")), int(match.group("tid"))
            self.thread, self.process = match.group("thread"), match.group("process").strip()
        elif (match := _SIGNAL.match(line)) is not None and self.signal is None:
            self.signal, self.code = match.group("signal"), match.group("code")
            self.fault_addr = match.group("addr")
        elif (match := _CAUSE.match(line)) is not None and self.cause is None:
            self.cause = match.group("cause")
        elif (match := _ABORT.match(line)) is not None and self.abort_message is None:
            self.abort_message = match.group("message")
        elif line == "backtrace:":
            self.in_backtrace = not self.frames
        elif self.in_backtrace and _FRAME.match(line):
            if len(self.frames) < MAX_FRAMES:
                self.frames.append(line)
        elif self.in_backtrace and line:
            self.in_backtrace = False  # the stack, memory maps... that follow are not frames

    @property
    def summary(self) -> str:
        """What went wrong beside the signal, in one line: its code, the fault address and
        the cause or abort message (``SEGV_MAPERR, fault addr 0x0: null pointer ...``)."""
        parts: list[str] = []
        if self.code:
            named = _CODE_NAME.search(self.code)
            parts.append(named.group(1) if named else f"code {self.code}")
        if self.fault_addr and self.fault_addr != "--------":
            parts.append(f"fault addr {self.fault_addr}")
        text = ", ".join(parts)
        reason = self.abort_message or self.cause
        if not reason:
            return text
        return f"{text}: {reason}" if text else reason


def find_tombstones(entries: Sequence[LogEntry]) -> list[tuple[int, Tombstone]]:
    """Tombstones in ``entries`` with the index of their first line, oldest first."""
    found: list[tuple[int, Tombstone]] = []
    open_ones: dict[int, Tombstone] = {}
    for index, entry in enumerate(entries):
        if entry.tag != "DEBUG" or entry.level not in "IWEF":  # debuggerd used I until 4.x
            continue
        line = entry.message.strip()
        current = open_ones.get(entry.pid)
        # A tombstone whose "***" line was cut off (ring buffer, excerpt) starts at "pid:".
        starts = _START.match(line) or (
            _PID.match(line) and (current is None or current.pid is not None)
        )
        if starts:
            current = open_ones[entry.pid] = Tombstone(entry)
            found.append((index, current))
        if current is not None:
            current.feed(line)
    return [(index, t) for index, t in found if t.pid is not None]
