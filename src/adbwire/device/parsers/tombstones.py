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
the log entry's pid; the crashed process is named in the ``pid:`` line. Each line is read in
time linear in its length (a hostile log line can be megabytes), and what is kept of it is
bounded (``crash_stack``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from adbwire.device.parsers.crash_stack import MAX_FRAMES, capped_line
from adbwire.device.parsers.logcat import LogEntry

_START = re.compile(r"^\*\*\* \*\*\* \*\*\*")
_PID_START = re.compile(r"^pid: (?P<pid>\d+), tid: (?P<tid>\d+)")
_NAME = ", name: "
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
    frames_cut: int = 0
    """Frames of the backtrace past `MAX_FRAMES`, left out."""
    in_backtrace: bool = False

    def feed(self, message: str) -> None:
        line = message.strip()
        if (named := _pid_line(line)) is not None and self.pid is None:
            self.pid, self.tid, thread, process = named
            self.thread = capped_line(thread) if thread is not None else None
            self.process = capped_line(process.strip())
        elif (match := _SIGNAL.match(line)) is not None and self.signal is None:
            code, addr = match.group("code"), match.group("addr")
            self.signal = capped_line(match.group("signal"))
            self.code = capped_line(code) if code is not None else None
            self.fault_addr = capped_line(addr) if addr is not None else None
        elif (match := _CAUSE.match(line)) is not None and self.cause is None:
            self.cause = capped_line(match.group("cause"))
        elif (match := _ABORT.match(line)) is not None and self.abort_message is None:
            self.abort_message = capped_line(match.group("message"))
        elif line == "backtrace:":
            self.in_backtrace = not self.frames
        elif self.in_backtrace and _FRAME.match(line):
            if len(self.frames) < MAX_FRAMES:
                self.frames.append(capped_line(line))
            else:
                self.frames_cut += 1
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
            _pid_line(line) is not None and (current is None or current.pid is not None)
        )
        if starts:
            current = open_ones[entry.pid] = Tombstone(entry)
            found.append((index, current))
        if current is not None:
            current.feed(line)
    return [(index, t) for index, t in found if t.pid is not None]


def _pid_line(line: str) -> tuple[int, int, str | None, str] | None:
    """pid, tid, thread and process of ``pid: P, tid: T, name: THREAD  >>> PROCESS <<<``
    (before Android 5: no name), found with `str.find`: a regular expression with two lazy
    fields backtracks quadratically over a line of many ``>>>`` (60 KB: 16 s)."""
    start = _PID_START.match(line)
    if start is None:
        return None
    thread: str | None = None
    if line.startswith(_NAME, start.end()):
        name_at = start.end() + len(_NAME)
        opening = line.find(">>> ", name_at + 1)
        while opening != -1 and not line[opening - 1].isspace():  # blanks before ">>>"
            opening = line.find(">>> ", opening + 1)
        if opening == -1:
            return None
        thread = line[name_at:opening].rstrip()
    else:
        opening = len(line) - len(line[start.end() :].lstrip())
        if opening == start.end() or not line.startswith(">>> ", opening):
            return None
    closing = line.find(" <<<", opening + 4)  # none after this ">>>": none after a later one
    if closing == -1:
        return None
    return int(start["pid"]), int(start["tid"]), thread, line[opening + 4 : closing]
