"""Getting a device back after its connection dropped (adbd restarted, the device rebooted,
a cable was pulled): wait for the drop, then connect again with a bounded wait.

The caller says how to connect with a factory that makes a new `Connection` (see
`tcp_connection_factory`); nothing here remembers keys or addresses on its own.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from adbwire.errors import AdbTimeoutError, TransportError, UsageError
from adbwire.wire.connection import Connection, Signer
from adbwire.wire.keys import load_keys
from adbwire.wire.lazy_logging import get_logger
from adbwire.wire.protocol import ConnectionState
from adbwire.wire.timeouts import Deadline, Timeouts
from adbwire.wire.transport import TcpTransport, parse_tcp_address, stall_timeout

log = get_logger(__name__)

ConnectionFactory = Callable[[], Connection]
"""Makes a new, authenticated Connection to the device (raises if it cannot)."""

FIRST_RETRY_DELAY = 0.1
MAX_RETRY_DELAY = 1.0


def tcp_connection_factory(
    address: str,
    keys: Sequence[Signer] | None = None,
    *,
    timeouts: Timeouts | None = None,
) -> ConnectionFactory:
    """A factory that connects to 'host[:port]' as `AdbClient.connect_tcp` does."""
    host, port = parse_tcp_address(address)
    chosen_timeouts = timeouts or Timeouts()
    chosen_keys = list(keys) if keys is not None else None

    def connect() -> Connection:
        transport = TcpTransport(host, port, io_timeout=stall_timeout(chosen_timeouts.operation))
        signers = chosen_keys if chosen_keys is not None else load_keys()
        return Connection.open(transport, signers, timeouts=chosen_timeouts)

    return connect


def wait_disconnected(connection: Connection, timeout: float | None) -> bool:
    """Block until `connection` has dropped (True) or `timeout` passes (False)."""
    if connection.failure is not None:
        return True
    gone = threading.Event()
    previous = connection.state_listener

    def listener(state: ConnectionState) -> None:
        if previous is not None:
            previous(state)
        if state is ConnectionState.CLOSED:
            gone.set()

    connection.state_listener = listener
    try:
        if connection.failure is not None:
            return True
        return gone.wait(timeout)
    finally:
        connection.state_listener = previous


def reconnect(factory: ConnectionFactory, *, timeout: float = 30.0) -> Connection:
    """Call `factory` until it connects, for at most `timeout` seconds.

    Link failures (refused, reset, timed out) are retried with a growing pause; anything
    else (the device rejected our key, a bad address) is raised at once. When the time is
    up, AdbTimeoutError names the last failure. One connect attempt that is already
    under way may overrun the wait by its own connect timeout.
    """
    if not timeout > 0 or timeout == float("inf"):
        raise UsageError("the reconnect wait must be a finite number of seconds above 0")
    deadline = Deadline(timeout, "reconnecting to the device")
    delay = FIRST_RETRY_DELAY
    attempts = 0
    while True:
        attempts += 1
        try:
            connection = factory()
        except (TransportError, AdbTimeoutError) as exc:
            remaining = deadline.remaining() or 0.0
            if remaining <= 0:
                raise AdbTimeoutError(
                    f"the device did not come back within {timeout:g} s "
                    f"({attempts} attempts; last: {exc})"
                ) from exc
            log.debug("reconnect attempt %d failed: %s", attempts, exc)
            time.sleep(min(delay, remaining))
            delay = min(delay * 2, MAX_RETRY_DELAY)
            continue
        log.debug("reconnected after %d attempt(s)", attempts)
        return connection
