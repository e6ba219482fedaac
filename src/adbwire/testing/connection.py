"""The device side of one ADB connection: handshake, AUTH, and routing packets to streams.

One reader thread per connection reads packets and never blocks on a service; each stream's
service runs in a worker thread of the device's pool (workers.py) until it returns. What
adbd does with odd input, we do too (adb.cpp handle_packet): a bad magic, an unknown
command, a payload longer than negotiated or a bad checksum under version 0x01000000 drops
the connection; OPEN before the handshake is ignored; OKAY for a stream we no longer have
is answered with CLSE.
"""

from __future__ import annotations

import contextlib
import enum
import logging
import os
import socket
import struct
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

from adbwire.errors import ProtocolError, RemoteProtocolError
from adbwire.testing.device_state import DeviceState
from adbwire.testing.link_rate import LinkPacer, paced_reader
from adbwire.testing.packet_reader import ChunkStore, PacketReader, Payload, RawPacket
from adbwire.testing.packet_socket import PacketSocket
from adbwire.testing.reverse_listeners import HostLink
from adbwire.testing.services import open_service
from adbwire.testing.services.base import ServiceContext
from adbwire.testing.stream import ConnectionGone, DeviceStream, OutgoingPacket, StreamClosed
from adbwire.testing.tls import STLS_VERSION, accept_tls
from adbwire.testing.workers import TaskGroup, WorkerPool
from adbwire.wire import packets as P
from adbwire.wire.banner import parse_banner

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["DeviceConnection"]

log = logging.getLogger("adbwire.testing")

TOKEN_SIZE: Final = 20
KICK_GRACE: Final = 2.0
SERVICE_JOIN_TIMEOUT: Final = 5.0
_LE32 = struct.Struct("<i")


class Phase(enum.Enum):
    WAIT_CNXN = "waiting for CNXN"
    TLS_REQUESTED = "STLS sent"
    AUTHORIZING = "AUTH token sent"
    AWAITING_USER = "waiting for the user to allow the key"
    ONLINE = "online"


class DeviceConnection:
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

    def _on_cnxn(self, version: int, max_payload: int, payload: Payload) -> None:
        if self.phase is Phase.ONLINE:
            self._drop_streams()
        if max_payload == 0:
            raise RemoteProtocolError("CNXN with a maximum payload of 0")
        banner = parse_banner(payload)
        options = self._state.options
        self.version = min(version, options.protocol_version)
        self._io.with_checksum = self.version < P.VERSION_SKIP_CHECKSUM
        self.max_payload = min(max_payload, options.max_payload)
        self.negotiated = True
        self.host_features = banner.features
        self._context = ServiceContext(self._state, self.kick, self.host_features, self._link)
        self.delayed_ack = options.delayed_ack and banner.has("delayed_ack")
        if options.tls:
            self.phase = Phase.TLS_REQUESTED
            self.send_packet(P.A_STLS, STLS_VERSION, 0)
        elif options.auth_required:
            self._send_token()
        else:
            self._go_online()

    def _on_stls(self) -> None:
        """The host answered our STLS: the TLS handshake follows at once (adb.cpp A_STLS)."""
        if self.phase is not Phase.TLS_REQUESTED:
            return
        options = self._state.options
        # Bytes received past the host's STLS are its ClientHello; no plain read follows.
        early = self._packets.switch_source(_ended)
        link = accept_tls(
            self._sock,
            self._state.keys.authorized,
            auth_required=options.auth_required and not options.accept_any_key,
            initial=early,
        )
        if link is None:  # one attempt only: adbd kicks the transport
            raise ConnectionGone("TLS handshake failed")
        self._packets.switch_source(paced_reader(link.recv_into, self._inbound))
        self._io.use_tls(link)
        self._go_online()

    def _send_token(self) -> None:
        self.phase = Phase.AUTHORIZING
        self._token = os.urandom(TOKEN_SIZE)
        self.send_packet(P.A_AUTH, P.AUTH_TOKEN, 0, self._token)

    def _on_auth(self, kind: int, payload: Payload) -> None:
        if self.phase not in (Phase.AUTHORIZING, Phase.AWAITING_USER):
            return
        keys = self._state.keys
        if kind == P.AUTH_SIGNATURE:
            if self._state.options.accept_any_key or keys.find_signer(self._token, bytes(payload)):
                self._go_online()
            else:
                self._send_token()
        elif kind == P.AUTH_RSAPUBLICKEY:
            key_text = bytes(payload).split(b"\0", 1)[0].decode("ascii", errors="replace")
            self._offer_key(key_text)

    def _offer_key(self, key_text: str) -> None:
        options = self._state.options
        keys = self._state.keys
        if options.accept_any_key:
            self._go_online()
            return
        try:
            if keys.is_authorized(key_text):
                self._go_online()
                return
        except ValueError:
            return
        self.phase = Phase.AWAITING_USER
        self._offered_key = key_text
        if options.accept_new_keys:
            self._tasks.submit(f"allow {key_text[:12]}", self._allow_later, key_text)
        else:
            keys.add_pending(key_text)

    def _allow_later(self, key_text: str) -> None:
        if self.reader_done.wait(self._state.options.accept_delay):
            return
        try:
            self._state.keys.authorize(key_text)
        except ValueError:
            log.warning("the offered public key is malformed; not allowing it")
            return
        self.on_key_authorized(key_text)

    def on_key_authorized(self, key_text: str) -> None:
        """The user allowed a key: a connection that offered it comes online."""
        if self.phase is Phase.AWAITING_USER and self._offered_key == key_text:
            with contextlib.suppress(StreamClosed):
                self._go_online()

    def _go_online(self) -> None:
        self.phase = Phase.ONLINE
        self.send_packet(
            P.A_CNXN, self._state.options.protocol_version, self.max_payload, self._state.banner()
        )

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


def _ended(_view: memoryview) -> int:
    return 0


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
