"""Crashes and ANRs found in parsed logcat entries.

Java crashes come from ``AndroidRuntime``'s ``FATAL EXCEPTION`` blocks; native crashes from
libc's ``Fatal signal`` line joined with the tombstone crash_dump writes under the tag
``DEBUG`` (its ``>>> process <<<`` name, signal, cause and ``#NN pc`` frames — see
``tombstones``); ANRs from ``ActivityManager: ANR in``. ``crash_history`` merges the three,
newest first. Every line is read in time linear in its length, and a crash keeps bounded
lines and a bounded stack, counting what it cut (``crash_stack``): the log is the device's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from adbwire.device.parsers.crash_stack import MAX_STACK_LINES, capped_line, kept_lines
from adbwire.device.parsers.logcat import LogEntry
from adbwire.device.parsers.tombstones import Tombstone, find_tombstones

_FATAL = re.compile(r"^FATAL EXCEPTION: (?P<thread>.*)$")
_PROCESS = re.compile(r"^Process: (?P<process>[^,\s]+), PID: (?P<pid>\d+)")
_EXCEPTION = re.compile(r"^(?P<type>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)(?::\s?(?P<msg>.*))?$")
# "Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0 in tid 6000 (RenderThread),
# pid 6000 (org.other.game)": read in three steps (`_native_names`), each linear.
_NATIVE = re.compile(r"^Fatal signal (?P<signo>\d+) \((?P<signal>SIG\w+)\)")
_NATIVE_PID = re.compile(r", pid (?P<pid>\d+) \((?P<process>[^)]*)\)")
_NATIVE_PID_OPEN = re.compile(r", pid \d+ \(")
_NATIVE_TID = re.compile(r"in tid (?P<tid>\d+) \((?P<thread>[^)]*)\)")
_ANR = re.compile(r"^ANR in (?P<process>\S+)(?: \((?P<component>[^)]*)\))?")

CrashKind = Literal["java", "native"]
COMM_LENGTH = 15
"""The kernel keeps 15 characters of a process name: libc's line names ``xample.notes.db``
for ``com.example.notes.db``."""


@dataclass(frozen=True)
class Crash:
    """A process death found in the log.

    ``exception_type``/``message`` are the top exception (or the signal for a native crash);
    ``root_cause_type``/``root_cause_message`` the last ``Caused by:``, which is usually what
    to fix. ``process`` is ``None`` for Java crashes on devices older than Android 4.4, which
    did not print it.
    """

    kind: CrashKind
    process: str | None
    pid: int
    thread: str | None
    exception_type: str
    message: str
    root_cause_type: str
    root_cause_message: str
    stack: tuple[str, ...]
    """Its stack as logged: at most `MAX_STACK_LINES` (native: `MAX_FRAMES`) lines, each cut
    at `MAX_LINE_CHARS` with a mark."""
    timestamp: str | None
    buffer: str | None
    lines_cut: int = 0
    """Stack lines past the limit, left out of `stack`."""


@dataclass(frozen=True)
class Anr:
    """An "Application Not Responding" report from the activity manager."""

    process: str
    component: str | None
    pid: int | None
    reason: str | None
    timestamp: str | None

    @property
    def kind(self) -> Literal["anr"]:
        return "anr"


def belongs_to(process: str | None, package: str | None) -> bool:
    """Whether a process named in the log is one of ``package``'s (``pkg``, ``pkg:svc``, or
    the kernel's 15-character tail of the name); any process when ``package`` is None."""
    if package is None:
        return True
    if process is None:
        return False
    if process == package or process.startswith(package + ":"):
        return True
    return len(process) == COMM_LENGTH and len(package) > COMM_LENGTH and package.endswith(process)


def find_crashes(entries: Sequence[LogEntry], package: str | None = None) -> list[Crash]:
    """Crashes in ``entries`` (oldest first in, **newest first** out), optionally for one
    package (its processes, including ``package:service`` ones).

    One pass: each process's ``AndroidRuntime`` E/F lines after its ``FATAL EXCEPTION`` are
    that crash's body, until a line of another level or the next FATAL of the process (other
    processes interleave freely). Time is linear in the entries, whatever a device logs."""
    return [
        crash
        for _, crash in reversed(_crashes_in_order(entries))
        if belongs_to(crash.process, package)
    ]


