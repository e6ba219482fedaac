"""Reading and clearing logcat, and finding the newest crash of an app."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from adbwire.device import commands, validate
from adbwire.device.parsers import Crash, LogEntry, last_crash, level_at_least, parse_logcat
from adbwire.errors import CommandFailedError, UsageError
from adbwire.wire.client import AdbClient

BUFFERS = ("main", "system", "crash", "events", "radio", "kernel")
LEVELS = ("V", "D", "I", "W", "E", "F")
DEFAULT_BUFFERS = ("main", "system", "crash")
MAX_SCAN_LINES = 20_000
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


def pids_of(client: AdbClient, package: str) -> tuple[int, ...]:
    """Running pids of a package's processes (``pidof`` exits 1 when there are none)."""
    result = commands.run(client, ["pidof", validate.package_name(package)])
    return tuple(int(word) for word in commands.decode(result.stdout).split() if word.isdigit())


def read_logcat(client: AdbClient, query: LogQuery) -> LogResult:
    """A dump of the matching entries, oldest first."""
    query = query.validated()
    argv = ["logcat", "-d", "-v", "threadtime"]
    for buffer in query.buffers:
        argv += ["-b", buffer]
    argv += ["-T", query.since] if query.since else ["-t", str(query.scan_lines)]
    pids: tuple[int, ...] = ()
    if query.package is not None:
        pids = pids_of(client, query.package)
        if not pids:
            return LogResult([], (), f"{query.package} is not running: no process to filter on")
    if query.pid is not None:
        argv += ["--pid", str(query.pid)]
    argv += [f"{query.tag}:{query.min_level}", "*:S"] if query.tag else [f"*:{query.min_level}"]
    entries = parse_logcat(commands.text(client, argv, timeout=60))
    entries = [e for e in entries if level_at_least(e, query.min_level)]
    if pids:
        entries = [e for e in entries if e.pid in pids]
    return LogResult(entries, pids)


def clear_logcat(client: AdbClient, buffers: Sequence[str] = DEFAULT_BUFFERS) -> None:
    argv = ["logcat"]
    for buffer in buffers:
        if buffer not in BUFFERS:
            raise UsageError(f"unknown log buffer {buffer!r}")
        argv += ["-b", buffer]
    commands.text(client, [*argv, "-c"])


def crash_log(client: AdbClient) -> list[LogEntry]:
    """The crash buffer (Android 5+), else the AndroidRuntime/libc lines of the main buffer."""
    try:
        return parse_logcat(
            commands.text(client, ["logcat", "-d", "-b", "crash", "-v", "threadtime"])
        )
    except CommandFailedError:
        argv = ["logcat", "-d", "-v", "threadtime", "AndroidRuntime:E", "libc:F", "*:S"]
        return parse_logcat(commands.text(client, argv))


def newest_crash(
    client: AdbClient, package: str | None = None, *, since: str | None = None
) -> Crash | None:
    """The newest crash (of `package`'s processes), optionally not older than `since`
    (a timestamp as logcat prints it, compared within one year)."""
    if package is not None:
        validate.package_name(package)
    crash = last_crash(crash_log(client), package)
    if crash is not None and since is not None and (crash.timestamp or "") < since:
        return None
    return crash


def device_clock(client: AdbClient) -> str:
    """The device's time in logcat's threadtime form ('MM-DD HH:MM:SS.000')."""
    return commands.text(client, ["date", "+%m-%d %H:%M:%S.000"]).strip()
