"""The TLS channel on its own: records counted across any chunking, every byte through in
order whatever the piece sizes on either side, both directions at once."""

from __future__ import annotations

import contextlib
import os
import random
import socket
import threading
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adbwire.testing.tls import accept_tls
from adbwire.wire.keys import AdbKey
from adbwire.wire.timeouts import Deadline
from adbwire.wire.tls.channel import TlsChannel
from adbwire.wire.tls.client import client_connection
from adbwire.wire.tls.records import RecordCounter

WATCHDOG = 30.0


def record(body_size: int, kind: int = 23) -> bytes:
    return bytes([kind, 3, 3]) + body_size.to_bytes(2, "big") + os.urandom(body_size)


@given(
    sizes=st.lists(st.integers(min_value=0, max_value=600), max_size=12),
    cuts=st.lists(st.integers(min_value=1, max_value=700), min_size=1, max_size=40),
)
def test_records_are_counted_whatever_the_chunking(sizes: list[int], cuts: list[int]) -> None:
    stream = b"".join(record(size) for size in sizes)
    counter = RecordCounter()
    counted, position, index = 0, 0, 0
    while position < len(stream):
        piece = stream[position : position + cuts[index % len(cuts)]]
        counted += counter.feed(piece)
        position += len(piece)
        index += 1
    assert counted == len(sizes)


def test_an_incomplete_record_is_not_counted() -> None:
    counter = RecordCounter()
    data = record(100)
    assert counter.feed(data[:4]) == 0  # half a header
    assert counter.feed(data[4:-1]) == 0  # all but the last body byte
    assert counter.feed(data[-1:] + record(0) + record(3)[:2]) == 2


@pytest.fixture
def channels(adb_key: AdbKey) -> Iterator[tuple[TlsChannel, TlsChannel]]:
    """(host, device) over a loopback socket pair, handshake done."""
    host_socket, device_socket = socket.socketpair()
    results: dict[str, object] = {}

    def device_side() -> None:
        results["device"] = accept_tls(
            device_socket, [adb_key.public_key], auth_required=True, initial=b""
        )

    thread = threading.Thread(target=device_side)
    thread.start()
    host = TlsChannel.establish(
        host_socket, client_connection([adb_key]), peer="device", deadline=Deadline(10, "test")
    )
    thread.join(10)
    device_link = results["device"]
    assert device_link is not None
    device = device_link._channel  # type: ignore[attr-defined]
    # A lost byte would leave a reader waiting for ever: end the sockets after a bound, so
    # such a bug fails the test (a read of 0) instead of hanging the suite.
    watchdog = threading.Timer(WATCHDOG, _end, (host_socket, device_socket))
    watchdog.start()
    try:
        yield host, device
    finally:
        watchdog.cancel()
        host_socket.close()
        device_socket.close()


def _end(*sockets: socket.socket) -> None:
    for sock in sockets:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def receive_exactly(channel: TlsChannel, size: int, views: list[int]) -> bytes:
    """Read `size` bytes with views of the given sizes, in turn (small ones included)."""
    data = bytearray()
    turn = 0
    while len(data) < size:
        want = min(views[turn % len(views)], size - len(data))
        turn += 1
        buffer = bytearray(want)
        count = channel.receive_into(memoryview(buffer))
        assert count > 0
        data += buffer[:count]
    return bytes(data)


@pytest.mark.parametrize("seed", range(4))
def test_every_byte_arrives_in_order_both_ways_at_once(
    channels: tuple[TlsChannel, TlsChannel], seed: int
) -> None:
    host, device = channels
    chance = random.Random(seed)
    messages = [
        [os.urandom(chance.choice([1, 24, 100, 5000, 16384, 16385, 70000, 300000]))]
        for _ in range(30)
    ]
    expected = b"".join(part for message in messages for part in message)
    views = [chance.choice([1, 7, 24, 1000, 16383, 16384, 65536]) for _ in range(9)]

    def send_all(channel: TlsChannel) -> None:
        for message in messages:
            channel.send(message)

    senders = [threading.Thread(target=send_all, args=(side,)) for side in (host, device)]
    for sender in senders:
        sender.start()
    try:
        assert receive_exactly(device, len(expected), views) == expected
        assert receive_exactly(host, len(expected), list(reversed(views))) == expected
    finally:
        for sender in senders:
            sender.join(10)


def test_the_end_of_the_stream_reads_as_zero(channels: tuple[TlsChannel, TlsChannel]) -> None:
    host, device = channels
    host.send([b"last words"])
    host.sock.shutdown(socket.SHUT_WR)
    assert receive_exactly(device, 10, [4]) == b"last words"
    assert device.receive_into(memoryview(bytearray(100))) == 0
