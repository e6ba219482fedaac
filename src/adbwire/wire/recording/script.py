"""A fixture turned into what replay needs: per stream, the host's bytes and gated answers.

Each recorded stream becomes the bytes the host must write (one byte string, so any
packetisation matches; canonical on shell v2, see `host_bytes`) and the device's answers,
each *gated* by how many host bytes came before it in the recording. Replay sends an answer
once the host has written that much, which keeps cause before effect without depending on
timing or packet sizes.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Final

from adbwire.wire.recording.events import Close, Data, End, Open, Refused, Side
from adbwire.wire.recording.fixture_file import Fixture
from adbwire.wire.recording.host_bytes import HostCanon, canon_for

VOLATILE_SHAPES: Final = (
    re.compile(r"ADBWIRE_EXIT_[0-9a-f]{16}"),
    re.compile(r"adbwire-install-[0-9a-f]{12}"),
)
"""Tokens that differ on every run by design: the random exit-status marker of adbwire's
shell v1 fallback, the random name of an APK staged for `pm install`. A replay matches them
by shape (in service strings and host bytes) and puts the host's new token in place of the
recorded one wherever the device says it back."""
VOLATILE_TOKENS: Final = re.compile("(" + "|".join(p.pattern for p in VOLATILE_SHAPES) + ")")
_VOLATILE_BYTES: Final = re.compile(VOLATILE_TOKENS.pattern.encode())


def _same_shape(old: str, new: str) -> bool:
    return any(shape.fullmatch(old) and shape.fullmatch(new) for shape in VOLATILE_SHAPES)


@dataclass(frozen=True)
class DeviceChunk:
    gate: int
    """Host bytes (canonical, on this stream) that must have arrived before these are sent."""
    data: bytes
    line: int


@dataclass
class RecordedStream:
    number: int
    service: str
    line: int
    refused: bool = False
    host: bytearray = field(default_factory=bytearray)
    """What the host wrote, in the canonical form of `host_bytes.canon_for(service)`."""
    host_lines: list[tuple[int, int]] = field(default_factory=list)
    """(end offset in `host`, line) for each host event, to name the line of a byte."""
    device: list[DeviceChunk] = field(default_factory=list)
    close_by: Side | None = None
    close_gate: int = 0
    close_line: int | None = None

    @property
    def device_size(self) -> int:
        return sum(len(chunk.data) for chunk in self.device)

    def line_of_host_byte(self, offset: int) -> int:
        """The fixture line holding host byte `offset` (or the last line of the stream)."""
        ends = [end for end, _ in self.host_lines]
        index = bisect.bisect_right(ends, offset)
        if index < len(self.host_lines):
            return self.host_lines[index][1]
        if self.host_lines:
            return self.host_lines[-1][1]
        return self.close_line or self.line

    def describe(self) -> str:
        return f"stream {self.number} ({self.service!r}, opened at line {self.line})"


@dataclass(frozen=True)
class ReplayScript:
    fixture: Fixture
    streams: tuple[RecordedStream, ...]
    end_by: Side | None
    end_line: int | None
    unclosed: tuple[RecordedStream, ...] = ()
    """Streams still open when the recording ended: the replayed device closes each after
    its recorded bytes (a capture that stopped, a client that dropped the connection)."""


def build_script(fixture: Fixture) -> ReplayScript:
    streams: dict[int, RecordedStream] = {}
    canons: dict[int, HostCanon] = {}
    end_by: Side | None = None
    end_line: int | None = None
    for item in fixture.events:
        event = item.event
        if isinstance(event, Open):
            streams[event.stream] = RecordedStream(event.stream, event.service, item.line)
            canons[event.stream] = canon_for(event.service)
        elif isinstance(event, Refused):
            streams[event.stream].refused = True
        elif isinstance(event, Data):
            stream = streams[event.stream]
            if event.side == "host":
                stream.host += canons[event.stream].feed(event.data)
                stream.host_lines.append((len(stream.host), item.line))
            else:
                stream.device.append(DeviceChunk(len(stream.host), event.data, item.line))
        elif isinstance(event, Close):
            stream = streams[event.stream]
            stream.close_by, stream.close_gate, stream.close_line = (
                event.by,
                len(stream.host),
                item.line,
            )
        elif isinstance(event, End):
            end_by, end_line = event.by, item.line
    ordered = tuple(streams[number] for number in sorted(streams))
    unclosed = tuple(item for item in ordered if item.close_by is None and not item.refused)
    for stream in unclosed:
        stream.close_by, stream.close_gate = "device", len(stream.host)
        stream.close_line = end_line
    return ReplayScript(fixture, ordered, end_by, end_line, unclosed)


def match_service(recorded: str, actual: str) -> dict[bytes, bytes] | None:
    """None if `actual` is not the recorded service; else the volatile tokens to swap."""
    if recorded == actual:
        return {}
    recorded_parts = VOLATILE_TOKENS.split(recorded)
    actual_parts = VOLATILE_TOKENS.split(actual)
    if len(recorded_parts) != len(actual_parts) or len(recorded_parts) == 1:
        return None
    swaps: dict[bytes, bytes] = {}
    for index, (old, new) in enumerate(zip(recorded_parts, actual_parts, strict=True)):
        if index % 2 == 0 and old != new:
            return None
        if index % 2 == 1:
            if not _same_shape(old, new):
                return None
            swaps[old.encode()] = new.encode()
    return swaps


def match_bytes(expected: bytes, actual: bytes) -> dict[bytes, bytes] | None:
    """None unless `actual` is `expected` up to volatile tokens; else the tokens to swap."""
    if expected == actual:
        return {}
    if len(expected) != len(actual):
        return None
    swaps: dict[bytes, bytes] = {}
    last = 0
    for found in _VOLATILE_BYTES.finditer(expected):
        start, end = found.span()
        token = actual[start:end]
        if expected[last:start] != actual[last:start]:
            return None
        if not _same_shape(found.group().decode(), token.decode("ascii", errors="replace")):
            return None
        swaps[found.group()] = token
        last = end
    return swaps if expected[last:] == actual[last:] else None


def shorten(data: bytes, start: int = 0, width: int = 48) -> str:
    """`data` from around `start`, as a bytes literal with … where it was cut."""
    begin = max(0, start - 16)
    window = data[begin : begin + width]
    text = repr(window)
    if begin > 0:
        text = "…" + text
    if begin + width < len(data):
        text += "…"
    return text
