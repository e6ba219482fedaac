"""The connection runtime: streams opened and closed, packets sent and applied.

The handshake is in handshake.py; who reads the link, in reading.py.

Threads: one thread at a time reads the transport (a waiting caller or the reader thread,
wire/reading.py); it decodes packets, feeds them to the sans-IO `HostProtocol` and hands
events to streams under the state lock (it never blocks on a consumer). Any thread may
write; packet bytes go out under the write lock. When the link fails, every open stream and
every waiter gets the error at once.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from typing import Protocol

from adbwire.errors import (
    AdbwireError,
    ConnectionClosedError,
    DisconnectedError,
    StreamRefusedError,
    TransportError,
    UsageError,
)
from adbwire.wire import packets as P
from adbwire.wire.banner import HOST_FEATURES, Banner, host_banner
from adbwire.wire.handshake import handshake
from adbwire.wire.lazy_logging import get_logger
from adbwire.wire.operation import current_operation
from adbwire.wire.protocol import (
    ConnectionState,
    Event,
    HostProtocol,
    Reply,
    StreamClosed,
    StreamData,
    StreamOffered,
    StreamOpened,
    StreamRefused,
    StreamWritable,
)
from adbwire.wire.reading import PacketReader
from adbwire.wire.stream import Buffer, Stream
from adbwire.wire.timeouts import Deadline, Timeouts
from adbwire.wire.transport import BatchWriter, Transport
from adbwire.wire.wakeup import Wakeup

log = get_logger(__name__)

MAX_SERVICE_LENGTH = 64 * 1024


class Signer(Protocol):
    """A key that can answer an AUTH token (see `adbwire.wire.keys`)."""

    def sign(self, token: bytes) -> bytes: ...

    def public_key_bytes(self) -> bytes: ...


StateListener = Callable[[ConnectionState], None]
OfferHandler = Callable[[str], Callable[[Stream], None] | None]
"""Given the service a device-opened stream names, a starter for it (None refuses it).
Called by the reader thread under the state lock: it must decide at once, and the starter
it returns (called once our OKAY is out) must only hand the stream to another thread."""


class Connection:
    """One authenticated ADB connection to one device; open streams with `open_stream`."""

    def __init__(self, transport: Transport, protocol: HostProtocol, timeouts: Timeouts) -> None:
        self.transport = transport
        self.timeouts = timeouts
        self.state_lock = threading.Lock()
        self._protocol = protocol
        self._write_lock = threading.Lock()
        self._changed = threading.Condition(self.state_lock)
        self._streams: dict[int, Stream] = {}
        self._pending_events: list[Event] = []
        self._failure: AdbwireError | None = None
        self._reading = PacketReader(
            transport, self.state_lock, self._on_packet, self._fail, self._payload_limit
        )
        self.state_listener: StateListener | None = None
        self._features: frozenset[str] = frozenset()
        self._features_of: Banner | None = None
        self._tls_done = threading.Event()
        """Set once the link runs TLS (or failed): the reader, paused after STLS, reads on."""
        self.offer_handler: OfferHandler | None = None
        """Takes streams the device opens (reverse forwarding); None refuses them all."""

    # ----------------------------------------------------------- set-up

    @classmethod
    def open(
        cls,
        transport: Transport,
        keys: Sequence[Signer],
        *,
        timeouts: Timeouts | None = None,
        features: tuple[str, ...] = HOST_FEATURES,
        max_payload: int = P.MAX_PAYLOAD,
        version: int = P.VERSION_SKIP_CHECKSUM,
        on_state: StateListener | None = None,
    ) -> Connection:
        """Connect the transport and complete CNXN (and AUTH) within the timeouts."""
        timeouts = timeouts or Timeouts()
        protocol = HostProtocol(host_banner(features), version=version, max_payload=max_payload)
        try:
            transport.connect(timeouts.connect)
        except BaseException:
            transport.close()
            raise
        connection = cls(transport, protocol, timeouts)
        connection.state_listener = on_state
        try:
            handshake(connection, keys)
        except BaseException:
            connection.close()
            raise
        return connection

    def _notify_state(self, state: ConnectionState) -> None:
        if self.state_listener is not None:
            self.state_listener(state)

    # ----------------------------------------------------------- what callers see

    @property
    def state(self) -> ConnectionState:
        return self._protocol.state

    @property
    def banner(self) -> Banner:
        banner = self._protocol.device_banner
        if banner is None:
            raise DisconnectedError("the connection is not established")
        return banner

    @property
    def features(self) -> frozenset[str]:
        """Features both sides support: only these may be used."""
        banner = self.banner
        if self._features_of is not banner:
            self._features = banner.features & self._protocol.host_banner.features
            self._features_of = banner
        return self._features

    @property
    def max_payload(self) -> int:
        return self._protocol.max_payload

    @property
    def version(self) -> int:
        return self._protocol.version

    @property
    def delayed_ack(self) -> bool:
        return self._protocol.delayed_ack

    @property
    def failure(self) -> AdbwireError | None:
        return self._failure

    def open_stream(self, service: str, timeout: float | None = None) -> Stream:
        """OPEN a service; a refusal raises StreamRefusedError at once, never a timeout."""
        encoded_length = len(service.encode())
        # abb services separate their arguments with NULs; for all others a NUL ends the name.
        nul_allowed = service.startswith(("abb:", "abb_exec:"))
        if (
            not service
            or ("\0" in service and not nul_allowed)
            or encoded_length > MAX_SERVICE_LENGTH
        ):
            raise UsageError(f"invalid service name {service[:80]!r}")
        if encoded_length + 1 > self.max_payload:
            raise UsageError(
                f"service request of {encoded_length} bytes exceeds the device's "
                f"maximum payload of {self.max_payload} bytes"
            )
        deadline = Deadline(
            self.timeouts.operation if timeout is None else timeout, f"opening {service!r}"
        )
        with self.state_lock:
            if self._failure is not None:
                raise self._failure
            local_id, packet = self._protocol.open(service)
            stream = Stream(self, local_id, service)
            self._streams[local_id] = stream
        operation = current_operation()
        if operation is not None:
            operation.adopt(stream)
        try:
            self._send(packet)
            stream._wait_open(deadline)
        except BaseException:
            stream.close()
            raise
        if stream.refused:
            stream.close()
            explain = getattr(self.transport, "refusal_reason", None)  # a replay says why
            raise StreamRefusedError(service, explain(service) if callable(explain) else None)
        return stream

    def close(self) -> None:
        """Close every stream and the link (idempotent)."""
        self._fail(ConnectionClosedError(f"{self.transport.address}: the connection was closed"))
        reader = self._reading.thread
        if reader.is_alive() and reader is not threading.current_thread():
            reader.join(timeout=5)

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ----------------------------------------------------------- used by Stream

    def _send(self, packet: P.Packet) -> None:
        header = packet.header(with_checksum=self._protocol.sends_checksums)
        self._write_locked(lambda transport: transport.write_packet(header, packet.payload))

    def _send_many(self, packets: Sequence[P.Packet]) -> None:
        """Several packets in order, in one system call where the transport can do that
        (what a small-payload link costs per packet)."""
        if len(packets) == 1:
            self._send(packets[0])
            return
        checksums = self._protocol.sends_checksums
        pairs = [(packet.header(with_checksum=checksums), packet.payload) for packet in packets]

        def write(transport: Transport) -> None:
            if isinstance(transport, BatchWriter):
                transport.write_packets(pairs)
            else:
                for header, payload in pairs:
                    transport.write_packet(header, payload)

        self._write_locked(write)

    def _write_locked(self, write: Callable[[Transport], None]) -> None:
        try:
            with self._write_lock:
                write(self.transport)
        except TransportError as exc:
            self._fail(exc)
            raise
        except BaseException as exc:
            # Interrupted part-way through a packet (KeyboardInterrupt, a bug): the byte
            # stream is out of step with the device, so the link cannot be used any more.
            self._fail(DisconnectedError(f"{self.transport.address}: send interrupted ({exc!r})"))
            raise

    def _wait(self, wakeup: Wakeup, timeout: float | None) -> None:
        """A stream's wait for news (which may end without any): see wire/reading.py."""
        self._reading.wait(wakeup, timeout)

    def _interrupt(self, *wakeups: Wakeup) -> None:
        """A stream was closed: a read its caller does for the connection stops."""
        self._reading.interrupt(*wakeups)

    def _can_write(self, local_id: int) -> bool:
        return local_id in self._protocol.streams and self._protocol.can_write(local_id)

    def _write_limit(self, local_id: int) -> int:
        return self._protocol.write_limit(local_id)

    def _make_write(self, local_id: int, chunk: Buffer) -> P.Packet:
        return self._protocol.write(local_id, chunk)

    def _acknowledge(self, local_id: int, consumed: int) -> None:
        with self.state_lock:
            packet = self._protocol.acknowledge(local_id, consumed)
        if packet is not None:
            self._send_quietly(packet)

    def _close_stream(self, stream: Stream) -> None:
        with self.state_lock:
            self._streams.pop(stream.local_id, None)
            packet = self._protocol.close(stream.local_id) if self._failure is None else None
        if packet is not None:
            self._send_quietly(packet)

    def _send_quietly(self, packet: P.Packet) -> None:
        """Send a packet whose loss only matters if the link is gone (then streams know)."""
        with contextlib.suppress(TransportError):
            self._send(packet)

    # ----------------------------------------------------------- packets in

    def _payload_limit(self) -> int:
        if self._protocol.state is ConnectionState.ONLINE:
            return self._protocol.max_payload
        return int(P.MAX_PAYLOAD)  # until CNXN settles the device's own limit

    def _on_packet(
        self, header: P.Header, payload: bytes | bytearray, waiter: Wakeup | None
    ) -> bool:
        """Apply one packet (from whichever thread reads); True when it brought news for
        `waiter`, which is then left unset (its caller is the one reading)."""
        if header.command == P.A_OPEN:
            self._on_device_open(header, payload)
            return False
        replies: list[P.Packet] = []
        wake: list[Wakeup] = []
        with self.state_lock:
            self._protocol.check_payload(header, payload)
            for event in self._protocol.receive(header, payload):
                if isinstance(event, Reply):
                    replies.append(event.packet)
                else:
                    self._dispatch(event, wake)
        news = False
        for wakeup in wake:
            if wakeup is waiter:
                news = True
            else:
                wakeup.set()
        for packet in replies:
            self._send_quietly(packet)
        if header.command == P.A_STLS:
            # What follows on the link is TLS: read nothing until it is set up.
            self._tls_done.wait()
        return news

    def _on_device_open(self, header: P.Header, payload: bytes | bytearray) -> None:
        """The device opened a stream (reverse forwarding): the offer handler takes it or
        it is refused with CLSE, as adb refuses a service it does not offer."""
        answer: P.Packet | None = None
        start: Callable[[], None] | None = None
        with self.state_lock:
            self._protocol.check_payload(header, payload)
            for event in self._protocol.receive(header, payload):
                if isinstance(event, Reply):
                    answer = event.packet
                elif isinstance(event, StreamOffered):
                    answer, start = self._answer_offer(event)
        if answer is not None:
            self._send_quietly(answer)
        if start is not None:
            start()

    def _answer_offer(self, offer: StreamOffered) -> tuple[P.Packet, Callable[[], None] | None]:
        handler = self.offer_handler
        serve = handler(offer.service) if handler is not None and self._failure is None else None
        if serve is None:
            return self._protocol.refuse_offer(offer), None
        local_id, okay = self._protocol.accept_offer(offer)
        stream = Stream(self, local_id, offer.service)
        stream._on_opened()
        self._streams[local_id] = stream
        return okay, lambda: serve(stream)

    def _dispatch(self, event: Event, wake: list[Wakeup]) -> None:
        """Apply one event (state lock held); the threads to wake go into `wake`."""
        if isinstance(event, StreamData):
            wake.append(self._streams[event.local_id]._on_data(event.payload))
        elif isinstance(event, StreamWritable):
            wake.append(self._streams[event.local_id]._on_writable())
        elif isinstance(event, StreamOpened):
            wake.append(self._streams[event.local_id]._on_opened())
        elif isinstance(event, StreamClosed):
            stream = self._streams.pop(event.local_id, None)
            if stream is not None:
                wake.extend(stream._on_remote_close())
        elif isinstance(event, StreamRefused):
            stream = self._streams.pop(event.local_id, None)
            if stream is not None:
                wake.append(stream._on_refused())
        else:
            self._pending_events.append(event)
            self._changed.notify_all()

    def _fail(self, error: AdbwireError) -> None:
        with self.state_lock:
            if self._failure is not None:
                return
            self._failure = error
            self._protocol.connection_lost()
            streams = list(self._streams.values())
            self._streams.clear()
            stream_error = (
                error
                if isinstance(error, DisconnectedError)
                else DisconnectedError(f"{self.transport.address}: device disconnected ({error})")
            )
            for stream in streams:
                stream._on_failure(stream_error)
            self._changed.notify_all()
        self._reading.stop()
        self.transport.close()
        self._tls_done.set()  # a reader paused after STLS now finds the link closed
        self._notify_state(ConnectionState.CLOSED)
