"""Reading and clearing logcat, and the crash history of an app.

A package filter keeps working after the app died: its pids are those running now, those
this process saw running (``pids_of`` remembers them per device), and those the log itself
names (``Start proc``, ``has died``, crash reports — ``parsers.crashes.package_pids``).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from adbwire.device import commands, validate
from adbwire.device.parsers import (
    Anr,
    Crash,
    LogEntry,
    crash_history,
    level_at_least,
    parse_logcat,
)
from adbwire.device.parsers.crashes import package_pids, started_processes
from adbwire.errors import CommandFailedError, UsageError
from adbwire.wire.client import AdbClient

BUFFERS = ("main", "system", "crash", "events", "radio", "kernel")
LEVELS = ("V", "D", "I", "W", "E", "F")
DEFAULT_BUFFERS = ("main", "system", "crash")
MAX_SCAN_LINES = 20_000
REMEMBERED_PIDS = 32
"""Pids remembered per package and device (the newest); 256 packages at most."""
REMEMBERED_PACKAGES = 256
CRASH_FILTER = ("AndroidRuntime:E", "libc:E", "DEBUG:E", "ActivityManager:I", "*:S")
_SINCE = re.compile(r"^(?:\d{4}-)?\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?$|^\d{9,11}(?:\.\d{1,6})?$")


@dataclass(frozen=True)
class LogQuery:
    buffers: tuple[str, ...] = DEFAULT_BUFFERS
    min_level: str = "V"
    tag: str | None = None
    package: str | None = None
    pid: int | None = None
    since: str | None = None
    """'MM-DD HH:MM:SS.mmm', 'YYYY-MM-DD HH:MM:SS.mmm' or epoch seconds, as logcat -T takes."""
    scan_lines: int = MAX_SCAN_LINES

    def validated(self) -> LogQuery:
        for buffer in self.buffers:
            if buffer not in BUFFERS:
                raise UsageError(f"unknown log buffer {buffer!r}; use {', '.join(BUFFERS)}")
        if self.min_level not in LEVELS:
            raise UsageError(f"unknown level {self.min_level!r}; use one of {''.join(LEVELS)}")
        if self.tag is not None:
            validate.log_tag(self.tag)
        if self.package is not None:
            validate.package_name(self.package)
        if self.pid is not None and not 0 < self.pid < 1 << 22:
            raise UsageError(f"pid {self.pid} is out of range")
        if self.since is not None:
            check_since(self.since)
        if not 1 <= self.scan_lines <= MAX_SCAN_LINES:
            raise UsageError(f"scan_lines must be within 1..{MAX_SCAN_LINES}")
        return self


def check_since(value: str) -> str:
    if not _SINCE.match(value):
        raise UsageError(f"invalid since {value!r}: use 'MM-DD HH:MM:SS.mmm' or epoch seconds")
    return value


@dataclass(frozen=True)
class LogResult:
    entries: list[LogEntry]
    pids: tuple[int, ...]
    """The processes a package filter resolved to (empty without one)."""
    note: str | None = None


class _SeenPids:
    """The pids each package was seen running with, per device: bounded, thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: OrderedDict[tuple[str, str], tuple[int, ...]] = OrderedDict()

    def add(self, serial: str, package: str, pids: Sequence[int]) -> None:
        if not pids:
            return
        key = (serial, package)
        with self._lock:
            known = [pid for pid in self._seen.pop(key, ()) if pid not in pids]
            self._seen[key] = (*known, *pids)[-REMEMBERED_PIDS:]
            while len(self._seen) > REMEMBERED_PACKAGES:
                self._seen.popitem(last=False)

    def get(self, serial: str, package: str) -> tuple[int, ...]:
        with self._lock:
            return self._seen.get((serial, package), ())


SEEN_PIDS = _SeenPids()


def pids_of(client: AdbClient, package: str) -> tuple[int, ...]:
    """Running pids of a package's processes (``pidof`` exits 1 when there are none)."""
    result = commands.run(client, ["pidof", validate.package_name(package)])
    pids = tuple(int(word) for word in commands.decode(result.stdout).split() if word.isdigit())
    SEEN_PIDS.add(client.serial, package, pids)
    return pids


def read_logcat(client: AdbClient, query: LogQuery) -> LogResult:
    """A dump of the matching entries, oldest first.

    With a package, the dump also takes the system and crash buffers (where the processes'
    starts and deaths are logged) and filters tag and level here, so the app's lines are
    found even when it is no longer running."""
    query = query.validated()
    buffers = query.buffers
    if query.package is not None:
        buffers = tuple(dict.fromkeys((*buffers, "system", "crash")))
    argv = ["logcat", "-d", "-v", "threadtime"]
    for buffer in buffers:
        argv += ["-b", buffer]
    argv += ["-T", query.since] if query.since else ["-t", str(query.scan_lines)]
    if query.pid is not None:
        argv += ["--pid", str(query.pid)]
    if query.package is not None:
        # the app's lines at the level asked, and what names its processes (ActivityManager's
        # starts and deaths, crash reports), filtered further here
        argv += _package_filter(query)
    elif query.tag:
        argv += [f"{query.tag}:{query.min_level}", "*:S"]
    else:
        argv.append(f"*:{query.min_level}")
    entries = parse_logcat(commands.text(client, argv, timeout=60))
    if query.package is None:
        entries = [e for e in entries if level_at_least(e, query.min_level)]
        return LogResult(entries, ())
    running = pids_of(client, query.package)
    pids = {*running, *SEEN_PIDS.get(client.serial, query.package)}
    pids |= package_pids(entries, query.package)
    wanted = set(query.buffers)
    entries = [
        e
        for e in entries
        if e.pid in pids
        and level_at_least(e, query.min_level)
        and (query.tag is None or e.tag == query.tag)
        and (e.buffer is None or e.buffer in wanted)
    ]
    note = None
    if not pids:
        note = f"{query.package} is not running and the log names no process of it"
    elif not running:
        note = f"{query.package} is not running: lines of its earlier processes"
    return LogResult(entries, tuple(sorted(pids)), note)


