"""Stream edge cases: what a device may legally send, and deadlines at their limits.

An empty WRTE is not the end of the stream, and a very long finite deadline waits instead of
overflowing the lock timeouts.
"""

from __future__ import annotations

import pytest

from adbwire.wire import packets as P
from adbwire.wire.client import AdbClient
from adbwire.wire.timeouts import Deadline, Timeouts

from .fake_peer import PeerSocket, fake_device

FAST = Timeouts(connect=3.0, auth=1.0, operation=3.0)


def drain(peer: PeerSocket) -> None:
    while True:
        peer.recv_packet()


def test_empty_wrte_is_not_end_of_stream() -> None:
    """A zero-length WRTE is legal on the wire; read() must not report it as EOF (b"").

    It also needs its OKAY under classic flow control, or a device waiting for one stalls."""

    def script(peer: PeerSocket) -> None:
        peer.accept_cnxn()
        opened = peer.recv_packet()
        peer.send(P.Packet(P.A_OKAY, 5, opened.arg0))
        peer.send(P.Packet(P.A_WRTE, 5, opened.arg0, b""))
        okay = peer.recv_packet()  # classic: one WRTE in flight until the host's OKAY
        assert okay.command == P.A_OKAY, okay
        peer.send(P.Packet(P.A_WRTE, 5, opened.arg0, b"payload"))
        peer.send(P.Packet(P.A_CLSE, 5, opened.arg0))
        drain(peer)

    with (
        fake_device(script) as (address, _),
        AdbClient.connect_tcp(address, [], timeouts=FAST) as client,
    ):
        stream = client.open_stream("shell:empty-first")
        assert stream.read_all(Deadline(3, "read_all")) == b"payload"


def test_large_finite_deadline_does_not_overflow() -> None:
    """Deadline(1e10) is accepted as a finite deadline; the lock/Wakeup waits must clamp it
    (threading.TIMEOUT_MAX) instead of raising OverflowError."""

    def script(peer: PeerSocket) -> None:
        peer.accept_cnxn()
        opened = peer.recv_packet()
        peer.send(P.Packet(P.A_OKAY, 5, opened.arg0))
        peer.send(P.Packet(P.A_WRTE, 5, opened.arg0, b"hello"))
        drain(peer)

    with (
        fake_device(script) as (address, _),
        AdbClient.connect_tcp(address, [], timeouts=FAST) as client,
    ):
        stream = client.open_stream("shell:big-deadline")
        try:
            data = stream.read(None, Deadline(1e10, "a very patient read"))
        except OverflowError as exc:
            pytest.fail(f"a finite deadline overflowed the lock timeout: {exc!r}")
        assert data == b"hello"
