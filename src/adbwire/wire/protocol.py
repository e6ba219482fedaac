"""The host side of the ADB protocol as a state machine with no I/O.

Packets go in (`receive`), events come out; calls such as `open` or `write` return the
packets to send. The runtime (`connection.py`) owns sockets, threads and waiting; this
module owns every rule about which packet may come when, so it can be tested on tables
of packets without a device.

Connection states::

    CONNECTING --CNXN--> ONLINE
    CONNECTING --AUTH TOKEN--> AUTHENTICATING --(signature accepted) CNXN--> ONLINE
    AUTHENTICATING --(all keys refused, public key sent)--> UNAUTHORIZED --CNXN--> ONLINE
    any --transport closed--> CLOSED

Streams: OPEN -> (OKAY: open | CLSE: refused) -> WRTE/OKAY ... -> CLSE. Without
delayed_ack one WRTE may be in flight per stream; with it, the peer grants a byte window
(announced in its first OKAY) and every OKAY returns credit.

The device may open streams too (reverse forwarding): its OPEN becomes a `StreamOffered`
event, which the runtime answers with `accept_offer` (our OKAY) or `refuse_offer` (CLSE).
"""

from __future__ import annotations

import struct

from adbwire.errors import AuthRejectedError, LocalProtocolError, RemoteProtocolError
from adbwire.wire import packets as P
from adbwire.wire.banner import Banner, parse_banner
from adbwire.wire.lazy_logging import get_logger
from adbwire.wire.protocol_events import (
    AuthChallenge,
    Connected,
    ConnectionState,
    Event,
    Reply,
    StreamClosed,
    StreamData,
    StreamOffered,
    StreamOpened,
    StreamPhase,
    StreamRefused,
    StreamState,
    StreamWritable,
    TlsRequested,
)

__all__ = [  # the states and events live in protocol_events.py
    "ACK_BATCH_FRACTION",
    "INITIAL_RECEIVE_WINDOW",
    "LAST_LOCAL_ID",
    "STLS_VERSION",
    "AuthChallenge",
    "Connected",
    "ConnectionState",
    "Event",
    "HostProtocol",
    "Reply",
    "StreamClosed",
    "StreamData",
    "StreamOffered",
    "StreamOpened",
    "StreamPhase",
    "StreamRefused",
    "StreamState",
    "StreamWritable",
    "TlsRequested",
]

log = get_logger(__name__)

INITIAL_RECEIVE_WINDOW = 1024 * 1024
"""Bytes we let a device send on one stream before it must wait for our OKAY (delayed_ack).

One maximum payload: a bulk pull then keeps at most about two packets ahead of a short
reply on another stream of the same connection (benchmarks: echo latency during a 512 MiB
pull went from 4.2-4.7x idle with 4 MiB to 2.0x, pull throughput still above Google's adb)."""

ACK_BATCH_FRACTION = 4
STLS_VERSION = 0x01000000
"""adb's A_STLS_VERSION, which both sides send in STLS (adb reads no meaning into it)."""

LAST_LOCAL_ID = 0x7FFFFFFF
"""Local stream ids run 1..LAST_LOCAL_ID, then wrap to 1 (0 names no stream in ADB)."""

_U32 = struct.Struct("<I")
_I32 = struct.Struct("<i")  # acknowledged byte counts are signed in adbd


