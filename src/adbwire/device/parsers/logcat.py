"""``logcat`` lines (threadtime, time and brief formats) into entries."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from adbwire.device.parsers._text import lines_of
from adbwire.errors import UsageError

LEVELS = "VDIWEFA"  # A (assert) is what old devices print for F

# -v threadtime: "03-13 10:04:17.257  1817  2528 D Tag: message" (also "2024-03-13 ...")
_THREADTIME = re.compile(
    r"(?P<ts>(?:\d{4}-)?\d\d-\d\d \d\d:\d\d:\d\d\.\d{3,6})\s+(?P<pid>\d+)\s+(?P<tid>\d+)\s+"
    r"(?P<level>[VDIWEFAS])\s"
)
# -v time: "03-13 10:04:17.257 D/Tag( 1817): message"; -v brief: "D/Tag( 1817): message"
_BRIEF = re.compile(
    r"(?:(?P<ts>(?:\d{4}-)?\d\d-\d\d \d\d:\d\d:\d\d\.\d{3,6})\s+)?(?P<level>[VDIWEFAS])/"
)
_BRIEF_PID = re.compile(r"\(\s*(?P<pid>\d+)\):(?: |$)")
# The tag ends at the first ":" (threadtime) or "(PID):" (brief) that is followed by a space
# or the end of the line. The regular expressions above only match the fixed head; the tag is
# found with str.find, because "(?P<tag>.*?)\s*:" backtracks quadratically over a long run of
# spaces (200 KB of them in one line took minutes).
_BUFFER_MARKER = re.compile(r"^-{9} (?:beginning of|switch to) (?P<buffer>\S+)")


@dataclass(frozen=True)
class LogEntry:
    """One log line. ``timestamp`` is as printed (no year unless asked for); ``tid`` is
    ``None`` in formats that do not print it; ``buffer`` comes from the last marker line
    (``main``, ``system``, ``crash``...; ``/dev/log/`` prefixes of old devices are dropped).
    """

    timestamp: str | None
    pid: int
    tid: int | None
    level: str
    tag: str
    message: str
    buffer: str | None


def parse_logcat_line(line: str, buffer: str | None = None) -> LogEntry | None:
    """Parse one line, or return ``None`` when it is not a log entry."""
    line = line.rstrip("\r\n")
    head = _THREADTIME.match(line)
    if head is not None:
        found = _threadtime_tail(line, head.end())
        if found is None:
            return None
        tag, message = found
        pid, tid = int(head.group("pid")), int(head.group("tid"))
    else:
        head = _BRIEF.match(line)
        if head is None:
            return None
        brief = _brief_tail(line, head.end())
        if brief is None:
            return None
        tag, pid, message = brief
        tid = None
    level = head.group("level")
    return LogEntry(
        timestamp=head.group("ts"),
        pid=pid,
        tid=tid,
        level="F" if level == "A" else level,
        tag=tag.strip(),
        message=message,
        buffer=buffer,
    )


def _threadtime_tail(line: str, start: int) -> tuple[str, str] | None:
    """Tag and message: up to the first ":" followed by a space or the end of the line."""
    colon = line.find(":", start)
    while colon >= 0:
        after = line[colon + 1 : colon + 2]
        if after in ("", " "):
            return line[start:colon], line[colon + 2 :]
        colon = line.find(":", colon + 1)
    return None


def _brief_tail(line: str, start: int) -> tuple[str, int, str] | None:
    """Tag, pid and message: up to the first "(PID):" followed by a space or the end."""
    paren = line.find("(", start)
    while paren >= 0:
        found = _BRIEF_PID.match(line, paren)
        if found is not None:
            return line[start:paren], int(found.group("pid")), line[found.end() :]
        paren = line.find("(", paren + 1)
    return None


def iter_logcat(lines: Iterable[str]) -> Iterator[LogEntry]:
    """Parse lines as they stream in, following ``--------- beginning of X`` markers.

    Lines that are neither entries nor markers (a cut-off last line, noise) are skipped.
    """
    buffer: str | None = None
    for line in lines:
        marker = _BUFFER_MARKER.match(line)
        if marker is not None:
            buffer = marker.group("buffer").rsplit("/", 1)[-1]
            continue
        entry = parse_logcat_line(line, buffer)
        if entry is not None:
            yield entry


def parse_logcat(text: str) -> list[LogEntry]:
    """Parse a whole logcat dump (``logcat -d``) into entries, oldest first."""
    return list(iter_logcat(lines_of(text)))


def level_at_least(entry: LogEntry, minimum: str) -> bool:
    """Whether ``entry`` is at ``minimum`` level or more severe (``V < D < I < W < E < F``)."""
    order = "VDIWEF"
    minimum = "F" if minimum.upper() == "A" else minimum.upper()
    if minimum not in order:
        raise UsageError(f"unknown log level {minimum!r}; use one of {order}")
    level = entry.level if entry.level in order else "F"  # S (silent) never reaches output
    return order.index(level) >= order.index(minimum)
