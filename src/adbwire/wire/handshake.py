"""Setting up a connection: CNXN, then AUTH (signing tokens, offering the public key) or
STLS (wireless debugging's TLS), until the device's CNXN says it is online.

The reader thread reads the link meanwhile and queues the handshake's events on the
connection; these functions, run by the thread that opens the connection, answer them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from adbwire.errors import (
    AuthPendingError,
    DisconnectedError,
    RemoteProtocolError,
    TlsRejectedError,
    UsageError,
)
from adbwire.wire.keys import AdbKey
from adbwire.wire.lazy_logging import get_logger
from adbwire.wire.protocol import (
    AuthChallenge,
    Connected,
    ConnectionState,
    Event,
    TlsRequested,
)
from adbwire.wire.timeouts import Deadline
from adbwire.wire.transport import TlsCapable

if TYPE_CHECKING:
    from adbwire.wire.connection import Connection, Signer

log = get_logger("adbwire.wire.connection")


def handshake(connection: Connection, keys: Sequence[Signer]) -> None:
    """Send CNXN, then answer AUTH and STLS until the device's CNXN (within the timeouts)."""
    connection._reading.start()
    connection._send(connection._protocol.connect_packet())
    remaining_keys = list(keys)
    deadline = Deadline(
        connection.timeouts.connect, f"connecting to {connection.transport.address}"
    )
    tls_established = False
    while True:
        try:
            event = _next_event(connection, deadline)
        except DisconnectedError as lost:
            if tls_established:
                raise _refused_after_tls(connection, lost) from lost
            raise
        if isinstance(event, Connected):
            connection._reading.let_callers_read()
            connection._notify_state(ConnectionState.ONLINE)
            log.debug("connected to %s: %s", connection.transport.address, event.banner)
            return
        if isinstance(event, TlsRequested):
            _start_tls(connection, keys, deadline)
            tls_established = True
            continue
        assert isinstance(event, AuthChallenge)
        if remaining_keys:
            key = remaining_keys.pop(0)
            with connection.state_lock:
                packet = connection._protocol.sign(key.sign(event.token))
            connection._notify_state(ConnectionState.AUTHENTICATING)
        elif keys:
            with connection.state_lock:
                packet = connection._protocol.offer_public_key(keys[0].public_key_bytes())
            connection._notify_state(ConnectionState.UNAUTHORIZED)
            deadline = Deadline(connection.timeouts.auth, "waiting for the debugging prompt")
        else:
            raise UsageError(
                f"{connection.transport.address} requires authentication and no key was given"
            )
        connection._send(packet)


def _start_tls(connection: Connection, keys: Sequence[Signer], deadline: Deadline) -> None:
    """Answer STLS and run the TLS handshake while the reader thread waits (wire/tls/)."""
    if not isinstance(connection.transport, TlsCapable):
        raise RemoteProtocolError(
            f"{connection.transport.address} asks for TLS (wireless debugging), which a "
            f"{connection.transport.kind} link does not carry"
        )
    tls_keys = [key for key in keys if isinstance(key, AdbKey)]
    if not tls_keys:
        raise UsageError(
            f"{connection.transport.address} requires TLS (wireless debugging): it needs an adb "
            "key file, and none was given"
        )
    connection._notify_state(ConnectionState.AUTHENTICATING)
    with connection.state_lock:
        packet = connection._protocol.start_tls_packet()
    connection._send(packet)
    connection.transport.start_tls(tls_keys, deadline)
    log.debug("%s: TLS established", connection.transport.address)
    connection._tls_done.set()


def _refused_after_tls(connection: Connection, lost: DisconnectedError) -> TlsRejectedError:
    # TLS 1.3 ends our side of the handshake before the device has judged our certificate:
    # a device that refuses the key may close the link with its alert lost to a reset.
    return TlsRejectedError(
        f"{connection.transport.address} closed the connection right after the TLS handshake, "
        f"before it said hello ({lost}): it most likely does not know this computer's adb "
        "key. Pair first: adbwire pair HOST:PAIRING_PORT (the address and code under "
        "'Pair device with pairing code' in Wireless debugging), then connect again"
    )


def _next_event(connection: Connection, deadline: Deadline) -> Event:
    with connection._changed:
        while not connection._pending_events:
            if connection._failure is not None:
                raise connection._failure
            if deadline.expired():
                if connection._protocol.state is ConnectionState.UNAUTHORIZED:
                    raise AuthPendingError(
                        f"{connection.transport.address} is waiting for you: accept the "
                        "'Allow USB debugging?' prompt on the device (tick 'Always allow "
                        "from this computer'), then connect again"
                    )
                raise deadline.error()
            connection._changed.wait(deadline.remaining())
        return connection._pending_events.pop(0)
