"""Fault injection (device.faults) and the server's own safety: loopback warning, clean stop."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.wire import packets as P
from tests.simulator.protocol_peer import HostPeer, online_peer
from tests.simulator.protocol_standin import StandinUserland, pattern

DeviceFactory = Callable[..., SimulatedDevice]


@pytest.fixture
def device(sim_device_factory: DeviceFactory) -> SimulatedDevice:
    return sim_device_factory(DeviceOptions(accept_any_key=True), StandinUserland)


def received_until_closed(peer: HostPeer) -> int:
    total = 0
    peer.sock.settimeout(10)
    try:
        while chunk := peer.sock.recv(65536):
            total += len(chunk)
    except ConnectionResetError:
        pass
    return total


def test_drop_after_sent_bytes_cuts_mid_packet(device: SimulatedDevice) -> None:
    limit = 150_000
    device.faults.drop_after_sent_bytes = limit
    with HostPeer(device.address) as peer:
        cnxn = peer.handshake()
        peer.open_ok("shell:bytes 1000000")  # one 1,000,000-byte WRTE, cut short
        rest = received_until_closed(peer)
    # AUTH TOKEN (20 bytes), CNXN, and the OKAY to our OPEN came before the cut WRTE.
    handshake = 3 * P.HEADER_SIZE + 20 + len(cnxn.payload)
    assert handshake + rest == limit, "exactly `limit` bytes, then the connection is gone"
    assert device.wait_for_connections(0, 5)
    device.faults.reset()
    with online_peer(device.address) as peer:
        assert peer.open_ok("shell:echo back").read_all() == b"back\n"


def test_drop_after_received_bytes(device: SimulatedDevice) -> None:
    with HostPeer(device.address) as peer:
        peer.handshake()
        stream = peer.open_ok("shell:cat")
        device.faults.drop_after_received_bytes = 200_000
        with pytest.raises((EOFError, ConnectionError)):
            stream.write(b"q" * 500_000)
    assert device.wait_for_connections(0, 5)


def test_response_delay(device: SimulatedDevice) -> None:
    device.faults.response_delay = 0.25
    with HostPeer(device.address) as peer:
        started = time.monotonic()
        peer.handshake()
        assert time.monotonic() - started >= 0.25
        device.faults.response_delay = 0.0
        assert peer.open_ok("shell:echo quick").read_all() == b"quick\n"


def test_stall_and_release(device: SimulatedDevice) -> None:
    device.faults.stall("shell:bytes", after_bytes=0)
    with online_peer(device.address) as peer:
        stream = peer.open_ok("shell:bytes 5000")
        assert peer.nothing_within(0.3), "a stalled stream sends nothing"
        assert peer.open_ok("shell:echo others flow").read_all() == b"others flow\n"
        device.faults.release_stalls()
        assert stream.read_all() == pattern(5000)


def test_stall_after_some_bytes(device: SimulatedDevice) -> None:
    device.faults.stall("exec:", after_bytes=1)
    with online_peer(device.address) as peer:
        stream = peer.open_ok("exec:cat")
        stream.write(b"one")
        assert stream.read_exactly(3) == b"one"
        stream.write(b"two")
        assert peer.nothing_within(0.3), "output stalls once a byte has gone out"
        device.faults.release_stalls()
        assert stream.read_exactly(3) == b"two"


def test_stalled_stream_stops_with_the_device(sim_device_factory: DeviceFactory) -> None:
    earlier = set(threading.enumerate())  # another test's leftovers are not this device's
    device = SimulatedDevice(DeviceOptions(accept_any_key=True), userland_factory=StandinUserland)
    device.start()
    device.faults.stall("shell:", after_bytes=0)
    peer = HostPeer(device.address)
    peer.handshake()
    peer.open_ok("shell:bytes 100")
    device.stop()
    assert not [
        t for t in threading.enumerate() if t.name.startswith("adbd-sim") and t not in earlier
    ]
    peer.close()


def test_refused_services(device: SimulatedDevice) -> None:
    device.faults.refuse_services = ("sync:",)
    with online_peer(device.address) as peer:
        local, answer = peer.open("sync:")
        assert (answer.command, answer.arg1) == (P.A_CLSE, local)
        assert peer.open_ok("shell:echo ok").read_all() == b"ok\n"


def test_non_loopback_bind_warns_loudly(capsys: pytest.CaptureFixture[str]) -> None:
    # 192.0.2.1 is TEST-NET-1: not an address of this machine, so binding fails after the
    # warning and nothing ever listens off loopback.
    device = SimulatedDevice(DeviceOptions(host="192.0.2.1"), userland_factory=StandinUserland)
    with pytest.raises(OSError):
        device.start()
    device.stop()
    assert "WARNING" in capsys.readouterr().err


def test_loopback_bind_is_quiet(capsys: pytest.CaptureFixture[str]) -> None:
    with SimulatedDevice(
        DeviceOptions(host="127.0.0.1"), userland_factory=StandinUserland
    ) as device:
        assert device.serial == f"127.0.0.1:{device.port}"
    assert capsys.readouterr().err == ""
