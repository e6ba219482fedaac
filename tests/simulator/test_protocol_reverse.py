"""The simulated adbd's reverse: service, driven by a hand-written host: its replies in
adbd's words, and the streams the device opens for connections made to its listener."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable

import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.wire import packets as P
from tests.interop.adb_oracle import free_port
from tests.simulator.protocol_peer import HostPeer, Received, online_peer
from tests.simulator.protocol_standin import StandinUserland

DeviceFactory = Callable[..., SimulatedDevice]


@pytest.fixture
def device(sim_device_factory: DeviceFactory) -> SimulatedDevice:
    return sim_device_factory(DeviceOptions(accept_any_key=True), StandinUserland)


def ask(peer: HostPeer, command: str) -> bytes:
    return peer.open_ok(f"reverse:{command}").read_all()


def fail(message: str) -> bytes:
    return b"FAIL%04x" % len(message) + message.encode()


def next_open(peer: HostPeer) -> Received:
    """The device's next OPEN (CLSEs still arriving for finished streams are skipped)."""
    while True:
        packet = peer.recv()
        if packet.command == P.A_OPEN:
            return packet
        assert packet.command == P.A_CLSE, packet


def test_replies_are_adbds(device: SimulatedDevice) -> None:
    port = free_port()
    with online_peer(device.address) as peer:
        assert ask(peer, "list-forward") == b"0000"
        assert ask(peer, f"forward:tcp:{port};tcp:9") == b"OKAY"
        listing = ask(peer, "list-forward")
        assert listing[4:].split(b" ")[1:] == [f"tcp:{port}".encode(), b"tcp:9\n"]
        assert int(listing[:4], 16) == len(listing) - 4
        assert ask(peer, f"forward:norebind:tcp:{port};tcp:10") == fail(
            "cannot rebind existing socket"
        )
        assert ask(peer, "forward:tcp:1") == fail("bad forward: tcp:1")
        assert ask(peer, "killforward:tcp:2") == fail("listener 'tcp:2' not found")
        assert ask(peer, f"killforward:tcp:{port}") == b"OKAY"
        picked = ask(peer, "forward:tcp:0;tcp:9")
        assert picked[:4] == b"OKAY" and int(picked[8:]) > 0
        assert ask(peer, "killforward-all") == b"OKAY"
        assert ask(peer, "list-forward") == b"0000"
        assert ask(peer, "frobnicate") == fail("not a reverse forwarding command")


def test_a_host_that_answers_okay_data_and_close_at_once_is_heard(
    device: SimulatedDevice,
) -> None:
    """Google's adb connects to its port before answering the device's OPEN, so a host
    service that speaks and hangs up at once arrives as OKAY, WRTE, CLSE back to back: the
    device side still gets the data."""
    port = free_port()
    with online_peer(device.address) as peer:
        assert ask(peer, f"forward:tcp:{port};tcp:7") == b"OKAY"
        received = bytearray()
        app = socket.create_connection(("127.0.0.1", port), timeout=10)

        def read_app() -> None:
            while chunk := app.recv(100):
                received.extend(chunk)

        reader = threading.Thread(target=read_app)
        reader.start()
        opened = next_open(peer)
        assert opened.payload == b"tcp:7\0"
        ours = peer.new_id()
        peer.send_raw(
            b"".join(
                P.Packet(command, ours, opened.arg0, payload).encode(with_checksum=False)
                for command, payload in (
                    (P.A_OKAY, b""),
                    (P.A_WRTE, b"spoken at once\n"),
                    (P.A_CLSE, b""),
                )
            )
        )
        reader.join(10)
        app.close()
        assert bytes(received) == b"spoken at once\n"


def test_a_refused_open_closes_the_apps_connection(device: SimulatedDevice) -> None:
    port = free_port()
    with online_peer(device.address) as peer:
        assert ask(peer, f"forward:tcp:{port};tcp:7") == b"OKAY"
        with socket.create_connection(("127.0.0.1", port), timeout=10) as app:
            opened = next_open(peer)
            peer.send(P.A_CLSE, 0, opened.arg0)
            assert app.recv(10) == b""
        assert peer.open_ok("shell:echo still here").read_all()


def test_a_listener_goes_with_its_connection(device: SimulatedDevice) -> None:
    port = free_port()
    with online_peer(device.address) as peer:
        assert ask(peer, f"forward:tcp:{port};tcp:7") == b"OKAY"
    with online_peer(device.address) as other:
        assert ask(other, "list-forward") == b"0000"
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=10).close()