def _crashes_in_order(entries: Sequence[LogEntry]) -> list[tuple[int, Crash]]:
    """Every crash with the index of its first line, oldest first."""
    found: list[tuple[int, _JavaCrash | Crash]] = []
    open_crashes: dict[int, _JavaCrash] = {}
    for index, entry in enumerate(entries):
        if entry.tag == "AndroidRuntime":
            if entry.level not in "EF":
                open_crashes.pop(entry.pid, None)
            elif (fatal := _FATAL.match(entry.message)) is not None:
                crash = _JavaCrash(entry, fatal.group("thread"), [])
                open_crashes[entry.pid] = crash
                found.append((index, crash))
            elif (current := open_crashes.get(entry.pid)) is not None:
                current.body.append(entry.message)
        elif entry.tag == "libc" and entry.level in "EF":
            native = _native_crash(entry)
            if native is not None:
                found.append((index, native))
    crashes: list[tuple[int, Crash]] = []
    for index, item in found:
        made = item if isinstance(item, Crash) else _java_crash(item.head, item.thread, item.body)
        if made is not None:
            crashes.append((index, made))
    return _join_tombstones(crashes, find_tombstones(entries))


def _join_tombstones(
    crashes: list[tuple[int, Crash]], tombstones: list[tuple[int, Tombstone]]
) -> list[tuple[int, Crash]]:
    """Give each native crash its tombstone (same pid, the nearest after it); a tombstone
    without a libc line (cut off, or logged elsewhere) is a crash of its own, which a later
    tombstone of its pid may complete. Linear: each pid keeps the crashes still without a
    stack, as stacks (a hostile log can hold thousands of each)."""
    joined = list(crashes)
    libc_lines: dict[int, list[int]] = {}  # pid -> its libc crashes' places, newest first
    for place in range(len(joined) - 1, -1, -1):
        if joined[place][1].kind == "native" and not joined[place][1].stack:
            libc_lines.setdefault(joined[place][1].pid, []).append(place)
    reached: dict[int, list[int]] = {}  # pid -> libc crashes before this tombstone, unjoined
    own: dict[int, list[int]] = {}  # pid -> stackless crashes of a tombstone alone
    for t_index, tombstone in tombstones:  # oldest first
        pid = tombstone.pid or 0
        pending = libc_lines.get(pid, [])
        before = reached.setdefault(pid, [])
        while pending and joined[pending[-1]][0] <= t_index:
            before.append(pending.pop())
        candidates = own.get(pid) or before  # a tombstone alone comes later in `joined`
        if candidates:
            place = candidates[-1]
            index, crash = joined[place]
            joined[place] = (index, _tombstone_crash(tombstone, crash))
        else:
            place = len(joined)
            joined.append((t_index, _tombstone_crash(tombstone, None)))
            candidates = own.setdefault(pid, [])
            candidates.append(place)
        if joined[place][1].stack:
            candidates.pop()
    joined.sort(key=lambda pair: pair[0])
    return joined


def _tombstone_crash(tombstone: Tombstone, libc: Crash | None) -> Crash:
    signal = tombstone.signal or (libc.exception_type if libc else "native crash")
    return Crash(
        kind="native",
        process=tombstone.process or (libc.process if libc else None),
        pid=tombstone.pid or (libc.pid if libc else 0),
        thread=tombstone.thread or (libc.thread if libc else None),
        exception_type=signal,
        message=libc.message if libc else tombstone.summary,
        root_cause_type=signal,
        root_cause_message=tombstone.summary,
        stack=tuple(tombstone.frames),
        timestamp=libc.timestamp if libc else tombstone.head.timestamp,
        buffer=libc.buffer if libc else tombstone.head.buffer,
        lines_cut=tombstone.frames_cut,
    )


def last_crash(entries: Sequence[LogEntry], package: str | None = None) -> Crash | None:
    """The newest crash, optionally of ``package``; ``None`` when there is none."""
    crashes = find_crashes(entries, package)
    return crashes[0] if crashes else None


@dataclass
class _JavaCrash:
    """A Java crash being collected: its FATAL EXCEPTION line and the body so far."""

    head: LogEntry
    thread: str
    body: list[str]


def _java_crash(head: LogEntry, thread: str, body: list[str]) -> Crash | None:
    process: str | None = None
    if body and (match := _PROCESS.match(body[0])):
        process = match.group("process")
        body = body[1:]
    top = next((m for line in body if (m := _EXCEPTION.match(line.strip()))), None)
    if top is None:
        return None
    causes = [
        m
        for line in body
        if line.strip().startswith("Caused by: ")
        and (m := _EXCEPTION.match(line.strip()[len("Caused by: ") :]))
    ]
    root = causes[-1] if causes else top
    stack, cut = kept_lines(body, MAX_STACK_LINES)
    return Crash(
        kind="java",
        process=capped_line(process) if process is not None else None,
        pid=head.pid,
        thread=capped_line(thread.strip()) or None,
        exception_type=capped_line(top.group("type")),
        message=capped_line(top.group("msg") or ""),
        root_cause_type=capped_line(root.group("type")),
        root_cause_message=capped_line(root.group("msg") or ""),
        stack=stack,
        timestamp=head.timestamp,
        buffer=head.buffer,
        lines_cut=cut,
    )


