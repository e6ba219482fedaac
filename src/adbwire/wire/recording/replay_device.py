"""The device side of a recorded session as a sans-IO engine: host packets in, bytes out.

- CNXN is answered with the recorded banner minus `delayed_ack` (so classic flow control:
  one WRTE in flight per stream, whatever the recording used). Authentication follows the
  recorded path, not the key: a recorded accepted signature accepts any signature, a
  recorded accepted public key rejects signatures and accepts the key, an incomplete one
  never accepts (the client then reports the pending prompt, as it did when recorded).
- OPEN takes the first unused recorded stream with that service. While several unused
  recorded streams share the service (two `sync:` sessions, say), the stream stays bound
  to all of them and the host's bytes decide; the device answers only once that is settled,
  or when its recorded answer is due (then the earliest candidate wins).
- The host's bytes are compared as one byte string per stream, so any packetisation
  matches; the device's bytes are sent in chunks of the negotiated max payload, each chunk
  once the host has written what preceded it in the recording.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, NoReturn

from adbwire.errors import ReplayMismatchError
from adbwire.wire import packets as P
from adbwire.wire.recording.host_bytes import HostCanon, canon_for
from adbwire.wire.recording.meaning import (
    EXIT_STATUS_UNKNOWN,
    SAME,
    Translation,
    match_meaning,
    stand_in_shell,
)
from adbwire.wire.recording.replay_messages import (
    banner_for_replay,
    bytes_mismatch_message,
    no_stream_message,
)
from adbwire.wire.recording.script import (
    DeviceChunk,
    RecordedStream,
    ReplayScript,
    match_bytes,
    match_service,
)
from adbwire.wire.recording.stream_log import service_of
from adbwire.wire.recording.sync_replay import SyncServe, sync_pool

REPLAY_TOKEN: Final = b"adbwire replay token"  # 20 bytes, like adbd's random tokens


@dataclass
class _Live:
    host_id: int
    device_id: int
    service: str
    candidates: list[RecordedStream]
    swaps: dict[int, dict[bytes, bytes]]
    translations: dict[int, Translation]
    canon: HostCanon
    recorded: RecordedStream | None = None
    chunks: list[DeviceChunk] = field(default_factory=list)
    """What the device sends: the recorded chunks, translated for the client's spelling."""
    current: bytes = b""
    """The device chunk being sent, with volatile tokens swapped."""
    host_offset: int = 0
    next_chunk: int = 0
    chunk_offset: int = 0
    awaiting_okay: bool = False
    closed: bool = False
    sync: SyncServe | None = None
    """A `sync:` stream, answered request by request (`sync_replay`)."""


