"""The data of the host protocol state machine (`protocol.py`): the connection's states, the
events one received packet turns into, and what it keeps per stream. Plain data, no I/O."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from adbwire.wire import packets as P
from adbwire.wire.banner import Banner


class ConnectionState(str, Enum):
    CONNECTING = "connecting"
    AUTHENTICATING = "authenticating"
    UNAUTHORIZED = "unauthorized"
    ONLINE = "online"
    CLOSED = "closed"


# ---------------------------------------------------------------- events


@dataclass(frozen=True, slots=True)
class Connected:
    banner: Banner
    version: int
    max_payload: int


@dataclass(frozen=True, slots=True)
class AuthChallenge:
    """The device sent a token; answer with `sign` or, when out of keys, `offer_public_key`."""

    token: bytes


@dataclass(frozen=True, slots=True)
class TlsRequested:
    """The device answered CNXN with STLS (wireless debugging): send `start_tls_packet`,
    run the TLS handshake on the link, then the device's CNXN arrives inside TLS."""

    version: int


@dataclass(frozen=True, slots=True)
class StreamOpened:
    local_id: int


@dataclass(frozen=True, slots=True)
class StreamRefused:
    local_id: int


@dataclass(frozen=True, slots=True)
class StreamData:
    local_id: int
    payload: bytes | bytearray | memoryview


@dataclass(frozen=True, slots=True)
class StreamWritable:
    """The device acknowledged data: the stream may send again."""

    local_id: int


@dataclass(frozen=True, slots=True)
class StreamClosed:
    local_id: int


@dataclass(frozen=True, slots=True)
class StreamOffered:
    """The device opened a stream (reverse forwarding): answer with `accept_offer` or
    `refuse_offer`. `service` is the device's text, untrusted."""

    remote_id: int
    window: int
    service: str


@dataclass(frozen=True, slots=True)
class Reply:
    """A packet the protocol itself must send in answer (the runtime just sends it)."""

    packet: P.Packet


Event = (
    Connected
    | AuthChallenge
    | TlsRequested
    | StreamOpened
    | StreamRefused
    | StreamData
    | StreamWritable
    | StreamClosed
    | StreamOffered
    | Reply
)


# ---------------------------------------------------------------- per-stream state


class StreamPhase(str, Enum):
    OPENING = "opening"
    OPEN = "open"
    CLOSED = "closed"


@dataclass(slots=True)
class StreamState:
    local_id: int
    service: str
    phase: StreamPhase = StreamPhase.OPENING
    remote_id: int = 0
    send_credit: int = 0
    """Bytes we may still send (delayed_ack), or 1/0 packets in flight allowed (classic)."""
    unacknowledged: int = 0
    """Bytes consumed but not yet returned to the device as credit (delayed_ack)."""
    receive_window: int = 0
    """The window our OPEN announced (delayed_ack); OKAYs are batched against it."""
