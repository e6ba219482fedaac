"""The device side of one ADB connection: reading packets and routing them to streams
(the handshake before that: device_handshake.py).

One reader thread per connection reads packets and never blocks on a service; each stream's
service runs in a worker thread of the device's pool (workers.py) until it returns. What
adbd does with odd input, we do too (adb.cpp handle_packet): a bad magic, an unknown
command, a payload longer than negotiated or a bad checksum under version 0x01000000 drops
the connection; OPEN before the handshake is ignored; OKAY for a stream we no longer have
is answered with CLSE.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import struct
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

from adbwire.errors import ProtocolError
from adbwire.testing.device_handshake import DeviceHandshake, Phase
from adbwire.testing.device_state import DeviceState
from adbwire.testing.link_rate import LinkPacer, paced_reader
from adbwire.testing.packet_reader import ChunkStore, PacketReader, Payload, RawPacket
from adbwire.testing.packet_socket import PacketSocket
from adbwire.testing.reverse_listeners import HostLink
from adbwire.testing.services import open_service
from adbwire.testing.services.base import ServiceContext
from adbwire.testing.stream import DeviceStream, OutgoingPacket, StreamClosed
from adbwire.testing.workers import TaskGroup, WorkerPool
from adbwire.wire import packets as P

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["DeviceConnection"]

log = logging.getLogger("adbwire.testing")

KICK_GRACE: Final = 2.0
SERVICE_JOIN_TIMEOUT: Final = 5.0
_LE32 = struct.Struct("<i")


class DeviceConnection(DeviceHandshake):
    def __init__(
        self,
        sock: socket.socket,
        state: DeviceState,
        on_closed: Callable[[DeviceConnection], None],
        workers: WorkerPool,
        chunks: ChunkStore,
    ) -> None:
        self.reader_done = threading.Event()
        self._sock = sock
        mbps = state.options.link_mbps
        self._inbound = None if mbps is None else LinkPacer(mbps, self.reader_done)
        outbound = None if mbps is None else LinkPacer(mbps, self.reader_done)
        self._io = PacketSocket(sock, state.faults, self.reader_done, outbound)
        self._packets = PacketReader(paced_reader(sock.recv_into, self._inbound), chunks=chunks)
        self._state = state
        self._on_closed = on_closed
        self._streams_lock = threading.Lock()
        self._streams: dict[int, DeviceStream] = {}
        self._next_local_id = 1
        self._host_opens: dict[int, threading.Event] = {}
        """Streams we opened to the host (reverse forwards), until the host answers."""
        self._link = HostLink(f"host-{sock.fileno()}", self.open_to_host)
        """What a reverse listener needs of this connection (adbd names it host-FD)."""
        self._tasks = TaskGroup(workers)
        self.phase = Phase.WAIT_CNXN
        self.version = P.VERSION_CHECKSUMMED
        self.negotiated = False
        self.max_payload = P.MAX_PAYLOAD
        self.delayed_ack = False
        self.host_features: frozenset[str] = frozenset()
        self._context = ServiceContext(state, self.kick, self.host_features, self._link)
        self._token = b""
        self._offered_key: str | None = None
        self._reader = threading.Thread(
            target=self._run, name=f"adbd-sim conn {sock.getpeername()}", daemon=True
        )

    def start(self) -> None:
        self._reader.start()

    @property
    def reader(self) -> threading.Thread:
        return self._reader

    # ---- sending --------------------------------------------------------------------

    def send_packet(
        self, command: int, arg0: int, arg1: int, payload: ReadableBuffer = b""
    ) -> None:
        self._io.send_packet(command, arg0, arg1, payload)

    def send_packets(self, packets: Sequence[OutgoingPacket]) -> None:
        self._io.send_packets(packets)

    def forget_stream(self, local_id: int) -> None:
        with self._streams_lock:
            self._streams.pop(local_id, None)

    # ---- closing --------------------------------------------------------------------

    def close(self) -> None:
        """Drop the connection now (the device is stopping)."""
        self._io.close_now()

    def kick(self) -> None:
        """adbd restarting: let what was sent drain, then drop the connection."""
        self._io.drop()
        if not self.reader_done.wait(KICK_GRACE):
            self._io.close_now()

    # ---- the reader thread ------------------------------------------------------------

    def _run(self) -> None:
        io = self._io
        reader = self._packets
        try:
            while (packet := reader.read_packet(self.max_payload)) is not None:
                io.count_received(P.HEADER_SIZE + len(packet.payload))
                if not io.dead:  # once dropped, drain until the host closes
                    if packet.payload and self._must_verify(packet.check):
                        _verify(packet)
                    self._dispatch(packet)
                del packet  # hold no payload chunk while waiting for the next packet
        except (ProtocolError, StreamClosed, OSError) as error:
            log.debug("connection ends: %s", error)
        except Exception:
            log.exception("simulated adbd: unexpected error; dropping the connection")
        finally:
            self.reader_done.set()
            self._teardown()

    def _must_verify(self, check: int) -> bool:
        if not self.negotiated:
            return check != 0
        return self.version < P.VERSION_SKIP_CHECKSUM

    def _teardown(self) -> None:
        self._io.dead = True
        self._state.reverses.drop(self._link)  # adbd drops a transport's listeners
        with self._streams_lock:
            streams = list(self._streams.values())
            self._streams.clear()
        for stream in streams:
            stream.abort()
        for name in self._tasks.wait(SERVICE_JOIN_TIMEOUT):
            log.warning("service %s did not stop after its stream closed", name)
        try:
            self._io.close()
        finally:
            self._on_closed(self)

    # ---- dispatch ---------------------------------------------------------------------

    def _dispatch(self, packet: RawPacket) -> None:
        command, arg0, arg1, _check, payload = packet
        if command == P.A_CNXN:
            self._on_cnxn(arg0, arg1, payload)
        elif command == P.A_AUTH:
            self._on_auth(arg0, payload)
        elif command == P.A_STLS:
            self._on_stls()
        elif self.phase is not Phase.ONLINE:
            return
        elif command == P.A_OPEN:
            self._on_open(arg0, arg1, payload)
        elif command == P.A_OKAY:
            self._on_okay(arg0, arg1, payload)
        elif command == P.A_WRTE:
            self._on_write(arg0, arg1, payload)
        elif command == P.A_CLSE:
            self._on_close(arg0, arg1)

    def _on_open(self, remote_id: int, window: int, payload: Payload) -> None:
        if remote_id == 0:
            return
        if self.delayed_ack != bool(window):
            self.send_packet(P.A_CLSE, 0, remote_id)
            return
        name = bytes(payload).rstrip(b"\0").decode("utf-8", errors="surrogateescape")
        log.debug("OPEN %r", name)
        self._state.note_service(name)
        if self._state.faults.leaves_unanswered(name):
            return
        handler = None
        if not self._state.faults.refuses(name):
            try:
                handler = open_service(name, self._context)
            except Exception:
                log.exception("simulated adbd: opening %r failed", name)
        if handler is None:
            self.send_packet(P.A_CLSE, 0, remote_id)
            return
        with self._streams_lock:
            local_id = self._next_local_id
            self._next_local_id += 1
            stream = DeviceStream(
                self,
                local_id,
                remote_id,
                name,
                max_payload=self.max_payload,
                send_window=window if self.delayed_ack else None,
                faults=self._state.faults,
            )
            self._streams[local_id] = stream
        granted = b""
        if self.delayed_ack:
            granted = _LE32.pack(self._state.options.delayed_ack_window)
        self.send_packet(P.A_OKAY, local_id, remote_id, granted)
        try:
            self._tasks.submit(name, _serve, stream, handler)
        except RuntimeError:  # the device is stopping
            self.forget_stream(local_id)
            stream.abort()

    def _find(self, local_id: int, remote_id: int) -> DeviceStream | None:
        with self._streams_lock:
            stream = self._streams.get(local_id)
        if stream is None or (remote_id and stream.remote_id != remote_id):
            return None
        return stream

    def _on_okay(self, remote_id: int, local_id: int, payload: Payload) -> None:
        if not remote_id or not local_id:
            return
        with self._streams_lock:
            stream = self._streams.get(local_id)
        if stream is None:
            self.send_packet(P.A_CLSE, local_id, remote_id)
            return
        if stream.remote_id == 0:
            self._host_accepted(stream, remote_id)
        if stream.remote_id != remote_id:
            return
        if len(payload) == 4:
            stream.on_okay(_LE32.unpack(payload)[0])
        elif not payload:
            stream.on_okay(None)

    def _on_write(self, remote_id: int, local_id: int, payload: Payload) -> None:
        if not remote_id or not local_id:
            return
        stream = self._find(local_id, remote_id)
        if stream is not None:
            stream.on_write(payload)

    def _on_close(self, remote_id: int, local_id: int) -> None:
        log.debug("CLSE(%d, %d) from the host", remote_id, local_id)
        if not local_id:
            return
        stream = self._find(local_id, remote_id)
        if stream is not None:
            self.forget_stream(stream.local_id)
            opening = self._host_opens.pop(stream.local_id, None)
            if opening is None:
                stream.on_remote_close()
            else:  # the host refused our OPEN: nothing to close on its side
                stream.abort()
                opening.set()

    def open_to_host(self, service: str, timeout: float) -> DeviceStream | None:
        """OPEN a stream to the host, as adbd does for a reverse forward's connection: the
        stream once the host's OKAY came, None if it refused or did not answer in time."""
        answered = threading.Event()
        with self._streams_lock:
            if self._io.dead:
                return None
            local_id = self._next_local_id
            self._next_local_id += 1
            stream = DeviceStream(
                self,
                local_id,
                0,
                service,
                max_payload=self.max_payload,
                send_window=0 if self.delayed_ack else None,
                faults=self._state.faults,
            )
            self._streams[local_id] = stream
            self._host_opens[local_id] = answered
        window = self._state.options.delayed_ack_window if self.delayed_ack else 0
        with contextlib.suppress(StreamClosed):
            self.send_packet(P.A_OPEN, local_id, window, service.encode() + b"\0")
        answered.wait(timeout)
        with self._streams_lock:
            self._host_opens.pop(local_id, None)
            # Accepted even if the host already closed it: what it sent first is still read.
            accepted = stream.remote_id != 0
        if not accepted:
            self.forget_stream(local_id)
            stream.abort()
            return None
        return stream

    def _host_accepted(self, stream: DeviceStream, remote_id: int) -> None:
        with self._streams_lock:
            opening = self._host_opens.pop(stream.local_id, None)
            if opening is not None:
                stream.remote_id = remote_id
        if opening is not None:
            opening.set()

    def _drop_streams(self) -> None:
        with self._streams_lock:
            streams = list(self._streams.values())
            self._streams.clear()
        for stream in streams:
            stream.abort()


def _verify(packet: RawPacket) -> None:
    command, arg0, arg1, check, payload = packet
    P.verify_payload(P.Header(command, arg0, arg1, len(payload), check), payload)


def _serve(stream: DeviceStream, handler: Callable[[DeviceStream], None]) -> None:
    try:
        handler(stream)
    except StreamClosed:
        pass
    except Exception:
        log.exception("simulated adbd: service %r failed", stream.service)
    finally:
        with contextlib.suppress(StreamClosed):
            stream.close()
