"""OPEN/OKAY/WRTE/CLSE: refusals, flow control with and without delayed_ack, closing."""

from __future__ import annotations

import struct
from collections.abc import Callable

import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.testing.options import DELAYED_ACK_WINDOW
from adbwire.wire import packets as P
from tests.simulator.protocol_peer import DELAYED_BANNER, HostPeer, online_peer
from tests.simulator.protocol_standin import StandinUserland, pattern

DeviceFactory = Callable[..., SimulatedDevice]


@pytest.fixture
def device(sim_device_factory: DeviceFactory) -> SimulatedDevice:
    return sim_device_factory(DeviceOptions(accept_any_key=True), StandinUserland)


@pytest.mark.parametrize(
    "service",
    ["nonsense:", "host:version", "host-serial:x:get-state", "jdwp:1", "shell", "tcpip:abc", ""],
)
def test_refused_services_get_clse(device: SimulatedDevice, service: str) -> None:
    with online_peer(device.address) as peer:
        local, answer = peer.open(service)
        assert (answer.command, answer.arg0, answer.arg1) == (P.A_CLSE, 0, local)
        # The connection stays usable.
        assert peer.open_ok("shell:echo ok").read_all() == b"ok\n"


def test_service_names_keep_inner_nuls(device: SimulatedDevice) -> None:
    with online_peer(device.address) as peer:
        local = peer.new_id()
        peer.send(P.A_OPEN, local, 0, b"shell:echo a\0\0\0")  # trailing NULs are stripped
        okay = peer.expect(P.A_OKAY)
        peer.send(P.A_CLSE, local, okay.arg0)


def test_one_wrte_in_flight_without_delayed_ack(sim_device_factory: DeviceFactory) -> None:
    device = sim_device_factory(
        DeviceOptions(accept_any_key=True, max_payload=4096), StandinUserland
    )
    with online_peer(device.address) as peer:
        stream = peer.open_ok("shell:bytes 20000")
        assert stream.open_reply.payload == b"", "no window in OKAY without delayed_ack"
        first = peer.expect(P.A_WRTE)
        assert len(first.payload) == 4096
        assert peer.nothing_within(0.2), "a second WRTE before our OKAY breaks flow control"
        stream.okay()
        data = first.payload + peer.expect(P.A_WRTE).payload
        assert peer.nothing_within(0.1)
        stream.okay()
        data += stream.read_all()
        assert data == pattern(20000)


def test_device_acks_writes_and_holds_back_when_full(device: SimulatedDevice) -> None:
    with online_peer(device.address) as peer:
        stream = peer.open_ok("shell:wait")  # never reads its stdin
        chunk = b"x" * peer.max_payload
        peer.send(P.A_WRTE, stream.local, stream.remote, chunk)
        okay = peer.expect(P.A_OKAY)
        assert (okay.arg0, okay.arg1, okay.payload) == (stream.remote, stream.local, b"")
        peer.send(P.A_WRTE, stream.local, stream.remote, chunk)
        assert peer.nothing_within(0.2), "more than max_payload unread: the OKAY must wait"
        stream.close()
        assert peer.expect(P.A_CLSE).arg1 == stream.local


def test_host_close_cancels_the_command_and_is_echoed(device: SimulatedDevice) -> None:
    userland = device.userland
    assert isinstance(userland, StandinUserland)
    with online_peer(device.address) as peer:
        stream = peer.open_ok("shell:wait")
        stream.close()
        reply = peer.expect(P.A_CLSE)
        assert (reply.arg0, reply.arg1) == (stream.remote, stream.local)
        assert userland.cancelled_seen.wait(5), "the command saw io.cancelled"


def test_clse_for_unknown_stream_is_ignored(device: SimulatedDevice) -> None:
    with online_peer(device.address) as peer:
        peer.send(P.A_CLSE, 5, 777)
        peer.send(P.A_WRTE, 5, 777, b"nobody")
        assert peer.open_ok("shell:echo fine").read_all() == b"fine\n"


def test_delayed_ack_open_without_the_feature_is_refused(device: SimulatedDevice) -> None:
    with online_peer(device.address) as peer:  # our banner lacks delayed_ack
        local, answer = peer.open("shell:echo hi", window=65536)
        assert (answer.command, answer.arg0, answer.arg1) == (P.A_CLSE, 0, local)


