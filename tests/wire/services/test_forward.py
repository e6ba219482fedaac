"""Port forwarding through the simulated device to loopback servers standing in for device
ones (the simulator's tcp: service connects to 127.0.0.1)."""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from adbwire.errors import DisconnectedError, UsageError
from adbwire.testing import SimulatedDevice
from adbwire.wire.connection import Connection
from adbwire.wire.services.forward import PortForwarder, check_remote, parse_local
from adbwire.wire.services.forward_relay import LINGER_SECONDS
from tests.wire.services.loopback_servers import (
    LoopbackServer,
    echo,
    loopback_server,
    recv_all,
    speak_then_close,
    wait_until,
)


@pytest.fixture
def echo_server() -> Iterator[LoopbackServer]:
    with loopback_server(echo) as server:
        yield server


@pytest.fixture
def forwarder(connection: Connection) -> Iterator[PortForwarder]:
    with PortForwarder(connection) as forwards:
        yield forwards


def dial(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=15)
    sock.settimeout(15)
    return sock


def exchange(port: int, payload: bytes) -> bytes:
    """Send everything (from a second thread) while reading the echo back.

    No half-close: ADB streams cannot carry one, so a client EOF ends the whole relay
    (as with adb), and the echo would be cut short.
    """
    with dial(port) as sock:
        sender = threading.Thread(target=sock.sendall, args=(payload,))
        received = bytearray()
        sender.start()
        while len(received) < len(payload):
            chunk = sock.recv(256 * 1024)
            if not chunk:
                break
            received += chunk
        sender.join(15)
        return bytes(received)


# ----------------------------------------------------------------- specs


@pytest.mark.parametrize(("spec", "port"), [("tcp:0", 0), ("tcp:8080", 8080), ("tcp:65535", 65535)])
def test_local_specs(spec: str, port: int) -> None:
    assert parse_local(spec) == port


@pytest.mark.parametrize("spec", ["tcp:", "tcp:-1", "tcp:65536", "udp:5", "localabstract:x", "5"])
def test_bad_local_specs(spec: str) -> None:
    with pytest.raises(UsageError):
        parse_local(spec)


@pytest.mark.parametrize(
    "spec",
    ["tcp:1", "tcp:65535", "localabstract:chrome_devtools_remote", "localreserved:x",
     "localfilesystem:/dev/socket/x", "jdwp:1234"],
)  # fmt: skip
def test_remote_specs(spec: str) -> None:
    assert check_remote(spec) == spec


@pytest.mark.parametrize(
    "spec", ["tcp:0", "tcp:70000", "tcp:x", "jdwp:abc", "localabstract:", "dev:/x", "shell:id",
             "localabstract:a\0b"],
)  # fmt: skip
def test_bad_remote_specs(spec: str) -> None:
    with pytest.raises(UsageError):
        check_remote(spec)


# ----------------------------------------------------------------- relaying


def test_round_trip_on_a_port_chosen_by_the_os(
    forwarder: PortForwarder, echo_server: LoopbackServer
) -> None:
    forward = forwarder.forward("tcp:0", f"tcp:{echo_server.port}")
    assert forward.port > 0 and forward.local == f"tcp:{forward.port}"
    assert forward._listener.getsockname()[0] == "127.0.0.1"
    assert exchange(forward.port, b"hello device") == b"hello device"


def test_large_transfer_is_byte_identical(
    forwarder: PortForwarder, echo_server: LoopbackServer
) -> None:
    forward = forwarder.forward("tcp:0", f"tcp:{echo_server.port}")
    payload = os.urandom(24 * 1024 * 1024 + 17)
    received = exchange(forward.port, payload)
    assert len(received) == len(payload)
    assert hashlib.sha256(received).digest() == hashlib.sha256(payload).digest()


def test_many_concurrent_connections(forwarder: PortForwarder, echo_server: LoopbackServer) -> None:
    forward = forwarder.forward("tcp:0", f"tcp:{echo_server.port}")
    payloads = [os.urandom(100_000 + n * 7919) for n in range(24)]
    with ThreadPoolExecutor(max_workers=24) as pool:
        results = list(pool.map(lambda p: exchange(forward.port, p), payloads))
    assert results == payloads
    assert echo_server.accepted == 24
    assert wait_until(lambda: forward.active_connections == 0)


def test_client_closing_closes_the_device_side(
    forwarder: PortForwarder, echo_server: LoopbackServer
) -> None:
    forward = forwarder.forward("tcp:0", f"tcp:{echo_server.port}")
    sock = dial(forward.port)
    sock.sendall(b"ping")
    assert sock.recv(4) == b"ping"
    assert forward.active_connections == 1
    sock.close()
    assert echo_server.finished.acquire(timeout=10), "the device-side socket never saw EOF"
    assert wait_until(lambda: forward.active_connections == 0)


def test_device_closing_delivers_everything_then_eof(forwarder: PortForwarder) -> None:
    message = os.urandom(3 * 1024 * 1024)
    with loopback_server(speak_then_close(message)) as server:
        forward = forwarder.forward("tcp:0", f"tcp:{server.port}")
        with dial(forward.port) as sock:
            started = time.monotonic()
            assert recv_all(sock) == message
            # EOF comes from the relay's SHUT_WR, not from the linger timeout closing it.
            assert time.monotonic() - started < LINGER_SECONDS
        assert wait_until(lambda: forward.active_connections == 0)


