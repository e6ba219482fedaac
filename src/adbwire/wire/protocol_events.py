"""The data of the host protocol state machine (`protocol.py`): the connection's states, the
events one received packet turns into, and what it keeps per stream. Plain data, no I/O."""

from __future__ import annotations

from enum import Enum

from adbwire.wire import packets as P
from adbwire.wire.banner import Banner
from adbwire.wire.values import FrozenValue, Value

_set = object.__setattr__


class ConnectionState(str, Enum):
    CONNECTING = "connecting"
    AUTHENTICATING = "authenticating"
    UNAUTHORIZED = "unauthorized"
    ONLINE = "online"
    CLOSED = "closed"


# ---------------------------------------------------------------- events


class Connected(FrozenValue):
    __match_args__ = ("banner", "version", "max_payload")
    __slots__ = __match_args__
    banner: Banner
    version: int
    max_payload: int

    def __init__(self, banner: Banner, version: int, max_payload: int) -> None:
        _set(self, "banner", banner)
        _set(self, "version", version)
        _set(self, "max_payload", max_payload)


class AuthChallenge(FrozenValue):
    """The device sent a token; answer with `sign` or, when out of keys, `offer_public_key`."""

    __match_args__ = ("token",)
    __slots__ = __match_args__
    token: bytes

    def __init__(self, token: bytes) -> None:
        _set(self, "token", token)


class TlsRequested(FrozenValue):
    """The device answered CNXN with STLS (wireless debugging): send `start_tls_packet`,
    run the TLS handshake on the link, then the device's CNXN arrives inside TLS."""

    __match_args__ = ("version",)
    __slots__ = __match_args__
    version: int

    def __init__(self, version: int) -> None:
        _set(self, "version", version)


class StreamOpened(FrozenValue):
    __match_args__ = ("local_id",)
    __slots__ = __match_args__
    local_id: int

    def __init__(self, local_id: int) -> None:
        _set(self, "local_id", local_id)


class StreamRefused(FrozenValue):
    __match_args__ = ("local_id",)
    __slots__ = __match_args__
    local_id: int

    def __init__(self, local_id: int) -> None:
        _set(self, "local_id", local_id)


class StreamData(FrozenValue):
    __match_args__ = ("local_id", "payload")
    __slots__ = __match_args__
    local_id: int
    payload: bytes | bytearray | memoryview

    def __init__(self, local_id: int, payload: bytes | bytearray | memoryview) -> None:
        _set(self, "local_id", local_id)
        _set(self, "payload", payload)


class StreamWritable(FrozenValue):
    """The device acknowledged data: the stream may send again."""

    __match_args__ = ("local_id",)
    __slots__ = __match_args__
    local_id: int

    def __init__(self, local_id: int) -> None:
        _set(self, "local_id", local_id)


class StreamClosed(FrozenValue):
    __match_args__ = ("local_id",)
    __slots__ = __match_args__
    local_id: int

    def __init__(self, local_id: int) -> None:
        _set(self, "local_id", local_id)


class StreamOffered(FrozenValue):
    """The device opened a stream (reverse forwarding): answer with `accept_offer` or
    `refuse_offer`. `service` is the device's text, untrusted."""

    __match_args__ = ("remote_id", "window", "service")
    __slots__ = __match_args__
    remote_id: int
    window: int
    service: str

    def __init__(self, remote_id: int, window: int, service: str) -> None:
        _set(self, "remote_id", remote_id)
        _set(self, "window", window)
        _set(self, "service", service)


class Reply(FrozenValue):
    """A packet the protocol itself must send in answer (the runtime just sends it)."""

    __match_args__ = ("packet",)
    __slots__ = __match_args__
    packet: P.Packet

    def __init__(self, packet: P.Packet) -> None:
        _set(self, "packet", packet)


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


class StreamState(Value):
    """What the protocol keeps about one stream (mutable: the protocol alone updates it)."""

    __match_args__ = (
        "local_id",
        "service",
        "phase",
        "remote_id",
        "send_credit",
        "unacknowledged",
        "receive_window",
    )
    __slots__ = __match_args__

    def __init__(
        self,
        local_id: int,
        service: str,
        *,
        phase: StreamPhase = StreamPhase.OPENING,
        remote_id: int = 0,
        send_credit: int = 0,
        unacknowledged: int = 0,
        receive_window: int = 0,
    ) -> None:
        self.local_id = local_id
        self.service = service
        self.phase = phase
        self.remote_id = remote_id
        self.send_credit = send_credit
        """Bytes we may still send (delayed_ack), or 1/0 packets in flight allowed (classic)."""
        self.unacknowledged = unacknowledged
        """Bytes consumed but not yet returned to the device as credit (delayed_ack)."""
        self.receive_window = receive_window
        """The window our OPEN announced (delayed_ack); OKAYs are batched against it."""
