"""TcpTransport's read-ahead: exact reads come out right however the bytes arrive."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import cast

import pytest

from adbwire.errors import DisconnectedError
from adbwire.wire.transport import READ_AHEAD, TcpTransport


@contextmanager
def connected_pair() -> Iterator[tuple[TcpTransport, socket.socket]]:
    server = socket.create_server(("127.0.0.1", 0))
    transport = TcpTransport("127.0.0.1", server.getsockname()[1], io_timeout=5.0)
    try:
        transport.connect(5.0)
        peer, _ = server.accept()
        peer.settimeout(5.0)
        try:
            yield transport, peer
        finally:
            peer.close()
    finally:
        transport.close()
        server.close()


def read_all(transport: TcpTransport, sizes: list[int]) -> bytes:
    parts = [bytes(transport.read_exactly(size)) for size in sizes]
    assert [len(part) for part in parts] == sizes
    return b"".join(parts)


def send_in_pieces(peer: socket.socket, data: bytes, piece: int) -> threading.Thread:
    def run() -> None:
        for start in range(0, len(data), piece):
            peer.sendall(data[start : start + piece])

    thread = threading.Thread(target=run)
    thread.start()
    return thread


@pytest.mark.parametrize("piece", [1, 7, 24, 25, 4096, READ_AHEAD - 1, 10 * READ_AHEAD])
def test_reads_of_mixed_sizes_see_the_bytes_in_order(piece: int) -> None:
    sizes = [24, 4, 24, 0, 24, 1, READ_AHEAD - 3, 24, READ_AHEAD, 3 * READ_AHEAD + 5, 24, 2]
    data = os.urandom(sum(sizes))
    with connected_pair() as (transport, peer):
        sender = send_in_pieces(peer, data, piece)
        assert read_all(transport, sizes) == data
        sender.join(5)


class CountingSocket:
    """The transport's socket, counting the receives made through it."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.receives = 0

    def recv_into(self, view: memoryview) -> int:
        self.receives += 1
        return self.sock.recv_into(view)


def test_many_small_packets_sent_at_once_are_taken_from_one_receive() -> None:
    data = os.urandom(24 * 100)
    with connected_pair() as (transport, peer):
        counting = CountingSocket(transport._socket())
        transport._sock = cast(socket.socket, counting)
        try:
            peer.sendall(data)
            peer.shutdown(socket.SHUT_WR)
            assert read_all(transport, [24] * 100) == data
            assert counting.receives <= 2, "a burst of packets costs one receive, not 200"
        finally:
            transport._sock = counting.sock


def test_a_large_read_after_buffered_bytes_keeps_both() -> None:
    head, payload = os.urandom(24), os.urandom(5 * READ_AHEAD + 11)
    with connected_pair() as (transport, peer):
        peer.sendall(head + payload[:100])
        assert transport.read_exactly(24) == head
        sender = send_in_pieces(peer, payload[100:], 65536)
        assert transport.read_exactly(len(payload)) == payload
        sender.join(5)


def test_end_of_stream_inside_a_read_is_a_disconnect() -> None:
    with connected_pair() as (transport, peer):
        peer.sendall(b"x" * 10)
        peer.shutdown(socket.SHUT_WR)
        with pytest.raises(DisconnectedError, match="closed the connection"):
            transport.read_exactly(24)