def test_refused_remote_closes_only_that_client(
    forwarder: PortForwarder,
    device: SimulatedDevice,
    echo_server: LoopbackServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    remote = f"tcp:{echo_server.port}"
    forward = forwarder.forward("tcp:0", remote)
    device.faults.refuse_services = (remote,)
    with caplog.at_level(logging.WARNING), dial(forward.port) as sock:
        assert recv_all(sock) == b""
    assert f"refused {remote!r}" in caplog.text
    assert not forward.closed
    device.faults.refuse_services = ()
    assert exchange(forward.port, b"now it is") == b"now it is"


def test_forwarding_the_same_port_again_retargets_it(
    forwarder: PortForwarder, echo_server: LoopbackServer
) -> None:
    first = forwarder.forward("tcp:0", "tcp:1")
    again = forwarder.forward(first.local, f"tcp:{echo_server.port}")
    assert again is first and first.remote == f"tcp:{echo_server.port}"
    assert exchange(first.port, b"moved") == b"moved"
    with pytest.raises(UsageError, match="cannot rebind"):
        forwarder.forward(first.local, "tcp:2", rebind=False)


def test_list_and_remove(forwarder: PortForwarder, echo_server: LoopbackServer) -> None:
    a = forwarder.forward("tcp:0", f"tcp:{echo_server.port}")
    b = forwarder.forward("tcp:0", "localabstract:x")
    assert {(f.local, f.remote) for f in forwarder.list_forwards()} == {
        (a.local, a.remote),
        (b.local, b.remote),
    }
    forwarder.remove(a.local)
    assert forwarder.list_forwards() == [b]
    with pytest.raises(ConnectionRefusedError):
        dial(a.port)
    with pytest.raises(UsageError, match="not found"):
        forwarder.remove(a.local)
    forwarder.remove_all()
    assert forwarder.list_forwards() == []


def test_close_ends_open_relays_and_threads(
    connection: Connection, echo_server: LoopbackServer
) -> None:
    earlier = set(threading.enumerate())  # another test's leftovers are not these relays
    forwarder = PortForwarder(connection)
    forward = forwarder.forward("tcp:0", f"tcp:{echo_server.port}")
    clients = [dial(forward.port) for _ in range(5)]
    for sock in clients:
        sock.sendall(b"x")
        assert sock.recv(1) == b"x"
    forwarder.close()
    for sock in clients:
        assert recv_all(sock) == b""
        sock.close()
    assert forward.closed and forward.error is None

    def relays() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name.startswith("adbwire-forward")]

    assert wait_until(lambda: not set(relays()) - earlier)
    with pytest.raises(UsageError, match="closed"):
        forwarder.forward("tcp:0", "tcp:1")


def test_close_does_not_wait_for_an_unanswered_open(
    connection: Connection, device: SimulatedDevice
) -> None:
    device.faults.unanswered_services = ("localreserved:",)
    forwarder = PortForwarder(connection, open_timeout=60)
    forward = forwarder.forward("tcp:0", "localreserved:silent")
    client = dial(forward.port)
    assert wait_until(lambda: "localreserved:silent" in device.services_opened)
    started = time.monotonic()
    forwarder.close()
    assert time.monotonic() - started < 5
    assert recv_all(client) == b""
    client.close()


def test_connection_limit(connection: Connection, echo_server: LoopbackServer) -> None:
    with PortForwarder(connection, max_connections=2) as forwarder:
        forward = forwarder.forward("tcp:0", f"tcp:{echo_server.port}")
        kept = [dial(forward.port) for _ in range(2)]
        for sock in kept:
            sock.sendall(b"k")
            assert sock.recv(1) == b"k"
        with dial(forward.port) as extra:
            assert recv_all(extra) == b""
        for sock in kept:
            sock.close()


def test_lost_device_ends_the_forwards(
    forwarder: PortForwarder, device: SimulatedDevice, echo_server: LoopbackServer
) -> None:
    forward = forwarder.forward("tcp:0", f"tcp:{echo_server.port}")
    assert exchange(forward.port, b"before") == b"before"
    device.drop_connections()
    assert forwarder.wait(timeout=10)
    assert forward.closed and isinstance(forward.error, DisconnectedError)
    with pytest.raises(ConnectionRefusedError):
        dial(forward.port)


def test_wait_times_out_while_forwards_are_open(
    forwarder: PortForwarder, echo_server: LoopbackServer
) -> None:
    forwarder.forward("tcp:0", f"tcp:{echo_server.port}")
    assert forwarder.wait(timeout=0.2) is False


def test_busy_port_is_a_usage_error(forwarder: PortForwarder) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(UsageError, match=f"tcp:{port}"):
            forwarder.forward(f"tcp:{port}", "tcp:1")


def test_client_half_close_ends_the_relay_as_with_adb(
    forwarder: PortForwarder, echo_server: LoopbackServer
) -> None:
    forward = forwarder.forward("tcp:0", f"tcp:{echo_server.port}")
    with dial(forward.port) as sock:
        sock.sendall(b"question")
        assert sock.recv(8) == b"question"
        sock.shutdown(socket.SHUT_WR)
        assert recv_all(sock) == b""
    assert echo_server.finished.acquire(timeout=10)


def test_a_client_that_does_not_read_holds_the_device_back(forwarder: PortForwarder) -> None:
    total = 96 * 1024 * 1024
    sent = [0]

    def flood(conn: socket.socket) -> None:
        block = os.urandom(64 * 1024)
        while sent[0] < total:
            conn.sendall(block)
            sent[0] += len(block)

    with loopback_server(flood) as server:
        forward = forwarder.forward("tcp:0", f"tcp:{server.port}")
        with dial(forward.port) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
            previous = -1
            for _ in range(100):  # until the sender stalls (bounded: ~10 s)
                if sent[0] == previous and sent[0] > 0:
                    break
                previous = sent[0]
                threading.Event().wait(0.1)
            stalled_at = sent[0]
            assert stalled_at < total // 2, "the relay buffered what the client never read"
            received = len(recv_all(sock))
        assert received == total and stalled_at > 0
