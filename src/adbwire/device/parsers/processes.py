"""``ps``: toybox's (Android 8+, any ``-o`` column list) and old toolbox's (Android 4-7).

Columns are found by the header, so toybox output with any field list parses. Toolbox
prints a header of eight names but nine values a row (the state letter sits, unnamed,
between ``PC`` and ``NAME``), and its WCHAN may be blank; the state is found as the lone
letter before the name. Toybox cuts a user name that does not fit its column with ``+``;
with a ``UID`` column the name is rebuilt from the number (``u0_a128``), else it is kept
as printed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adbwire.device.parsers._text import lines_of, raise_if_error_output

_STATES = frozenset("RSDZTtWXxKPI")
_NUMBER = re.compile(r"^\d{1,10}$")
_APP_UID_BASE = 10000
_PER_USER_RANGE = 100000
_ISOLATED_FIRST = 99000  # isolated service processes: u0_i123


@dataclass(frozen=True)
class ProcessEntry:
    pid: int
    ppid: int | None
    user: str | None
    uid: int | None
    name: str
    state: str | None
    """R running, S sleeping, D disk wait, Z zombie, T stopped, I idle (kernel threads)."""
    rss_kb: int | None

    @property
    def package(self) -> str:
        """The app package a process name belongs to (``com.x:remote`` -> ``com.x``)."""
        return self.name.split(":", 1)[0]


def parse_ps(text: str) -> list[ProcessEntry]:
    """Rows of ``ps`` output (toybox or toolbox); malformed rows are skipped."""
    raise_if_error_output("ps", text)
    lines = [line for line in lines_of(text) if line.strip()]
    header_at = next((i for i, line in enumerate(lines) if _is_header(line)), None)
    if header_at is None:
        return []
    columns = [_canonical(name) for name in lines[header_at].split()]
    toolbox = "PC" in columns and "S" not in columns
    rows = []
    for line in lines[header_at + 1 :]:
        entry = _toolbox_row(line) if toolbox else _toybox_row(columns, line)
        if entry is not None:
            rows.append(entry)
    return rows


def is_toolbox_header_only(text: str) -> bool:
    """Old toolbox ps took ``-A -o ...`` for a name filter: a header and no rows."""
    lines = [line for line in lines_of(text) if line.strip()]
    return len(lines) == 1 and "VSIZE" in lines[0].split()


def user_name(uid: int) -> str:
    """The name Android gives a uid (app uids only; system uids keep their number)."""
    user, app = divmod(uid, _PER_USER_RANGE)
    if app >= _ISOLATED_FIRST:
        return f"u{user}_i{app - _ISOLATED_FIRST}"
    if app >= _APP_UID_BASE:
        return f"u{user}_a{app - _APP_UID_BASE}"
    return str(uid)


def _is_header(line: str) -> bool:
    words = line.split()
    return "PID" in words and ("NAME" in words or "CMD" in words or "ARGS" in words)


def _canonical(name: str) -> str:
    return {"VSIZE": "VSZ", "CMD": "NAME", "ARGS": "NAME", "COMM": "NAME", "STAT": "S"}.get(
        name, name
    )


def _toybox_row(columns: list[str], line: str) -> ProcessEntry | None:
    cells = line.split(None, len(columns) - 1)
    if len(cells) != len(columns):
        return None
    row = dict(zip(columns, cells, strict=True))
    pid = _number(row.get("PID"))
    name = row.get("NAME", "").strip()
    if pid is None or not name:
        return None
    uid = _number(row.get("UID"))
    user = row.get("USER")
    if user is not None and user.endswith("+") and uid is not None:
        user = user_name(uid)
    state = row.get("S")
    return ProcessEntry(
        pid=pid,
        ppid=_number(row.get("PPID")),
        user=user,
        uid=uid,
        name=name,
        state=state if state in _STATES else None,
        rss_kb=_number(row.get("RSS")),
    )


def _toolbox_row(line: str) -> ProcessEntry | None:
    # USER PID PPID VSIZE RSS [WCHAN] PC S NAME...
    words = line.split()
    if len(words) < 7:
        return None
    pid, ppid, rss = _number(words[1]), _number(words[2]), _number(words[4])
    if pid is None:
        return None
    state_at = next(
        (i for i in range(5, len(words) - 1) if words[i] in _STATES and len(words[i]) == 1),
        None,
    )
    if state_at is None:
        return None
    return ProcessEntry(
        pid=pid,
        ppid=ppid,
        user=words[0],
        uid=None,
        name=" ".join(words[state_at + 1 :]),
        state=words[state_at],
        rss_kb=rss,
    )


def _number(text: str | None) -> int | None:
    if text is None or not _NUMBER.match(text):
        return None
    return int(text)