def _package_filter(query: LogQuery) -> list[str]:
    """Filterspecs for a package query: the level (and tag) asked, and at most I for
    ActivityManager and E for the crash tags, which name the app's processes."""
    rank = LEVELS.index(query.min_level)
    fixed = (("ActivityManager", "I"), ("AndroidRuntime", "E"), ("libc", "E"), ("DEBUG", "E"))
    specs = [
        f"{tag}:{LEVELS[min(rank, LEVELS.index(most))]}" for tag, most in fixed if tag != query.tag
    ]
    if query.tag:
        return [*specs, f"{query.tag}:{query.min_level}", "*:S"]
    return [*specs, f"*:{query.min_level}"]


def clear_logcat(client: AdbClient, buffers: Sequence[str] = DEFAULT_BUFFERS) -> None:
    argv = ["logcat"]
    for buffer in buffers:
        if buffer not in BUFFERS:
            raise UsageError(f"unknown log buffer {buffer!r}")
        argv += ["-b", buffer]
    commands.text(client, [*argv, "-c"])


def crash_log(client: AdbClient, *, since: str | None = None) -> list[LogEntry]:
    """The lines crashes, native tombstones and ANRs are read from (main, system and crash
    buffers; without the crash buffer on devices older than Android 5)."""
    window = ["-T", check_since(since)] if since else []
    base = ["logcat", "-d", "-v", "threadtime", *window]
    try:
        argv = [*base, "-b", "main", "-b", "system", "-b", "crash", *CRASH_FILTER]
        return parse_logcat(commands.text(client, argv, timeout=60))
    except CommandFailedError:
        argv = [*base, "-b", "main", "-b", "system", *CRASH_FILTER]
        return parse_logcat(commands.text(client, argv, timeout=60))


def crashes(
    client: AdbClient, package: str | None = None, *, after: LogMark | None = None
) -> list[Crash | Anr]:
    """Java crashes, native crashes and ANRs (of ``package``), newest first, optionally
    only those logged after ``after``."""
    if package is not None:
        validate.package_name(package)
    since = after.since if after else None
    events = crash_history(crash_log(client, since=since), package)
    if after is not None:
        events = [e for e in events if (e.timestamp or "") >= after.since and after.is_new(e)]
    return events


def newest_crash(
    client: AdbClient, package: str | None = None, *, after: LogMark | None = None
) -> Crash | None:
    """The newest crash (of `package`'s processes), optionally only one logged after
    ``after``."""
    found = [e for e in crashes(client, package, after=after) if isinstance(e, Crash)]
    return found[0] if found else None


@dataclass(frozen=True)
class LogWindow:
    """What the log says about a moment: the apps' warnings and errors, and every crash or
    ANR (of any process) logged in it."""

    entries: list[LogEntry]
    """The packages' lines at W or above, oldest first."""
    events: list[Crash | Anr]
    """Crashes and ANRs, newest first."""
    pids: tuple[int, ...]
    started: tuple[str, ...] = ()
    """Processes started in the window."""


def log_window(client: AdbClient, mark: LogMark, packages: Sequence[str]) -> LogWindow:
    """The log since ``mark``: warnings and errors of ``packages``' processes (running,
    remembered, or named in the log) and the crashes and ANRs that are new."""
    since = mark.since
    base = ["logcat", "-d", "-v", "threadtime", "-T", check_since(since)]
    specs = ["ActivityManager:I", "*:W"]
    try:
        text = commands.text(client, [*base, "-b", "main", "-b", "system", "-b", "crash", *specs])
    except CommandFailedError:
        text = commands.text(client, [*base, "-b", "main", "-b", "system", *specs])
    entries = [e for e in parse_logcat(text) if (e.timestamp or "") >= since]
    pids: set[int] = set()
    for package in dict.fromkeys(packages):
        pids.update(pids_of(client, package))
        pids.update(SEEN_PIDS.get(client.serial, package))
        pids.update(package_pids(entries, package))
    started = tuple(dict.fromkeys(started_processes(entries)))
    for process in started:
        pids.update(package_pids(entries, process.split(":", 1)[0]))
    mine = [e for e in entries if e.pid in pids and level_at_least(e, "W")]
    events = [e for e in crash_history(entries) if mark.is_new(e)]
    return LogWindow(mine, events, tuple(sorted(pids)), started)


@dataclass(frozen=True)
class LogMark:
    """A point in the device's log: its clock (to the second, as ``date`` gives it) and the
    crashes and ANRs already logged within that second, which are not new after it."""

    since: str
    known: frozenset[tuple[str, int | None, str | None]]

    def is_new(self, event: Crash | Anr) -> bool:
        return (event.kind, event.pid, event.timestamp) not in self.known


def mark(client: AdbClient) -> LogMark:
    """Where the log is now, for telling later crashes from earlier ones."""
    since = device_clock(client)
    earlier = crash_history(crash_log(client, since=since))
    return LogMark(since, frozenset((e.kind, e.pid, e.timestamp) for e in earlier))


def device_clock(client: AdbClient) -> str:
    """The device's time in logcat's threadtime form ('MM-DD HH:MM:SS.000')."""
    return commands.text(client, ["date", "+%m-%d %H:%M:%S.000"]).strip()