class HostProtocol:
    """The host (adb client) end of one ADB connection."""

    def __init__(
        self,
        banner: Banner,
        *,
        version: int = P.VERSION_SKIP_CHECKSUM,
        max_payload: int = P.MAX_PAYLOAD,
        receive_window: int = INITIAL_RECEIVE_WINDOW,
    ) -> None:
        self.host_banner = banner
        self.state = ConnectionState.CONNECTING
        self.our_version = version
        self.our_max_payload = max_payload
        self.version = P.VERSION_CHECKSUMMED
        self.max_payload = max_payload
        self.device_banner: Banner | None = None
        self.delayed_ack = False
        self.receive_window = receive_window
        self.streams: dict[int, StreamState] = {}
        self._next_local_id = 1
        self._public_key_sent = False
        self.tls = False
        """The device asked for TLS (STLS); AUTH is then ignored, as adb does."""
        self._handlers = {
            P.A_CNXN: self._on_cnxn,
            P.A_AUTH: self._on_auth,
            P.A_STLS: self._on_stls,
            P.A_OPEN: self._on_open,
            P.A_OKAY: self._on_okay,
            P.A_WRTE: self._on_wrte,
            P.A_CLSE: self._on_clse,
        }

    # ----------------------------------------------------------- packets out

    @property
    def sends_checksums(self) -> bool:
        return self.version < P.VERSION_SKIP_CHECKSUM

    def connect_packet(self) -> P.Packet:
        return P.Packet(P.A_CNXN, self.our_version, self.our_max_payload, self.host_banner.encode())

    def sign(self, signature: bytes) -> P.Packet:
        self._require(ConnectionState.AUTHENTICATING, "send an AUTH signature")
        return P.Packet(P.A_AUTH, P.AUTH_SIGNATURE, 0, signature)

    def offer_public_key(self, public_key: bytes) -> P.Packet:
        self._require(ConnectionState.AUTHENTICATING, "offer a public key")
        self._public_key_sent = True
        self.state = ConnectionState.UNAUTHORIZED
        payload = public_key if public_key.endswith(b"\0") else public_key + b"\0"
        return P.Packet(P.A_AUTH, P.AUTH_RSAPUBLICKEY, 0, payload)

    def start_tls_packet(self) -> P.Packet:
        """Our answer to the device's STLS, sent right before the TLS handshake starts."""
        if not self.tls:
            raise LocalProtocolError("cannot answer STLS: the device did not ask for TLS")
        return P.Packet(P.A_STLS, STLS_VERSION, 0, b"")

    def open(self, service: str) -> tuple[int, P.Packet]:
        self._require(ConnectionState.ONLINE, f"open {service!r}")
        local_id = self._new_local_id()
        window = self.receive_window if self.delayed_ack else 0
        self.streams[local_id] = StreamState(local_id, service, receive_window=window)
        return local_id, P.Packet(P.A_OPEN, local_id, window, service.encode() + b"\0")

    def _new_local_id(self) -> int:
        local_id = self._next_local_id
        while local_id in self.streams:  # only after a wrap, past a stream still open
            local_id = local_id % LAST_LOCAL_ID + 1
        self._next_local_id = local_id % LAST_LOCAL_ID + 1
        return local_id

    def accept_offer(self, offer: StreamOffered) -> tuple[int, P.Packet]:
        """Take a stream the device opened: its local id and the OKAY that says so (under
        delayed_ack the OKAY grants the device our receive window, as adbd's does)."""
        self._require(ConnectionState.ONLINE, f"accept {offer.service!r}")
        local_id = self._new_local_id()
        window = self.receive_window if self.delayed_ack else 0
        credit = offer.window if self.delayed_ack else 1
        self.streams[local_id] = StreamState(
            local_id,
            offer.service,
            phase=StreamPhase.OPEN,
            remote_id=offer.remote_id,
            send_credit=credit,
            receive_window=window,
        )
        granted = _U32.pack(window) if self.delayed_ack else b""
        return local_id, P.Packet(P.A_OKAY, local_id, offer.remote_id, granted)

    @staticmethod
    def refuse_offer(offer: StreamOffered) -> P.Packet:
        """The CLSE that turns down a stream the device opened (adb's answer too)."""
        return P.Packet(P.A_CLSE, 0, offer.remote_id)

    def can_write(self, local_id: int) -> bool:
        stream = self._stream(local_id)
        return stream.phase is StreamPhase.OPEN and stream.send_credit > 0

    def write_limit(self, local_id: int) -> int:
        """How many bytes the next WRTE on this stream may carry."""
        stream = self._stream(local_id)
        if self.delayed_ack:
            return min(self.max_payload, stream.send_credit)
        return self.max_payload

    def write(self, local_id: int, data: bytes | bytearray | memoryview) -> P.Packet:
        stream = self._stream(local_id)
        if stream.phase is not StreamPhase.OPEN:
            raise LocalProtocolError(f"write on stream {local_id} in phase {stream.phase.value}")
        if not data or len(data) > self.write_limit(local_id) or stream.send_credit <= 0:
            raise LocalProtocolError(
                f"WRTE of {len(data)} bytes on stream {local_id} exceeds what the peer allows"
            )
        stream.send_credit -= len(data) if self.delayed_ack else 1
        return P.Packet(P.A_WRTE, local_id, stream.remote_id, data)

    def acknowledge(self, local_id: int, consumed: int) -> P.Packet | None:
        """The OKAY that tells the device we consumed `consumed` bytes of its data, if due.

        Classic flow control needs one OKAY per WRTE. Under delayed_ack credit is returned in
        batches of ACK_BATCH_FRACTION of the window: the device keeps most of the window in
        hand, and a short reply (a shell command's output) costs no OKAY at all."""
        stream = self.streams.get(local_id)
        if stream is None or stream.phase is not StreamPhase.OPEN:
            return None
        if not self.delayed_ack:
            return P.Packet(P.A_OKAY, local_id, stream.remote_id, b"")
        stream.unacknowledged += consumed
        if stream.unacknowledged < stream.receive_window // ACK_BATCH_FRACTION:
            return None
        payload = _U32.pack(stream.unacknowledged)
        stream.unacknowledged = 0
        return P.Packet(P.A_OKAY, local_id, stream.remote_id, payload)

    def close(self, local_id: int) -> P.Packet | None:
        stream = self.streams.pop(local_id, None)
        if stream is None or stream.phase is StreamPhase.CLOSED:
            return None
        opening = stream.phase is StreamPhase.OPENING
        stream.phase = StreamPhase.CLOSED
        if opening:
            return None  # no remote id yet: its OKAY, when it comes, is answered with CLSE
        return P.Packet(P.A_CLSE, local_id, stream.remote_id)

    def connection_lost(self) -> None:
        """Mark the connection closed; every stream is gone."""
        self.state = ConnectionState.CLOSED
        self.streams.clear()

    # ----------------------------------------------------------- packets in

    def check_payload(self, header: P.Header, payload: bytes | bytearray | memoryview) -> None:
        """Verify a checksum when the negotiated version still uses them (0x01000000).

        The handshake is not verified: the version is not settled yet, and a newer device
        may leave a stray value in the field (Google's adb never verifies on receive)."""
        if self.state is ConnectionState.ONLINE and self.version < P.VERSION_SKIP_CHECKSUM:
            P.verify_payload(header, payload)

    def receive(self, header: P.Header, payload: bytes | bytearray | memoryview) -> list[Event]:
        handler = self._handlers.get(header.command)
        if handler is None:
            raise RemoteProtocolError(f"unexpected {header.name} packet from the device")
        return handler(header, payload)

    def _on_cnxn(self, header: P.Header, payload: bytes | bytearray | memoryview) -> list[Event]:
        if self.state is ConnectionState.ONLINE:
            # A device may resend CNXN (e.g. after adbd restarted under the same socket).
            raise RemoteProtocolError("the device restarted the connection (second CNXN)")
        banner = parse_banner(payload)
        self.version = min(self.our_version, header.arg0)
        self.max_payload = max(256, min(self.our_max_payload, header.arg1))
        self.device_banner = banner
        self.delayed_ack = banner.has("delayed_ack") and self.host_banner.has("delayed_ack")
        self.state = ConnectionState.ONLINE
        return [Connected(banner, self.version, self.max_payload)]

    def _on_auth(self, header: P.Header, payload: bytes | bytearray | memoryview) -> list[Event]:
        if self.tls:
            return []  # TLS authenticated us; adb ignores AUTH from then on
        if header.arg0 != P.AUTH_TOKEN:
            raise RemoteProtocolError(f"the device sent AUTH type {header.arg0}, expected TOKEN")
        if self.state is ConnectionState.ONLINE:
            raise RemoteProtocolError("AUTH after the connection was established")
        if self._public_key_sent:
            raise AuthRejectedError(
                "the device rejected our public key: it did not accept the debugging prompt"
            )
        self.state = ConnectionState.AUTHENTICATING
        return [AuthChallenge(bytes(payload))]

    def _on_stls(self, header: P.Header, payload: bytes | bytearray | memoryview) -> list[Event]:
        if self.state is ConnectionState.ONLINE or self.tls:
            raise RemoteProtocolError("STLS after the connection was set up")
        self.tls = True
        self.state = ConnectionState.AUTHENTICATING
        return [TlsRequested(header.arg0)]

    def _on_open(self, header: P.Header, payload: bytes | bytearray | memoryview) -> list[Event]:
        self._require_online(header)
        if header.arg0 == 0:
            return []  # names no stream to answer; adb drops it too
        refuse = Reply(P.Packet(P.A_CLSE, 0, header.arg0))
        if not self.delayed_ack and header.arg1 != 0:
            return [refuse]  # a window without delayed_ack: adb refuses it
        raw = bytes(payload)
        raw = raw[:-1] if raw.endswith(b"\0") else raw
        try:
            service = raw.decode("utf-8")
        except UnicodeDecodeError:
            return [refuse]
        if not service or "\0" in service or header.arg1 > 0x7FFFFFFF:
            return [refuse]
        return [StreamOffered(header.arg0, header.arg1, service)]

    def _on_okay(self, header: P.Header, payload: bytes | bytearray | memoryview) -> list[Event]:
        self._require_online(header)
        if header.arg0 == 0 or header.arg1 == 0:
            # Names no stream; adb drops it. Answering OKAY(id, 0) with CLSE(0, id) would
            # ask the device to close its stream `id`, whichever stream that is.
            log.debug("ignoring an OKAY with a zero id: %r", header)
            return []
        stream = self.streams.get(header.arg1)
        if stream is None:
            # The device opened (or acknowledged) a stream we no longer have, e.g. an OPEN we
            # cancelled before its OKAY came: close its end, as adb does, so it stops.
            return [Reply(P.Packet(P.A_CLSE, header.arg1, header.arg0))]
        credit = self._credit_from(payload)
        if credit is None:
            log.debug("ignoring a malformed OKAY for stream %d: %r", stream.local_id, header)
            return []  # adbd drops such packets too
        if stream.phase is StreamPhase.OPENING:
            stream.phase = StreamPhase.OPEN
            stream.remote_id = header.arg0
            stream.send_credit = credit
            return [StreamOpened(stream.local_id)]
        if header.arg0 != stream.remote_id:
            log.debug(
                "ignoring an OKAY for stream %d from remote id %d", stream.local_id, header.arg0
            )
            return []
        if self.delayed_ack:
            stream.send_credit += credit
        else:
            stream.send_credit = 1
        if stream.send_credit <= 0:
            return []  # a signed count can take credit back: nothing to write yet
        return [StreamWritable(stream.local_id)]

    def _credit_from(self, payload: bytes | bytearray | memoryview) -> int | None:
        """Bytes an OKAY acknowledges (delayed_ack), 1 packet (classic), or None if malformed:
        under delayed_ack every OKAY carries a signed 32-bit count, otherwise none does."""
        if not self.delayed_ack:
            return 1 if not payload else None
        if len(payload) != 4:
            return None
        value: int = _I32.unpack(payload)[0]
        return value

    def _on_wrte(self, header: P.Header, payload: bytes | bytearray | memoryview) -> list[Event]:
        self._require_online(header)
        stream = self.streams.get(header.arg1)
        if stream is None or stream.phase is not StreamPhase.OPEN:
            return []  # data racing our CLSE; the device gets our CLSE and stops
        if header.arg0 != stream.remote_id:
            log.debug(
                "ignoring a WRTE for stream %d from remote id %d", stream.local_id, header.arg0
            )
            return []
        if not payload:
            # Nothing to consume, and an empty chunk must not read as the end of the stream;
            # classic flow control still owes the device its OKAY.
            return [] if self.delayed_ack else [Reply(P.Packet(P.A_OKAY, header.arg1, header.arg0))]
        return [StreamData(stream.local_id, payload)]

    def _on_clse(self, header: P.Header, payload: bytes | bytearray | memoryview) -> list[Event]:
        self._require_online(header)
        stream = self.streams.get(header.arg1)
        if stream is None:
            return []
        if header.arg0 not in (0, stream.remote_id) and stream.phase is StreamPhase.OPEN:
            log.debug(
                "ignoring a CLSE for stream %d from remote id %d", stream.local_id, header.arg0
            )
            return []
        del self.streams[stream.local_id]
        refused = stream.phase is StreamPhase.OPENING
        stream.phase = StreamPhase.CLOSED
        return [StreamRefused(stream.local_id) if refused else StreamClosed(stream.local_id)]

    # ----------------------------------------------------------- helpers

    def _stream(self, local_id: int) -> StreamState:
        stream = self.streams.get(local_id)
        if stream is None:
            raise LocalProtocolError(f"no open stream with local id {local_id}")
        return stream

    def _require(self, state: ConnectionState, action: str) -> None:
        if self.state is not state:
            raise LocalProtocolError(f"cannot {action} while {self.state.value}")

    def _require_online(self, header: P.Header) -> None:
        if self.state is not ConnectionState.ONLINE:
            raise RemoteProtocolError(f"{header.name} before the connection was established")
