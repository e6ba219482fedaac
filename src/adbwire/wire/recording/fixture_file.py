"""Fixture files: JSON Lines written as the session happens, read back with checks.

Every error about a file names it and the line (``path:line: problem``) and says what to do.
"""

from __future__ import annotations

import json
import os
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from adbwire.errors import UsageError
from adbwire.wire.recording.events import (
    FORMAT_VERSION,
    Call,
    Close,
    End,
    Event,
    FixtureHeader,
    Located,
    Open,
    Refused,
)
from adbwire.wire.recording.lines import (
    MAGIC_KEY,
    LineError,
    event_from_json,
    event_to_json,
    header_from_json,
    header_to_json,
)


class FixtureWarning(UserWarning):
    """A fixture or a replay is usable but not what it should be (e.g. unused traffic)."""


def _dump(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": ")).encode("utf-8") + b"\n"


class FixtureWriter:
    """Appends lines to a fixture and flushes each one, so a crash keeps what came before."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        try:
            self._file: BinaryIO | None = self.path.open("wb")
        except OSError as exc:
            raise UsageError(f"cannot write the recording {self.path}: {exc.strerror}") from exc
        self._services: dict[int, str] = {}
        self._lock = threading.Lock()

    def write_header(self, header: FixtureHeader) -> None:
        self._write(header_to_json(header))

    def write_event(self, event: Event) -> None:
        if isinstance(event, Open):
            self._services[event.stream] = event.service
        service = self._services.get(getattr(event, "stream", 0), "")
        self._write(event_to_json(event, service))

    def _write(self, obj: dict[str, Any]) -> None:
        line = _dump(obj)
        with self._lock:
            if self._file is None:
                # A line after close (a `call` noted once the connection ended): append it.
                with self.path.open("ab") as late:
                    late.write(line)
                return
            self._file.write(line)
            self._file.flush()

    def close(self) -> None:
        with self._lock:
            file, self._file = self._file, None
        if file is not None:
            file.close()


@dataclass(frozen=True)
class Fixture:
    """A loaded fixture: its header and its events, each with its line number."""

    path: Path
    header: FixtureHeader
    events: tuple[Located, ...]
    complete: bool
    """False when the recording stopped without an `end` line (e.g. the process crashed)."""

    def where(self, line: int) -> str:
        return f"{self.path}:{line}"


def _problem(path: Path, line: int, message: str) -> UsageError:
    return UsageError(f"{path}:{line}: {message}")


def _parse_line(path: Path, number: int, raw: bytes, last: bool) -> dict[str, Any]:
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        if last:
            raise _problem(
                path,
                number,
                "the last line is cut off (the file was truncated or the recording stopped "
                "mid-write); delete that line to use what came before, or record again",
            ) from exc
        raise _problem(path, number, f"not valid JSON ({exc}): the fixture is corrupted") from exc
    if not isinstance(obj, dict):
        raise _problem(path, number, "expected a JSON object")
    return obj


def _parse_header(path: Path, obj: dict[str, Any]) -> FixtureHeader:
    version = obj.get(MAGIC_KEY)
    if version is None:
        raise _problem(path, 1, f'not an adbwire fixture (no "{MAGIC_KEY}" in the first line)')
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _problem(path, 1, f"bad format version {version!r}")
    if version > FORMAT_VERSION:
        raise _problem(
            path,
            1,
            f"written in fixture format {version} by a newer adbwire; this adbwire reads "
            f"format {FORMAT_VERSION} and older: upgrade adbwire to replay it",
        )
    try:
        return header_from_json(obj)
    except LineError as exc:
        raise _problem(path, 1, f"bad header: {exc}") from None


class _Consistency:
    """Checks that the events of a fixture fit together (streams opened before use, ...)."""

    def __init__(self) -> None:
        self.opened = 0
        self.state: dict[int, str] = {}  # stream -> "open" | "closed"
        self.ended = False

    def check(self, event: Event) -> str | None:
        if self.ended and not isinstance(event, Call):
            return "an event after the connection's end line"
        if isinstance(event, Open):
            if event.stream != self.opened + 1:
                return f"stream {event.stream} opened, expected stream {self.opened + 1}"
            self.opened += 1
            self.state[event.stream] = "open"
            return None
        if isinstance(event, End):
            self.ended = True
            return None
        if isinstance(event, Call):
            return None
        state = self.state.get(event.stream)
        if state is None:
            return f"stream {event.stream} was never opened"
        if state == "closed":
            return f"stream {event.stream} was already closed"
        if isinstance(event, (Refused, Close)):
            self.state[event.stream] = "closed"
        return None


def load_fixture(path: str | os.PathLike[str]) -> Fixture:
    """Read and check a fixture; UsageError naming the file and line when it is damaged."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read the fixture {path}: {exc.strerror}") from exc
    lines = raw.split(b"\n")
    ends_cleanly = lines[-1] == b""
    if ends_cleanly:
        lines.pop()
    if not lines or not lines[0].strip():
        raise _problem(path, 1, "empty file: not an adbwire fixture")
    header = _parse_header(path, _parse_line(path, 1, lines[0], len(lines) == 1))
    events: list[Located] = []
    consistency = _Consistency()
    for index, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        obj = _parse_line(path, index, text, index == len(lines) and not ends_cleanly)
        try:
            event = event_from_json(obj)
        except LineError as exc:
            raise _problem(path, index, str(exc)) from None
        problem = consistency.check(event)
        if problem is not None:
            raise _problem(path, index, problem)
        events.append(Located(index, event))
    if not consistency.ended:
        warnings.warn(
            f"{path}: the recording has no end line (it was interrupted): using what it holds",
            FixtureWarning,
            stacklevel=2,
        )
    return Fixture(path, header, tuple(events), consistency.ended)
