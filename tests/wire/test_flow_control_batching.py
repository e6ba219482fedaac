"""Batched delayed_ack OKAYs never leave an adbd-like device waiting for credit.

The scripted device below follows adbd's rule (send while the host's credit is positive, a
packet may overshoot it) or a stricter one (never send past the credit). Each case pushes
more than one receive window through a consumer that reads in small pieces, so the device
must get credit back from us at least once; a missing OKAY shows up as a read timeout.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

import pytest

from adbwire.wire import packets as P
from adbwire.wire.client import AdbClient
from adbwire.wire.protocol import INITIAL_RECEIVE_WINDOW
from adbwire.wire.timeouts import Deadline, Timeouts

from .fake_peer import DEVICE_BANNER, PeerSocket, fake_device

FAST = Timeouts(connect=3.0, auth=1.0, operation=5.0)
DELAYED_ACK_BANNER = DEVICE_BANNER.__replace__(features=DEVICE_BANNER.features | {"delayed_ack"})
LE32 = struct.Struct("<i")


def pattern(size: int) -> bytes:
    return bytes(index * 7 % 251 for index in range(size))


def drain(peer: PeerSocket) -> None:
    """Read the host's packets (late OKAYs, CLSE) until it hangs up."""
    while True:
        peer.recv_packet()


def serve_bulk(
    total: int, max_payload: int, *, overshoot: bool, delayed_ack: bool
) -> tuple[bytes, Callable[[PeerSocket], None]]:
    data = pattern(total)

    def script(peer: PeerSocket) -> None:
        banner = DELAYED_ACK_BANNER if delayed_ack else DEVICE_BANNER
        peer.accept_cnxn(banner, max_payload=max_payload)
        opened = peer.recv_packet()
        assert opened.command == P.A_OPEN
        window = opened.arg1
        assert (window > 0) == delayed_ack
        okay_payload = LE32.pack(64 * 1024) if delayed_ack else b""
        peer.send(P.Packet(P.A_OKAY, 77, opened.arg0, okay_payload))
        credit = window if delayed_ack else 1
        sent = 0
        while sent < total:
            while credit <= 0 or (not overshoot and credit < min(max_payload, total - sent)):
                okay = peer.recv_packet()
                assert okay.command == P.A_OKAY, okay
                credit += LE32.unpack(okay.payload)[0] if delayed_ack else 1
            size = min(max_payload, total - sent)
            if not overshoot:
                size = min(size, credit)
            peer.send(P.Packet(P.A_WRTE, 77, opened.arg0, data[sent : sent + size]))
            credit -= size if delayed_ack else 1
            sent += size
        peer.send(P.Packet(P.A_CLSE, 77, opened.arg0))
        drain(peer)

    return data, script


@pytest.mark.parametrize("max_payload", [4096, 64 * 1024, P.MAX_PAYLOAD])
@pytest.mark.parametrize("overshoot", [True, False])
@pytest.mark.parametrize("read_size", [1000, None])
def test_delayed_ack_bulk_never_stalls(
    max_payload: int, overshoot: bool, read_size: int | None
) -> None:
    total = 2 * INITIAL_RECEIVE_WINDOW + 12345
    data, script = serve_bulk(total, max_payload, overshoot=overshoot, delayed_ack=True)
    with (
        fake_device(script) as (address, _),
        AdbClient.connect_tcp(address, [], timeouts=FAST) as client,
    ):
        assert client.connection.delayed_ack
        stream = client.open_stream("shell:bulk")
        got = bytearray()
        deadline = Deadline(10, "bulk read")
        while chunk := stream.read_view(read_size, deadline):
            got += chunk
        assert got == data


def test_classic_bulk_with_small_reads_never_stalls() -> None:
    total = 300 * 1024 + 17
    data, script = serve_bulk(total, 4096, overshoot=True, delayed_ack=False)
    with (
        fake_device(script) as (address, _),
        AdbClient.connect_tcp(address, [], timeouts=FAST) as client,
    ):
        assert not client.connection.delayed_ack
        stream = client.open_stream("shell:bulk")
        assert stream.read_exactly(total, Deadline(10, "bulk read")) == data