class ReplayDevice:
    """Answers one host connection from a `ReplayScript`.

    `strict`: a request the recording does not have stops the whole connection (raises
    ReplayMismatchError). Otherwise only that stream fails: an OPEN is refused (CLSE), a
    stream whose bytes differ is closed by the device; `mismatches` lists what happened and
    `refusals` maps a refused service to the reason.
    """

    def __init__(self, script: ReplayScript, *, strict: bool = False) -> None:
        self.script = script
        self.strict = strict
        self.mismatches: list[str] = []
        self.refusals: dict[str, str] = {}
        self.stand_ins: list[str] = []
        """Unrecorded preparatory requests answered as a device without them (not strict)."""
        self.fixture = script.fixture
        header = self.fixture.header
        self.device_version = header.device_version or P.VERSION_SKIP_CHECKSUM
        self.device_max_payload = header.device_max_payload or P.MAX_PAYLOAD
        self.auth = header.auth
        self.version = self.device_version
        self.max_payload = self.device_max_payload
        self.online = False
        self.finished = False
        """The recording's device ended the connection here; the link should drop now."""
        self.outbox = bytearray()
        self._live: dict[int, _Live] = {}
        self._used: dict[int, _Live | None] = {}  # recorded number -> its live stream
        self._next_device_id = 1
        self._swaps: dict[bytes, bytes] = {}
        self._sync_pool = sync_pool(self.fixture)
        """Volatile tokens seen so far: recorded -> what this host uses instead."""

    # ----------------------------------------------------------- packets in

    def receive(self, packet: P.Packet) -> None:
        command = packet.command
        if command == P.A_CNXN:
            self._on_cnxn(packet)
        elif command == P.A_AUTH:
            self._on_auth(packet)
        elif not self.online:
            self._fail(f"the client sent {packet.name} before the connection was established")
        elif command == P.A_OPEN:
            self._on_open(packet)
        elif command == P.A_WRTE:
            self._on_write(packet)
        elif command == P.A_OKAY:
            live = self._live.get(packet.arg0)
            if live is not None:
                live.awaiting_okay = False
                self._pump(live)
        elif command == P.A_CLSE:
            self._on_host_close(packet.arg0)

    def _on_cnxn(self, packet: P.Packet) -> None:
        if self.online:
            self._fail("the client sent a second CNXN")
        self.version = min(self.device_version, packet.arg0)
        self.max_payload = max(256, min(self.device_max_payload, packet.arg1))
        if self.auth.tokens == 0 and self.auth.outcome != "incomplete":
            self._connect()
        elif self.auth.tokens:
            self._send(P.Packet(P.A_AUTH, P.AUTH_TOKEN, 0, REPLAY_TOKEN))

    def _on_auth(self, packet: P.Packet) -> None:
        if self.online:
            self._fail("the client sent AUTH after the connection was established")
        if packet.arg0 == P.AUTH_SIGNATURE:
            if self.auth.outcome == "signature":
                self._connect()
            else:
                self._send(P.Packet(P.A_AUTH, P.AUTH_TOKEN, 0, REPLAY_TOKEN))
        elif packet.arg0 == P.AUTH_RSAPUBLICKEY and self.auth.outcome == "public_key":
            self._connect()

    def _connect(self) -> None:
        banner = banner_for_replay(self.fixture.header.banner)
        self._send(P.Packet(P.A_CNXN, self.device_version, self.device_max_payload, banner))
        self.online = True
        self._check_finished()

    def _on_open(self, packet: P.Packet) -> None:
        service = service_of(packet.payload)
        if service == "sync:" and self._sync_pool.exchanges:
            self._open_sync(packet)
            return
        swaps: dict[int, dict[bytes, bytes]] = {}
        translations: dict[int, Translation] = {}
        candidates: list[RecordedStream] = []
        for recorded in self.script.streams:
            if recorded.number in self._used:
                continue
            found = match_service(recorded.service, service)
            translation: Translation | None = SAME
            if found is None:
                found, translation = {}, match_meaning(recorded.service, service)
            if translation is not None and self._consistent(found):
                candidates.append(recorded)
                swaps[recorded.number] = found
                translations[recorded.number] = translation
        undecided = sum(
            1 for live in self._live.values() if live.recorded is None and live.service == service
        )
        if len(candidates) <= undecided:
            stand_in = None if self.strict else stand_in_shell(service)
            if stand_in is not None:
                self._stand_in(packet, service, stand_in)
                return
            self._mismatch(self._no_stream_message(service), service=service)
            self._send(P.Packet(P.A_CLSE, 0, packet.arg0))
            return
        if candidates[0].refused:
            self._used[candidates[0].number] = None
            self._send(P.Packet(P.A_CLSE, 0, packet.arg0))
            self._check_finished()
            return
        live = _Live(
            host_id=packet.arg0,
            device_id=self._next_device_id,
            service=service,
            candidates=[item for item in candidates if not item.refused],
            swaps=swaps,
            translations=translations,
            canon=canon_for(service),
        )
        self._next_device_id += 1
        self._live[live.host_id] = live
        self._send(P.Packet(P.A_OKAY, live.device_id, live.host_id))
        if len(live.candidates) == 1:
            self._commit(live, live.candidates[0])
        self._pump(live)

    def _open_sync(self, packet: P.Packet) -> None:
        live = _Live(
            host_id=packet.arg0,
            device_id=self._next_device_id,
            service="sync:",
            candidates=[],
            swaps={},
            translations={},
            canon=canon_for("sync:"),
            sync=SyncServe(self._sync_pool, stand_ins=not self.strict),
        )
        self._next_device_id += 1
        self._live[live.host_id] = live
        self._send(P.Packet(P.A_OKAY, live.device_id, live.host_id))

    def _stand_in(self, packet: P.Packet, service: str, answer: bytes) -> None:
        """An unrecorded path-resolution command, answered as a device without the tool."""
        self.stand_ins.append(f"{service!r} is not in the recording: answered 'not found'")
        recorded = RecordedStream(0, service, 0, close_by="device")
        recorded.device.append(DeviceChunk(0, answer, 0))
        live = _Live(
            host_id=packet.arg0,
            device_id=self._next_device_id,
            service=service,
            candidates=[recorded],
            swaps={},
            translations={},
            canon=canon_for(service),
            recorded=recorded,
            chunks=list(recorded.device),
        )
        self._next_device_id += 1
        self._live[live.host_id] = live
        self._send(P.Packet(P.A_OKAY, live.device_id, live.host_id))
        self._pump(live)

    def _on_sync_write(self, live: _Live, data: bytes) -> None:
        assert live.sync is not None
        noted = len(live.sync.stood_in)
        answers, problem = live.sync.feed(data)
        for request in live.sync.stood_in[noted:]:
            self.stand_ins.append(f"{request} is not in the recording: answered 'no such file'")
        self._send(P.Packet(P.A_OKAY, live.device_id, live.host_id))
        live.chunks += [DeviceChunk(0, answer, 0) for answer in answers if answer]
        if problem is not None:
            self._mismatch(f"replay mismatch on a 'sync:' stream: {problem} ({self.fixture.path})")
            self._send(P.Packet(P.A_CLSE, live.device_id, live.host_id))
            live.closed = True
            self._live.pop(live.host_id, None)
            return
        self._pump(live)

    def _on_write(self, packet: P.Packet) -> None:
        live = self._live.get(packet.arg0)
        if live is None or live.closed:
            return  # data racing the device's CLSE: a device drops it too
        if live.sync is not None:
            self._on_sync_write(live, bytes(packet.payload))
            return
        data = live.canon.feed(bytes(packet.payload))
        start = live.host_offset
        matching: list[RecordedStream] = []
        learned: list[dict[bytes, bytes]] = []
        for candidate in live.candidates:
            found = match_bytes(bytes(candidate.host[start : start + len(data)]), data)
            if found is not None and self._consistent(found):
                matching.append(candidate)
                learned.append(found)
        if not matching:
            if self._racing_device_close(live, start):
                # Bytes the host sent after everything it sent when recorded, on a stream the
                # device closes (e.g. shell close-stdin racing a command that already ended):
                # whether they reached the device varies from run to run, so drop them.
                self._send(P.Packet(P.A_OKAY, live.device_id, live.host_id))
                return
            self._fail_bytes(live, live.candidates[0], data)
            self._send(P.Packet(P.A_CLSE, live.device_id, live.host_id))
            live.closed = True
            self._live.pop(live.host_id, None)
            return
        self._swaps.update(learned[0])
        live.candidates = matching
        live.host_offset += len(data)
        self._send(P.Packet(P.A_OKAY, live.device_id, live.host_id))
        if live.recorded is None and len(matching) == 1:
            self._commit(live, matching[0])
        self._pump(live)

    @staticmethod
    def _racing_device_close(live: _Live, start: int) -> bool:
        return all(
            start >= len(candidate.host) and candidate.close_by == "device"
            for candidate in live.candidates
        )

    def _on_host_close(self, host_id: int) -> None:
        live = self._live.pop(host_id, None)
        if live is None:
            return
        if live.recorded is None and live.sync is None:
            self._commit(live, live.candidates[0])
        live.closed = True
        self._check_finished()

    # ----------------------------------------------------------- sending

    def _commit(self, live: _Live, recorded: RecordedStream) -> None:
        live.recorded = recorded
        live.candidates = [recorded]
        live.chunks = list(recorded.device)
        marker = live.translations.get(recorded.number, SAME).exit_marker
        if marker is not None and recorded.close_by == "device":
            # The recorded plain `shell:` gave no exit status; adbwire's wrapper asked for one.
            status = marker.encode() + EXIT_STATUS_UNKNOWN + b"\n"
            live.chunks.append(DeviceChunk(recorded.close_gate, status, recorded.close_line or 0))
        self._used[recorded.number] = live
        self._swaps.update(live.swaps.get(recorded.number, {}))
        for other in list(self._live.values()):
            if other.recorded is None and recorded in other.candidates:
                other.candidates.remove(recorded)
                if not other.candidates:
                    self._mismatch(
                        f"the client opened {other.service!r} more often than the "
                        f"recording did ({self.fixture.path})"
                    )
                    self._send(P.Packet(P.A_CLSE, other.device_id, other.host_id))
                    other.closed = True
                    self._live.pop(other.host_id, None)

    def _answer_due(self, live: _Live) -> bool:
        first = live.candidates[0]
        if first.device:
            return first.device[0].gate <= live.host_offset
        return first.close_by == "device" and first.close_gate <= live.host_offset

    def _device_closes(self, live: _Live) -> bool:
        if live.sync is not None:
            return live.sync.quit
        recorded = live.recorded
        assert recorded is not None
        return recorded.close_by == "device" and recorded.close_gate <= live.host_offset

    def _pump(self, live: _Live) -> None:
        if live.closed:
            return
        if live.recorded is None and live.sync is None:
            if not self._answer_due(live):
                return
            self._commit(live, live.candidates[0])
        while not live.awaiting_okay and live.next_chunk < len(live.chunks):
            chunk = live.chunks[live.next_chunk]
            if chunk.gate > live.host_offset:
                return
            if live.chunk_offset == 0:
                live.current = self._swapped(chunk.data)
            data = live.current
            piece = data[live.chunk_offset : live.chunk_offset + self.max_payload]
            self._send(P.Packet(P.A_WRTE, live.device_id, live.host_id, piece))
            live.awaiting_okay = True
            live.chunk_offset += len(piece)
            if live.chunk_offset >= len(data):
                live.next_chunk += 1
                live.chunk_offset = 0
        if live.next_chunk == len(live.chunks) and self._device_closes(live):
            self._send(P.Packet(P.A_CLSE, live.device_id, live.host_id))
            live.closed = True
            self._live.pop(live.host_id, None)
        self._check_finished()

    def _consistent(self, swaps: dict[bytes, bytes]) -> bool:
        return all(self._swaps.get(old, new) == new for old, new in swaps.items())

    def _swapped(self, data: bytes) -> bytes:
        for old, new in self._swaps.items():
            data = data.replace(old, new)
        return data

    def _send(self, packet: P.Packet) -> None:
        self.outbox += packet.encode(with_checksum=self.version < P.VERSION_SKIP_CHECKSUM)

    def _check_finished(self) -> None:
        if self.script.end_by != "device" or self.finished:
            return
        for stream in self.script.streams:
            if stream.number in self._sync_pool.streams:
                if not self._sync_pool.stream_done(stream.number):
                    return
            elif stream.number not in self._used:
                return
        for live in self._live.values():
            if live.sync is None and live.recorded is None:
                return
            if live.next_chunk < len(live.chunks):
                return
            if live.sync is not None or (live.recorded and live.recorded.close_by == "device"):
                return  # the device still has to close it
        self.finished = True

    # ----------------------------------------------------------- errors and leftovers

    def _fail(self, message: str, line: int | None = None) -> NoReturn:
        raise ReplayMismatchError(message, fixture=self.fixture.path, line=line)

    def _mismatch(self, message: str, line: int | None = None, service: str | None = None) -> None:
        """Strict: stop the connection. Otherwise note it; the caller fails that stream."""
        if self.strict:
            self._fail(message, line)
        self.mismatches.append(message)
        if service is not None:
            self.refusals[service] = message

    def _no_stream_message(self, service: str) -> str:
        return no_stream_message(self.script, set(self._used), service)

    def _fail_bytes(self, live: _Live, recorded: RecordedStream, actual: bytes) -> None:
        message, line = bytes_mismatch_message(self.fixture, recorded, live.host_offset, actual)
        self._mismatch(message, line)

    def leftovers(self) -> list[str]:
        """Recorded traffic the client never asked for, one sentence each."""
        found: list[str] = self._sync_pool.leftovers()
        for recorded in self.script.streams:
            if recorded.number in self._sync_pool.streams:
                continue
            if recorded.number not in self._used:
                found.append(f"{recorded.describe()} was never opened")
                continue
            live = self._used[recorded.number]
            if live is None:
                continue
            sent = sum(len(chunk.data) for chunk in recorded.device[: live.next_chunk])
            sent += live.chunk_offset
            total = recorded.device_size
            if sent < total:
                found.append(f"{recorded.describe()}: {total - sent} device bytes never sent")
            if live.host_offset < len(recorded.host):
                found.append(
                    f"{recorded.describe()}: the client wrote {live.host_offset} of the "
                    f"{len(recorded.host)} recorded bytes"
                )
        return found
