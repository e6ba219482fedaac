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

The choice of recorded stream and the token swaps are `replay_matching`'s; this module
speaks the packets around them.
"""

from __future__ import annotations

from typing import Final, NoReturn

from adbwire.errors import ReplayMismatchError
from adbwire.wire import packets as P
from adbwire.wire.recording.host_bytes import canon_for
from adbwire.wire.recording.meaning import stand_in_shell
from adbwire.wire.recording.replay_matching import LiveStream, StreamMatcher
from adbwire.wire.recording.replay_messages import (
    banner_for_replay,
    bytes_mismatch_message,
    no_stream_message,
)
from adbwire.wire.recording.script import DeviceChunk, RecordedStream, ReplayScript
from adbwire.wire.recording.stream_log import service_of
from adbwire.wire.recording.sync_replay import SyncServe, sync_pool

REPLAY_TOKEN: Final = b"adbwire replay token"  # 20 bytes, like adbd's random tokens


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
        self._live: dict[int, LiveStream] = {}
        self._matcher = StreamMatcher(script)
        self._next_device_id = 1
        self._sync_pool = sync_pool(self.fixture)

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
        candidates, swaps, translations = self._matcher.open_candidates(service)
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
            self._matcher.used[candidates[0].number] = None
            self._send(P.Packet(P.A_CLSE, 0, packet.arg0))
            self._check_finished()
            return
        live = LiveStream(
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
        live = LiveStream(
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
        live = LiveStream(
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

    def _on_sync_write(self, live: LiveStream, data: bytes) -> None:
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
        if not self._matcher.narrow(live, data):
            if live.racing_device_close():
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
        self._send(P.Packet(P.A_OKAY, live.device_id, live.host_id))
        if live.recorded is None and len(live.candidates) == 1:
            self._commit(live, live.candidates[0])
        self._pump(live)

    def _on_host_close(self, host_id: int) -> None:
        live = self._live.pop(host_id, None)
        if live is None:
            return
        if live.recorded is None and live.sync is None:
            self._commit(live, live.candidates[0])
        live.closed = True
        self._check_finished()

    # ----------------------------------------------------------- sending

    def _commit(self, live: LiveStream, recorded: RecordedStream) -> None:
        self._matcher.commit(live, recorded)
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

    def _pump(self, live: LiveStream) -> None:
        if live.closed:
            return
        if live.recorded is None and live.sync is None:
            if not live.answer_due():
                return
            self._commit(live, live.candidates[0])
        while not live.awaiting_okay and live.next_chunk < len(live.chunks):
            chunk = live.chunks[live.next_chunk]
            if chunk.gate > live.host_offset:
                return
            if live.chunk_offset == 0:
                live.current = self._matcher.swapped(chunk.data)
            data = live.current
            piece = data[live.chunk_offset : live.chunk_offset + self.max_payload]
            self._send(P.Packet(P.A_WRTE, live.device_id, live.host_id, piece))
            live.awaiting_okay = True
            live.chunk_offset += len(piece)
            if live.chunk_offset >= len(data):
                live.next_chunk += 1
                live.chunk_offset = 0
        if live.next_chunk == len(live.chunks) and live.device_closes():
            self._send(P.Packet(P.A_CLSE, live.device_id, live.host_id))
            live.closed = True
            self._live.pop(live.host_id, None)
        self._check_finished()

    def _send(self, packet: P.Packet) -> None:
        self.outbox += packet.encode(with_checksum=self.version < P.VERSION_SKIP_CHECKSUM)

    def _check_finished(self) -> None:
        if self.script.end_by != "device" or self.finished:
            return
        for stream in self.script.streams:
            if stream.number in self._sync_pool.streams:
                if not self._sync_pool.stream_done(stream.number):
                    return
            elif stream.number not in self._matcher.used:
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
        return no_stream_message(self.script, set(self._matcher.used), service)

    def _fail_bytes(self, live: LiveStream, recorded: RecordedStream, actual: bytes) -> None:
        message, line = bytes_mismatch_message(self.fixture, recorded, live.host_offset, actual)
        self._mismatch(message, line)

    def leftovers(self) -> list[str]:
        """Recorded traffic the client never asked for, one sentence each."""
        return self._matcher.leftovers(self._sync_pool)