def _native_crash(entry: LogEntry) -> Crash | None:
    head = _NATIVE.match(entry.message)
    if head is None:
        return None
    names = _native_names(entry.message, head.end())
    if names is None:
        return None
    pid, process, thread = names
    signal = capped_line(head.group("signal"))
    message = capped_line(entry.message)
    return Crash(
        kind="native",
        process=capped_line(process),
        pid=pid,
        thread=capped_line(thread) if thread is not None else None,
        exception_type=signal,
        message=message,
        root_cause_type=signal,
        root_cause_message=message,
        stack=(),
        timestamp=entry.timestamp,
        buffer=entry.buffer,
    )


def _native_names(message: str, start: int) -> tuple[int, str, str | None] | None:
    """The pid, process and thread libc names after `start`: the first ``, pid P (NAME)``,
    and the ``in tid T (THREAD)`` right before it, if any. Linear in the line: a ``(``
    without its ``)`` ends the search, since no later one can close (the single regular
    expression this replaces backtracked quadratically: 60 KB, 20 s)."""
    at = message.find(", pid ", start)
    while at != -1:
        pid = _NATIVE_PID.match(message, at)
        if pid is not None:
            break
        if _NATIVE_PID_OPEN.match(message, at) is not None:
            return None
        at = message.find(", pid ", at + 1)
    else:
        return None
    thread: str | None = None
    if message.endswith(")", start, at):
        after = message.rfind(")", start, at - 1) + 1  # THREAD holds no ")"
        tid = _NATIVE_TID.search(message, max(after, start), at)
        if tid is not None and tid.end() == at:
            thread = tid.group("thread")
    return int(pid.group("pid")), pid.group("process"), thread


def find_anrs(entries: Sequence[LogEntry], package: str | None = None) -> list[Anr]:
    """ANR reports (``ActivityManager: ANR in ...``), newest first, optionally for a package."""
    return [anr for _, anr in reversed(_anrs_in_order(entries)) if belongs_to(anr.process, package)]


def _anrs_in_order(entries: Sequence[LogEntry]) -> list[tuple[int, Anr]]:
    anrs: list[tuple[int, Anr]] = []
    for number, entry in enumerate(entries):
        if entry.tag != "ActivityManager" or entry.level not in "EWI":
            continue
        match = _ANR.match(entry.message)
        if match is None:
            continue
        details: dict[str, str] = {}
        for follower in entries[number + 1 : number + 40]:
            if follower.pid != entry.pid or follower.tag != "ActivityManager":
                continue
            key, _, value = follower.message.partition(": ")
            if key in ("PID", "Reason") and key not in details:
                details[key] = value.strip()
            if len(details) == 2 or _ANR.match(follower.message):
                break
        pid_text = details.get("PID", "")
        anr = Anr(
            process=match.group("process"),
            component=match.group("component"),
            pid=int(pid_text) if pid_text.isdigit() else None,
            reason=details.get("Reason"),
            timestamp=entry.timestamp,
        )
        anrs.append((number, anr))
    return anrs


def crash_history(entries: Sequence[LogEntry], package: str | None = None) -> list[Crash | Anr]:
    """Java crashes, native crashes and ANRs together, newest first, optionally of one
    package's processes."""
    events: list[tuple[int, Crash | Anr]] = [*_crashes_in_order(entries), *_anrs_in_order(entries)]
    events.sort(key=lambda pair: pair[0], reverse=True)
    return [event for _, event in events if belongs_to(event.process, package)]


# "Start proc 4123:com.example.notes/u0a190 for ...", "Killing 4123:com.example.notes/u0a190
# (adj 900): ...", "Process com.example.notes (pid 4123) has died: ..."
_PROCESS_EVENT = re.compile(
    r"^(?:Start proc |Killing )(?P<pid>\d+):(?P<process>[^/\s]+)/"
    r"|^Process (?P<process2>\S+) \(pid (?P<pid2>\d+)\) has died"
)


def started_processes(entries: Sequence[LogEntry]) -> list[str]:
    """Processes the activity manager started in ``entries`` (``Start proc``), in order."""
    started: list[str] = []
    for entry in entries:
        if entry.tag == "ActivityManager" and entry.message.startswith("Start proc "):
            match = _PROCESS_EVENT.match(entry.message)
            if match is not None and match.group("process"):
                started.append(match.group("process"))
    return started


def package_pids(entries: Sequence[LogEntry], package: str) -> set[int]:
    """Pids the log shows ``package``'s processes had: started, killed, died, crashed or not
    responding. A dead app's lines are found by these after ``pidof`` has nothing."""
    pids: set[int] = set()
    for entry in entries:
        if entry.tag not in ("ActivityManager", "ActivityTaskManager"):
            continue
        match = _PROCESS_EVENT.match(entry.message)
        if match is None:
            continue
        process = match.group("process") or match.group("process2")
        if belongs_to(process, package):
            pids.add(int(match.group("pid") or match.group("pid2")))
    for event in crash_history(entries, package):
        if event.pid:
            pids.add(event.pid)
    return pids
