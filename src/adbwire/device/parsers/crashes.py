"""Crashes and ANRs found in parsed logcat entries."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from adbwire.device.parsers.logcat import LogEntry

_FATAL = re.compile(r"^FATAL EXCEPTION: (?P<thread>.*)$")
_PROCESS = re.compile(r"^Process: (?P<process>[^,\s]+), PID: (?P<pid>\d+)")
_EXCEPTION = re.compile(r"^(?P<type>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)(?::\s?(?P<msg>.*))?$")
_NATIVE = re.compile(
    r"^Fatal signal (?P<signo>\d+) \((?P<signal>SIG\w+)\).*?"
    r"(?:in tid (?P<tid>\d+) \((?P<thread>[^)]*)\))?, pid (?P<pid>\d+) \((?P<process>[^)]*)\)"
)
_ANR = re.compile(r"^ANR in (?P<process>\S+)(?: \((?P<component>[^)]*)\))?")

CrashKind = Literal["java", "native"]


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
    timestamp: str | None
    buffer: str | None


@dataclass(frozen=True)
class Anr:
    """An "Application Not Responding" report from the activity manager."""

    process: str
    component: str | None
    pid: int | None
    reason: str | None
    timestamp: str | None


def _belongs_to(process: str | None, package: str | None) -> bool:
    if package is None:
        return True
    return process is not None and (process == package or process.startswith(package + ":"))


def find_crashes(entries: Sequence[LogEntry], package: str | None = None) -> list[Crash]:
    """Crashes in ``entries`` (oldest first in, **newest first** out), optionally for one
    package (its processes, including ``package:service`` ones).

    One pass: each process's ``AndroidRuntime`` E/F lines after its ``FATAL EXCEPTION`` are
    that crash's body, until a line of another level or the next FATAL of the process (other
    processes interleave freely). Time is linear in the entries, whatever a device logs."""
    found: list[_JavaCrash | Crash] = []
    open_crashes: dict[int, _JavaCrash] = {}
    for entry in entries:
        if entry.tag == "AndroidRuntime":
            if entry.level not in "EF":
                open_crashes.pop(entry.pid, None)
            elif (fatal := _FATAL.match(entry.message)) is not None:
                crash = _JavaCrash(entry, fatal.group("thread"), [])
                open_crashes[entry.pid] = crash
                found.append(crash)
            elif (current := open_crashes.get(entry.pid)) is not None:
                current.body.append(entry.message)
        elif entry.tag == "libc" and entry.level in "EF":
            native = _NATIVE.match(entry.message)
            if native is not None:
                found.append(_native_crash(entry, native))
    crashes = [
        item if isinstance(item, Crash) else _java_crash(item.head, item.thread, item.body)
        for item in found
    ]
    return [
        crash
        for crash in reversed(crashes)
        if crash is not None and _belongs_to(crash.process, package)
    ]


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
    return Crash(
        kind="java",
        process=process,
        pid=head.pid,
        thread=thread.strip() or None,
        exception_type=top.group("type"),
        message=top.group("msg") or "",
        root_cause_type=root.group("type"),
        root_cause_message=root.group("msg") or "",
        stack=tuple(body),
        timestamp=head.timestamp,
        buffer=head.buffer,
    )


def _native_crash(entry: LogEntry, match: re.Match[str]) -> Crash:
    signal = match.group("signal")
    return Crash(
        kind="native",
        process=match.group("process"),
        pid=int(match.group("pid")),
        thread=match.group("thread"),
        exception_type=signal,
        message=entry.message,
        root_cause_type=signal,
        root_cause_message=entry.message,
        stack=(),
        timestamp=entry.timestamp,
        buffer=entry.buffer,
    )


def find_anrs(entries: Sequence[LogEntry], package: str | None = None) -> list[Anr]:
    """ANR reports (``ActivityManager: ANR in ...``), newest first, optionally for a package."""
    anrs: list[Anr] = []
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
        anrs.append(
            Anr(
                process=match.group("process"),
                component=match.group("component"),
                pid=int(pid_text) if pid_text.isdigit() else None,
                reason=details.get("Reason"),
                timestamp=entry.timestamp,
            )
        )
    return [anr for anr in reversed(anrs) if _belongs_to(anr.process, package)]
