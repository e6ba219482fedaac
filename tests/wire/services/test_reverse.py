"""Reverse forwarding against the simulated device: the device listens, and each connection
made to it there arrives as a stream the device opens, relayed to a host port."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from adbwire.errors import DeviceCommandError, UsageError
from adbwire.testing import DEVICE_FEATURES, SimulatedDevice
from adbwire.wire.connection import Connection
from adbwire.wire.keys import AdbKey
from adbwire.wire.services import reverse as reverse_module
from adbwire.wire.services.reconnect import tcp_connection_factory
from adbwire.wire.services.reverse import CLEANUP_SECONDS, ReverseForwarder
from adbwire.wire.services.shell import run
from adbwire.wire.timeouts import Timeouts
from tests.interop.adb_oracle import free_port
from tests.wire.services.conftest import TEST_TIMEOUTS
from tests.wire.services.loopback_servers import (
    LoopbackServer,
    echo,
    loopback_server,
    speak_then_close,
    wait_until,
)

WAIT = 15.0


@pytest.fixture
def connection(sim_device: SimulatedDevice, adb_key: AdbKey) -> Iterator[Connection]:
    connection = tcp_connection_factory(sim_device.serial, [adb_key], timeouts=TEST_TIMEOUTS)()
    yield connection
    connection.close()


@pytest.fixture
def reverser(connection: Connection) -> Iterator[ReverseForwarder]:
    with ReverseForwarder(connection) as reverses:
        yield reverses


@pytest.fixture
def echo_server() -> Iterator[LoopbackServer]:
    with loopback_server(echo) as server:
        yield server


def device_dial(port: int) -> socket.socket:
    """Connect as an app on the device would (its loopback is this machine's)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
    sock.settimeout(WAIT)
    return sock


def echo_through(port: int, payload: bytes) -> bytes:
    with device_dial(port) as sock:
        sender = threading.Thread(target=sock.sendall, args=(payload,))
        sender.start()
        received = bytearray()
        while len(received) < len(payload):
            chunk = sock.recv(256 * 1024)
            if not chunk:
                break
            received += chunk
        sender.join(WAIT)
        return bytes(received)


def test_a_device_connection_reaches_the_host_port(
    reverser: ReverseForwarder, echo_server: LoopbackServer
) -> None:
    device_port = free_port()
    remote = reverser.reverse(f"tcp:{device_port}", f"tcp:{echo_server.port}")
    assert remote == f"tcp:{device_port}"
    payload = os.urandom(3 * 1024 * 1024 + 17)
    received = echo_through(device_port, payload)
    assert hashlib.sha256(received).digest() == hashlib.sha256(payload).digest()


def test_many_device_connections_at_once(
    reverser: ReverseForwarder, echo_server: LoopbackServer
) -> None:
    device_port = free_port()
    reverser.reverse(f"tcp:{device_port}", f"tcp:{echo_server.port}")
    payloads = [os.urandom(200_000) for _ in range(6)]
    results: list[bytes] = [b""] * len(payloads)

    def one(index: int) -> None:
        results[index] = echo_through(device_port, payloads[index])

    threads = [threading.Thread(target=one, args=(index,)) for index in range(len(payloads))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT * 2)
    assert results == payloads


def test_tcp_0_reports_the_port_the_device_picked(
    reverser: ReverseForwarder, echo_server: LoopbackServer
) -> None:
    remote = reverser.reverse("tcp:0", f"tcp:{echo_server.port}")
    port = int(remote.removeprefix("tcp:"))
    assert port > 0
    assert echo_through(port, b"picked") == b"picked"
    assert [entry.remote for entry in reverser.list_reverses()] == [remote]


def test_list_and_remove_say_what_adbd_says(
    reverser: ReverseForwarder, echo_server: LoopbackServer
) -> None:
    device_port = free_port()
    assert reverser.list_reverses() == []
    reverser.reverse(f"tcp:{device_port}", f"tcp:{echo_server.port}")
    (entry,) = reverser.list_reverses()
    assert entry.remote == f"tcp:{device_port}"
    assert entry.local == f"tcp:{echo_server.port}"
    assert entry.transport.startswith("host-")
    with pytest.raises(DeviceCommandError, match="cannot rebind existing socket"):
        reverser.reverse(f"tcp:{device_port}", "tcp:1", rebind=False)
    reverser.remove(f"tcp:{device_port}")
    assert reverser.list_reverses() == []
    with pytest.raises(DeviceCommandError, match=f"listener 'tcp:{device_port}' not found"):
        reverser.remove(f"tcp:{device_port}")
    with pytest.raises(ConnectionRefusedError):
        device_dial(device_port).close()


def test_the_device_may_open_only_what_was_set_up(
    connection: Connection, reverser: ReverseForwarder, echo_server: LoopbackServer
) -> None:
    """A device that OPENs a host port nobody reversed to is refused (CLSE), and the
    connection goes on."""
    device_port = free_port()
    reverser.reverse(f"tcp:{device_port}", f"tcp:{echo_server.port}")
    offer = connection.offer_handler
    assert offer is not None
    assert offer(f"tcp:{echo_server.port}") is not None
    assert offer("tcp:22") is None
    assert offer(f"tcp:{echo_server.port}\n") is None
    assert offer("localabstract:x") is None


def test_a_device_opening_streams_in_a_loop_does_not_flood_the_log(
    connection: Connection, reverser: ReverseForwarder, caplog: pytest.LogCaptureFixture
) -> None:
    offer = connection.offer_handler
    assert offer is not None
    with caplog.at_level(logging.WARNING, logger=reverse_module.__name__):
        for _ in range(3 * reverse_module.LOG_EVERY):
            assert offer("tcp:22") is None
    refusals = [r for r in caplog.records if "refused a stream" in r.getMessage()]
    assert len(refusals) == reverse_module.LOG_FIRST + 3
    assert refusals[-1].getMessage().endswith(f"({3 * reverse_module.LOG_EVERY} refused so far)")


def test_a_refused_stream_closes_the_device_side(
    connection: Connection, reverser: ReverseForwarder, echo_server: LoopbackServer
) -> None:
    """Seen from the device: the host refuses the stream, so the app's connection is closed
    with nothing relayed, and the link goes on."""
    device_port = free_port()
    reverser.reverse(f"tcp:{device_port}", f"tcp:{echo_server.port}")
    connection.offer_handler = lambda service: None  # the host now refuses everything
    with device_dial(device_port) as sock:
        assert sock.recv(10) == b""
    assert run(connection, "echo alive").stdout == b"alive\n"


def test_a_host_out_of_sockets_closes_the_stream_and_goes_on(
    connection: Connection,
    reverser: ReverseForwarder,
    echo_server: LoopbackServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Making the host socket fails (EMFILE) in the connection's reader thread: only that
    stream is closed, the link goes on."""

    def no_socket(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EMFILE, "Too many open files")

    device_port = free_port()
    reverser.reverse(f"tcp:{device_port}", f"tcp:{echo_server.port}")
    monkeypatch.setattr(reverse_module, "_ReverseRelay", no_socket)
    with device_dial(device_port) as sock:
        assert sock.recv(10) == b""
    assert run(connection, "echo alive").stdout == b"alive\n"
    assert reverser.active_streams == 0


def test_closing_ends_relays_to_a_device_app_that_never_reads(
    connection: Connection,
) -> None:
    """The host side writes without end, the app on the device never reads: the relay
    blocks for credit, and closing the forwarder still ends it (bounded), link intact."""
    sent = threading.Event()

    def flood(conn: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while True:
                conn.sendall(b"x" * 65536)
                sent.set()

    with loopback_server(flood) as server:
        reverser = ReverseForwarder(connection)
        device_port = free_port()
        reverser.reverse(f"tcp:{device_port}", f"tcp:{server.port}")
        with device_dial(device_port):
            assert sent.wait(WAIT), "the host side never started writing"
            assert wait_until(lambda: reverser.active_streams == 1)
            closer = threading.Thread(target=reverser.close)
            closer.start()
            closer.join(WAIT + CLEANUP_SECONDS)
            assert not closer.is_alive(), "closing hung on a relay waiting for credit"
        assert reverser.active_streams == 0
    assert run(connection, "echo alive").stdout == b"alive\n"


def test_the_stream_cap_refuses_extra_streams(
    connection: Connection, echo_server: LoopbackServer
) -> None:
    with ReverseForwarder(connection, max_streams=1) as reverser:
        device_port = free_port()
        reverser.reverse(f"tcp:{device_port}", f"tcp:{echo_server.port}")
        with device_dial(device_port) as first:
            first.sendall(b"one")
            assert first.recv(3) == b"one"
            assert reverser.active_streams == 1
            with device_dial(device_port) as second:
                assert second.recv(3) == b"", "over the cap: the host refused it"
            first.sendall(b"again")
            assert first.recv(5) == b"again"


def test_closing_removes_the_device_listeners(
    connection: Connection, echo_server: LoopbackServer
) -> None:
    device_port = free_port()
    with ReverseForwarder(connection) as reverser:
        reverser.reverse(f"tcp:{device_port}", f"tcp:{echo_server.port}")
    check = ReverseForwarder(connection)
    assert check.list_reverses() == []
    check.close()


def test_a_lost_connection_drops_the_device_listener(
    sim_device: SimulatedDevice, adb_key: AdbKey, echo_server: LoopbackServer
) -> None:
    device_port = free_port()
    factory = tcp_connection_factory(sim_device.serial, [adb_key], timeouts=TEST_TIMEOUTS)
    first = factory()
    ReverseForwarder(first).reverse(f"tcp:{device_port}", f"tcp:{echo_server.port}")
    first.close()
    second = factory()
    try:
        with ReverseForwarder(second) as check:
            assert wait_until(lambda: check.list_reverses() == [])
    finally:
        second.close()


@pytest.mark.parametrize(
    ("remote", "local"),
    [("tcp:99999", "tcp:1"), ("udp:1", "tcp:1"), ("tcp:1", "tcp:0"), ("tcp:1", "jdwp:1")],
)
def test_bad_specs_are_the_callers_mistake(
    reverser: ReverseForwarder, remote: str, local: str
) -> None:
    with pytest.raises(UsageError):
        reverser.reverse(remote, local)


def test_closing_removes_only_this_forwarders_listeners(
    sim_device: SimulatedDevice, adb_key: AdbKey, echo_server: LoopbackServer
) -> None:
    """adbd keeps one table for every connection: closing must not take others' listeners."""
    factory = tcp_connection_factory(sim_device.serial, [adb_key], timeouts=TEST_TIMEOUTS)
    mine, theirs = factory(), factory()
    try:
        their_port = free_port()
        with ReverseForwarder(theirs) as other:
            other.reverse(f"tcp:{their_port}", f"tcp:{echo_server.port}")
            with ReverseForwarder(mine) as reverser:
                reverser.reverse(f"tcp:{free_port()}", f"tcp:{echo_server.port}")
                assert len(reverser.list_reverses()) == 2
            assert [entry.remote for entry in other.list_reverses()] == [f"tcp:{their_port}"]
            assert echo_through(their_port, b"still there") == b"still there"
    finally:
        mine.close()
        theirs.close()


def test_a_host_that_speaks_and_closes_at_once_is_heard(reverser: ReverseForwarder) -> None:
    """The host's OKAY, data and CLSE may all reach the device before its opener wakes: the
    stream still delivers what came first (Google's adb does this every time)."""
    with loopback_server(speak_then_close(b"greeting\n")) as speaker:
        device_port = free_port()
        reverser.reverse(f"tcp:{device_port}", f"tcp:{speaker.port}")
        for _ in range(5):
            with device_dial(device_port) as sock:
                received = bytearray()
                while chunk := sock.recv(100):
                    received += chunk
                assert received == b"greeting\n"


def test_an_old_device_with_small_packets_and_checksums(
    sim_device_factory: Callable[..., SimulatedDevice],
    adb_key: AdbKey,
    echo_server: LoopbackServer,
) -> None:
    """Classic flow control (one WRTE in flight), 1 KiB payloads, checksummed packets."""
    device = sim_device_factory(
        protocol_version=0x01000000,
        max_payload=1024,
        features=tuple(f for f in DEVICE_FEATURES if f != "delayed_ack"),
    )
    link = tcp_connection_factory(device.serial, [adb_key], timeouts=TEST_TIMEOUTS)()
    try:
        assert not link.delayed_ack and link.max_payload == 1024
        with ReverseForwarder(link) as reverser:
            device_port = free_port()
            reverser.reverse(f"tcp:{device_port}", f"tcp:{echo_server.port}")
            payload = os.urandom(200_000)
            assert echo_through(device_port, payload) == payload
    finally:
        link.close()


def test_closing_waits_a_bounded_time_for_a_device_that_does_not_answer(
    sim_device: SimulatedDevice, adb_key: AdbKey, echo_server: LoopbackServer
) -> None:
    """Ctrl-C must not hang on cleanup: removing a listener waits CLEANUP_SECONDS, not the
    operation timeout (here 120 s), for a device that never answers."""
    timeouts = Timeouts(connect=5.0, auth=5.0, operation=120.0)
    link = tcp_connection_factory(sim_device.serial, [adb_key], timeouts=timeouts)()
    try:
        reverser = ReverseForwarder(link)
        reverser.reverse(f"tcp:{free_port()}", f"tcp:{echo_server.port}")
        sim_device.state.faults.stall("reverse:killforward")
        started = time.monotonic()
        reverser.close()
        assert time.monotonic() - started < CLEANUP_SECONDS + 60, "closing waited too long"
    finally:
        sim_device.state.faults.release_stalls()
        link.close()


@contextlib.contextmanager
def host_port_that_never_answers() -> Iterator[int]:
    """A listener whose accept queue is full: Linux drops the SYNs of further connects on
    loopback, so connecting there hangs until the connector gives up."""
    listener = socket.create_server(("127.0.0.1", 0), backlog=0)
    filler = socket.create_connection(listener.getsockname(), timeout=WAIT)
    probe = socket.socket()
    probe.settimeout(0.2)
    try:
        with pytest.raises(TimeoutError):
            probe.connect(listener.getsockname())  # checks the queue really is full
        yield listener.getsockname()[1]
    finally:
        for sock in (probe, filler, listener):
            sock.close()


def test_connecting_to_a_host_port_that_hangs_gives_up_at_the_deadline(
    connection: Connection, caplog: pytest.LogCaptureFixture
) -> None:
    """The host port never completes the TCP handshake: the relay gives up after its
    connect timeout, closes the device's connection and the link goes on."""
    connect_timeout = 0.5
    with (
        host_port_that_never_answers() as hung_port,
        ReverseForwarder(connection, connect_timeout=connect_timeout) as reverser,
        caplog.at_level(logging.WARNING, logger=reverse_module.__name__),
    ):
        device_port = free_port()
        reverser.reverse(f"tcp:{device_port}", f"tcp:{hung_port}")
        with device_dial(device_port) as sock:
            started = time.monotonic()
            assert sock.recv(10) == b"", "the device's connection was not closed"
            waited = time.monotonic() - started
        assert waited >= connect_timeout * 0.8, "closed before the deadline: not a hang"
        assert waited < reverse_module.CONNECT_SECONDS, "the given deadline was not used"
        assert wait_until(lambda: reverser.active_streams == 0)
    assert any("cannot connect" in record.getMessage() for record in caplog.records)
    assert run(connection, "echo alive").stdout == b"alive\n"
