"""nc on the simulated device: its loopback is the host's, so tests reach it with sockets."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest

from adbwire.testing.userland import BufferIO, Userland
from tests.simulator.userland_harness import make_userland, run

WAIT = 10.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def userland(tmp_path: Path) -> Userland:
    return make_userland(tmp_path / "device")


def _connect_when_listening(port: int) -> socket.socket:
    """Retry until the device's nc listens (bounded; nothing announces it)."""
    deadline = time.monotonic() + WAIT
    while True:
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=WAIT)
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def test_nc_listener_relays_both_ways_until_the_peer_closes(userland: Userland) -> None:
    port = free_port()
    io = BufferIO(b"from device\n")
    statuses: list[int] = []
    worker = threading.Thread(
        target=lambda: statuses.append(userland.run(f"nc -l -p {port}", io)), daemon=True
    )
    worker.start()
    with _connect_when_listening(port) as client:
        client.sendall(b"from host\n")
        received = b""
        while not received.endswith(b"\n"):
            chunk = client.recv(100)
            assert chunk, "device closed early"
            received += chunk
        assert received == b"from device\n"
        client.shutdown(socket.SHUT_WR)
    worker.join(WAIT)
    assert not worker.is_alive()
    assert statuses == [0]
    assert bytes(io.stdout) == b"from host\n"


def test_nc_connects_to_a_host_listener(userland: Userland) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        got: list[bytes] = []

        def answer() -> None:
            peer, _ = server.accept()
            with peer:
                got.append(peer.recv(100))
                peer.sendall(b"pong\n")

        helper = threading.Thread(target=answer, daemon=True)
        helper.start()
        result = run(userland, f"echo ping | nc localhost {port}")
        helper.join(WAIT)
    assert (result.status, result.out) == (0, "pong\n")
    assert got == [b"ping\n"]


def test_nc_refuses_other_hosts_and_closed_ports(userland: Userland) -> None:
    far = run(userland, "nc 8.8.8.8 53")
    assert (far.status, far.err) == (1, "nc: connect: Network is unreachable\n")
    closed = run(userland, f"nc 127.0.0.1 {free_port()}")
    assert (closed.status, closed.err) == (1, "nc: connect: Connection refused\n")
    usage = run(userland, "nc -l")
    assert usage.status == 1


def test_nc_listener_ends_when_the_stream_closes(userland: Userland) -> None:
    io = BufferIO()
    worker = threading.Thread(target=userland.run, args=(f"nc -l -p {free_port()}", io))
    worker.start()
    deadline = time.monotonic() + WAIT
    while run(userland, "pidof nc").status != 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    io.cancel()
    worker.join(WAIT)
    assert not worker.is_alive()


class _Sink:
    """A PacketSink that only records what the stream sends."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, int, int, bytes]] = []

    def send_packet(self, command: int, arg0: int, arg1: int, payload: bytes = b"") -> None:
        self.sent.append((command, arg0, arg1, bytes(payload)))

    def send_packets(self, packets: object) -> None:
        raise AssertionError("not used here")

    def forget_stream(self, local_id: int) -> None:
        pass


def test_bytes_the_host_wrote_before_closing_are_still_read() -> None:
    """As adbd flushes a closing socket's queue: `adb forward` data sent just before the
    host closes reaches the device service (here: nc behind tcp:)."""
    from adbwire.testing.faults import Faults  # noqa: PLC0415
    from adbwire.testing.stream import DeviceStream  # noqa: PLC0415

    stream = DeviceStream(
        _Sink(),  # type: ignore[arg-type]
        5,
        9,
        "tcp:5000",
        max_payload=4096,
        send_window=None,
        faults=Faults(),
    )
    stream.on_write(b"last words")
    stream.on_remote_close()
    assert stream.cancelled
    assert stream.read(100) == b"last words"
    assert stream.read(100) == b""
