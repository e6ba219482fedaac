"""Replaying `sync:` sessions request by request, matched by meaning.

Google's adb pulls with STA2 then RECV, adbwire with RCV2 straight away; adb opens one
`sync:` stream per command, adbwire may do several things in one. So a replay does not
compare a sync stream's bytes with one recorded stream: it cuts every recorded `sync:`
stream into exchanges (one request and the device's answer) and answers each request the
client makes with a recorded exchange that means the same (table in docs/fixtures.md):

- STA2 and LST2 of a path are one request (they differ only on symlinks); STAT (v1) is
  another (its answer has another layout). The answer's id is the client's.
- RECV and RCV2 without flags are one request (both are answered DATA… DONE or FAIL).
- LIST and LIS2 are two (their entries have different layouts).
- SEND and SND2 match on path, mode and the file's bytes (not the DONE mtime).
- QUIT ends the session: the device closes the stream.

A recorded read (stat, list, pull) may answer again once used; a push is used once.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final, cast

from adbwire.wire.recording.events import Close, Data, Open
from adbwire.wire.recording.fixture_file import Fixture
from adbwire.wire.recording.script import VOLATILE_TOKENS

_HEADER: Final = struct.Struct("<4sI")
_STAT_V1_SIZE: Final = 16
_STAT_V2_SIZE: Final = 72
_DENT_V1_SIZE: Final = 20
_DENT_V2_SIZE: Final = 76
_READS: Final = frozenset({"stat1", "stat2", "list1", "list2", "recv"})
_REQUESTS: Final = frozenset(
    {b"STAT", b"STA2", b"LST2", b"LIST", b"LIS2", b"RECV", b"RCV2", b"SEND", b"SND2"}
)
_LONGEST_PATH: Final = 64 * 1024
_LARGEST_DATA: Final = 1024 * 1024
"""adbd sends and takes DATA of at most 64 KiB; a larger length means garbage."""

Key = tuple[object, ...]


@dataclass(frozen=True)
class SyncRequest:
    request_id: bytes
    key: Key
    path: str

    def describe(self) -> str:
        return f"{self.request_id.decode('ascii', 'replace')} {self.path!r}"


class RequestParser:
    """Raw host bytes of one sync stream in, whole requests out (incrementally)."""

    def __init__(self) -> None:
        self._pending = bytearray()
        self._push: _Push | None = None
        self.broken: bytes | None = None
        """Bytes that are no sync request (the session cannot be followed past them)."""

    def feed(self, data: bytes) -> list[SyncRequest]:
        if self.broken is not None:
            return []  # past a break nothing is parsed, so nothing is kept
        self._pending += data
        found: list[SyncRequest] = []
        while self.broken is None:
            request = self._next()
            if request is None:
                break
            found.append(request)
        return found

    def _next(self) -> SyncRequest | None:
        if self._push is not None:
            return self._push_data()
        buf = self._pending
        if len(buf) < _HEADER.size:
            return None
        request_id, length = _HEADER.unpack_from(buf)
        if request_id == b"QUIT":
            del buf[: _HEADER.size]
            return SyncRequest(request_id, ("quit",), "")
        if request_id not in _REQUESTS or length > _LONGEST_PATH:
            self.broken = bytes(buf[:64])
            return None
        setup = {b"RCV2": 8, b"SND2": 12}.get(request_id, 0)
        end = _HEADER.size + length + setup
        if len(buf) < end:
            return None
        path = bytes(buf[_HEADER.size : _HEADER.size + length]).decode("utf-8", "replace")
        extra = bytes(buf[_HEADER.size + length : end])
        del buf[:end]
        if request_id in (b"SEND", b"SND2"):
            self._push = _Push(request_id, path, extra)
            return self._push_data()
        kind = {
            b"STAT": "stat1",
            b"STA2": "stat2",
            b"LST2": "stat2",
            b"LIST": "list1",
            b"LIS2": "list2",
        }.get(request_id, "recv")
        key: Key = (kind, _shape(path))
        if request_id == b"RCV2":
            flags = struct.unpack_from("<I", extra, 4)[0]
            if flags:
                key = (kind, _shape(path), flags)
        return SyncRequest(request_id, key, path)

    def _push_data(self) -> SyncRequest | None:
        """A push is one request once its DONE arrived: path, mode and a digest of the
        content (DATA is consumed as it comes: a large push is never held whole)."""
        push = self._push
        assert push is not None
        buf = self._pending
        while len(buf) >= _HEADER.size:
            chunk_id, length = _HEADER.unpack_from(buf)
            if chunk_id == b"DONE":
                del buf[: _HEADER.size]
                self._push = None
                return push.request()
            if chunk_id != b"DATA" or length > _LARGEST_DATA:
                self.broken = bytes(buf[:64])
                return None
            if len(buf) < _HEADER.size + length:
                return None
            push.digest.update(buf[_HEADER.size : _HEADER.size + length])
            push.size += length
            del buf[: _HEADER.size + length]
        return None


@dataclass
class _Push:
    request_id: bytes
    path: str
    extra: bytes
    digest: Any = field(default_factory=hashlib.sha256)
    size: int = 0

    def request(self) -> SyncRequest:
        content = (self.size, self.digest.hexdigest())
        if self.request_id == b"SND2":
            mode, flags = struct.unpack_from("<II", self.extra, 4)
            return SyncRequest(
                self.request_id, ("send", _shape(self.path), mode, flags, content), self.path
            )
        name, _, mode_text = self.path.rpartition(",")
        mode = int(mode_text) if mode_text.isdigit() else -1
        path = name or self.path
        return SyncRequest(self.request_id, ("send", _shape(path), mode, 0, content), path)


def _shape(path: str) -> str:
    """A path with adbwire's random tokens (a staged APK's name) reduced to their shape."""
    return VOLATILE_TOKENS.sub(lambda found: found.group()[:13], path)


def answer_size(request: SyncRequest, data: bytes) -> int:
    """How many bytes at the start of `data` answer `request` (all of them if cut short)."""
    kind = request.key[0]
    if kind == "quit":
        return 0
    if kind == "stat1":
        return min(len(data), _STAT_V1_SIZE)
    if kind == "stat2":
        return min(len(data), _STAT_V2_SIZE)
    offset = 0
    while offset + _HEADER.size <= len(data):
        message_id, length = cast(tuple[bytes, int], _HEADER.unpack_from(data, offset))
        if kind in ("list1", "list2"):
            size = _DENT_V1_SIZE if kind == "list1" else _DENT_V2_SIZE
            if offset + size > len(data):
                break
            name_length = struct.unpack_from("<I", data, offset + size - 4)[0]
            offset += size + (0 if message_id == b"DONE" else name_length)
            if message_id == b"DONE":
                return offset
            continue
        if message_id == b"DATA":
            offset += _HEADER.size + length
            continue
        if message_id == b"FAIL":
            return min(len(data), offset + _HEADER.size + length)
        return min(len(data), offset + _HEADER.size)  # DONE (recv) or OKAY (send)
    return len(data)


@dataclass
class Exchange:
    stream: int
    line: int
    request: SyncRequest
    answer: bytes
    used: bool = False
    closes: bool = False
    """The recorded device closed the stream after this answer (adbd does after a failed
    push), with no QUIT from the host."""

    def describe(self) -> str:
        return (
            f"stream {self.stream} ('sync:') request {self.request.describe()} (line {self.line})"
        )


@dataclass
class SyncPool:
    """Every exchange of every recorded `sync:` stream, in recorded order."""

    exchanges: list[Exchange] = field(default_factory=list)
    streams: set[int] = field(default_factory=set)

    def find(self, request: SyncRequest, prefer: int | None) -> Exchange | None:
        fits = [item for item in self.exchanges if item.request.key == request.key]
        fresh = [item for item in fits if not item.used]
        for group in (fresh, [item for item in fits if request.key[0] in _READS]):
            ranked = sorted(group, key=lambda item: item.stream != prefer)
            if ranked:
                return ranked[0]
        return None

    def stream_done(self, number: int) -> bool:
        return all(
            item.used or item.request.key[0] == "quit"
            for item in self.exchanges
            if item.stream == number
        )

    def leftovers(self) -> list[str]:
        return [
            f"{item.describe()} was never asked"
            for item in self.exchanges
            if not item.used and item.request.key[0] != "quit"
        ]


def sync_pool(fixture: Fixture) -> SyncPool:
    hosts: dict[int, bytearray] = {}
    devices: dict[int, list[tuple[int, bytes]]] = {}
    lines: dict[int, int] = {}
    closed: set[int] = set()
    for item in fixture.events:
        event = item.event
        if isinstance(event, Open) and event.service == "sync:":
            hosts[event.stream] = bytearray()
            devices[event.stream] = []
            lines[event.stream] = item.line
        elif isinstance(event, Close) and event.stream in hosts and event.by == "device":
            closed.add(event.stream)
        elif isinstance(event, Data) and event.stream in hosts:
            if event.side == "host":
                hosts[event.stream] += event.data
            else:
                devices[event.stream].append((item.line, event.data))
    pool = SyncPool(streams=set(hosts))
    for number, host in hosts.items():
        found = _exchanges(number, lines[number], bytes(host), devices[number])
        if found and number in closed and found[-1].request.key[0] != "quit":
            found[-1].closes = True
        pool.exchanges += found
    return pool


def _exchanges(
    number: int, line: int, host: bytes, device: Iterable[tuple[int, bytes]]
) -> list[Exchange]:
    parser = RequestParser()
    requests = parser.feed(bytes(host))
    answers = b"".join(data for _, data in device)
    found: list[Exchange] = []
    offset = 0
    for request in requests:
        size = answer_size(request, answers[offset:])
        found.append(Exchange(number, line, request, answers[offset : offset + size]))
        offset += size
    return found


@dataclass
class SyncServe:
    """One live `sync:` stream answered from the pool."""

    pool: SyncPool
    parser: RequestParser = field(default_factory=RequestParser)
    prefer: int | None = None
    quit: bool = False
    stand_ins: bool = False
    """Answer an unrecorded stat/lstat as a device would a missing path (not strict)."""
    stood_in: list[str] = field(default_factory=list)

    def feed(self, data: bytes) -> tuple[list[bytes], str | None]:
        """Answers for the requests `data` completes, and what failed (None if nothing)."""
        answers: list[bytes] = []
        for request in self.parser.feed(data):
            if request.key[0] == "quit":
                self.quit = True
                return answers, None
            exchange = self.pool.find(request, self.prefer)
            if exchange is None and self.stand_ins and request.key[0] in ("stat1", "stat2"):
                self.stood_in.append(request.describe())
                answers.append(_missing(request))
                continue
            if exchange is None:
                return (
                    answers,
                    f"the client asked {request.describe()}, which no recorded 'sync:' stream has",
                )
            exchange.used = True
            self.prefer = exchange.stream
            answer = exchange.answer
            if request.key[0] == "stat2" and answer[:4] in (b"STA2", b"LST2"):
                answer = request.request_id + answer[4:]  # lstat or stat: the client's id
            answers.append(answer)
            if exchange.closes:
                self.quit = True  # the device closes the stream after this answer
                return answers, None
        if self.parser.broken is not None:
            return (
                answers,
                f"the client wrote {self.parser.broken[:24]!r}, which is no sync request",
            )
        return answers, None


_ENOENT: Final = 2


def _missing(request: SyncRequest) -> bytes:
    """A stat of a path that does not exist: v1 all zeros, v2 with errno ENOENT."""
    if request.key[0] == "stat1":
        return request.request_id + bytes(_STAT_V1_SIZE - 4)
    return request.request_id + _ENOENT.to_bytes(4, "little") + bytes(_STAT_V2_SIZE - 8)
