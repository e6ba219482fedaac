"""The device's sends when the socket takes only part of them: what is left goes out next,
in order, whether the cut falls between parts or inside one."""

from __future__ import annotations

import socket
import threading

from adbwire.testing.faults import Faults
from adbwire.testing.packet_socket import PacketSocket, _skip
from adbwire.wire import packets as P


def test_skip_drops_whole_parts_then_cuts_inside_one() -> None:
    parts: list[bytes | memoryview] = [b"abc", b"", b"defg", b"hi"]
    assert [bytes(p) for p in _skip(parts, 0)] == [b"abc", b"", b"defg", b"hi"]
    assert [bytes(p) for p in _skip(parts, 3)] == [b"defg", b"hi"]
    assert [bytes(p) for p in _skip(parts, 5)] == [b"fg", b"hi"]
    assert _skip(parts, 9) == []


def test_a_payload_larger_than_the_socket_buffers_arrives_whole() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        host_end = socket.create_connection(server.getsockname())
        device_end, _address = server.accept()
    host_end.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    device_end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    device_end.settimeout(30)  # a socket with a time limit sends what fits, then returns
    io = PacketSocket(device_end, Faults(), threading.Event())
    io.with_checksum = False
    payload = bytes(range(256)) * 4096  # 1 MiB through small buffers: many partial sends
    expected = P.HEADER_SIZE + len(payload)
    received = bytearray()

    def read_all() -> None:
        while len(received) < expected:
            chunk = host_end.recv(65536)
            if not chunk:
                return
            received.extend(chunk)

    reader = threading.Thread(target=read_all)
    reader.start()
    try:
        io.send_packet(P.A_WRTE, 1, 2, payload)
    finally:
        reader.join(30)
        host_end.close()
        device_end.close()
    assert not reader.is_alive()
    assert bytes(received[P.HEADER_SIZE :]) == payload
    assert io.sent == expected