def test_delayed_ack_needs_a_window(device: SimulatedDevice) -> None:
    with online_peer(device.address, banner=DELAYED_BANNER) as peer:
        local, answer = peer.open("shell:echo hi", window=0)
        assert (answer.command, answer.arg0, answer.arg1) == (P.A_CLSE, 0, local)


def test_device_without_delayed_ack_ignores_the_host_feature(
    sim_device_factory: DeviceFactory,
) -> None:
    options = DeviceOptions(accept_any_key=True, features=("shell_v2",))
    device = sim_device_factory(options, StandinUserland)
    with online_peer(device.address, banner=DELAYED_BANNER) as peer:
        assert peer.open_ok("shell:echo plain").read_all() == b"plain\n"


def test_delayed_ack_window_limits_the_burst(sim_device_factory: DeviceFactory) -> None:
    options = DeviceOptions(accept_any_key=True, max_payload=4096)
    device = sim_device_factory(options, StandinUserland)
    with online_peer(device.address, banner=DELAYED_BANNER) as peer:
        stream = peer.open_ok("shell:bytes 30000", window=10000)
        (granted,) = struct.unpack("<i", stream.open_reply.payload)
        assert granted == DELAYED_ACK_WINDOW
        burst = [peer.expect(P.A_WRTE) for _ in range(3)]  # 4096 * 3 > 10000: three go out
        assert [len(p.payload) for p in burst] == [4096, 4096, 4096]
        assert peer.nothing_within(0.2), "the window is spent"
        stream.okay(5000)  # 10000 - 12288 + 5000 > 0: one more
        fourth = peer.expect(P.A_WRTE)
        assert peer.nothing_within(0.2)
        stream.okay(100_000)
        rest = stream.read_exactly(30000 - 4 * 4096)
        data = b"".join(p.payload for p in burst) + fourth.payload + rest
        assert data == pattern(30000)
        assert peer.expect(P.A_CLSE).arg1 == stream.local


def test_delayed_ack_okays_carry_consumed_bytes(sim_device_factory: DeviceFactory) -> None:
    options = DeviceOptions(accept_any_key=True)
    device = sim_device_factory(options, StandinUserland)
    with online_peer(device.address, banner=DELAYED_BANNER) as peer:
        stream = peer.open_ok("shell:head -c 3000", window=1 << 20)
        for _ in range(3):
            peer.send(P.A_WRTE, stream.local, stream.remote, b"y" * 1000)  # no waiting for OKAY
        acked = 0
        output = b""
        while acked < 3000 or len(output) < 3000:
            packet = peer.recv()
            if packet.command == P.A_OKAY:
                assert len(packet.payload) == 4
                acked += struct.unpack("<i", packet.payload)[0]
            elif packet.command == P.A_WRTE:
                output += packet.payload
                stream.okay(len(packet.payload))
        assert (acked, output) == (3000, b"y" * 3000)


def test_okay_with_a_bad_payload_is_ignored(device: SimulatedDevice) -> None:
    with online_peer(device.address) as peer:
        stream = peer.open_ok("shell:bytes 2000000")
        peer.expect(P.A_WRTE)
        peer.send(P.A_OKAY, stream.local, stream.remote, b"\x01\x02")  # neither 0 nor 4 bytes
        assert peer.nothing_within(0.2)
        stream.okay(1234)  # a delayed-ack OKAY on a plain stream: a mismatch, ignored too
        assert peer.nothing_within(0.2)
        stream.okay()
        assert peer.expect(P.A_WRTE).arg1 == stream.local


def test_many_streams_at_once(device: SimulatedDevice) -> None:
    with HostPeer(device.address) as peer:
        peer.handshake()
        sizes = {peer.new_id(): n * 1000 for n in range(1, 6)}
        for local, size in sizes.items():
            peer.send(P.A_OPEN, local, 0, f"shell:bytes {size}\0".encode())
        remote: dict[int, int] = {}
        received = dict.fromkeys(sizes, b"")
        done: set[int] = set()
        while len(done) < len(sizes):
            packet = peer.recv()
            if packet.command == P.A_OKAY:
                remote[packet.arg1] = packet.arg0
            elif packet.command == P.A_WRTE:
                assert remote[packet.arg1] == packet.arg0
                received[packet.arg1] += packet.payload
                peer.send(P.A_OKAY, packet.arg1, packet.arg0)
            elif packet.command == P.A_CLSE:
                done.add(packet.arg1)
        assert len(set(remote.values())) == len(sizes), "every stream has its own device id"
        for local, size in sizes.items():
            assert received[local] == pattern(size)
