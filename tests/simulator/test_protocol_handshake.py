"""CNXN negotiation, checksums, payload limits, and what adbd does with broken input."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.wire import packets as P
from tests.simulator.protocol_peer import HostPeer, online_peer
from tests.simulator.protocol_standin import StandinUserland, pattern

DeviceFactory = Callable[..., SimulatedDevice]


@pytest.fixture
def open_device(sim_device_factory: DeviceFactory) -> Callable[..., SimulatedDevice]:
    def start(**fields: object) -> SimulatedDevice:
        return sim_device_factory(DeviceOptions(accept_any_key=True, **fields), StandinUserland)  # type: ignore[arg-type]

    return start


@pytest.fixture
def device(open_device: Callable[..., SimulatedDevice]) -> SimulatedDevice:
    return open_device()


def sim_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("adbd-sim")]


@pytest.fixture(autouse=True)
def no_thread_leaks() -> Iterator[None]:
    before = set(sim_threads())
    yield
    leaked = set(sim_threads()) - before
    assert not leaked, f"simulator threads still running after stop: {leaked}"


@pytest.mark.parametrize(
    ("host_version", "device_version", "checksummed"),
    [
        (P.VERSION_SKIP_CHECKSUM, P.VERSION_SKIP_CHECKSUM, False),
        (P.VERSION_CHECKSUMMED, P.VERSION_SKIP_CHECKSUM, True),
        (P.VERSION_SKIP_CHECKSUM, P.VERSION_CHECKSUMMED, True),
    ],
)
def test_version_negotiation_decides_checksums(
    open_device: Callable[..., SimulatedDevice],
    host_version: int,
    device_version: int,
    checksummed: bool,
) -> None:
    device = open_device(protocol_version=device_version)
    with HostPeer(device.address) as peer:
        answer = peer.handshake(version=host_version)
        assert answer.arg0 == device_version, "the device announces its own version"
        assert (answer.check != 0) == checksummed
        stream = peer.open_ok("shell:bytes 3000")
        packets = list(stream.packets())
        assert b"".join(p.payload for p in packets) == pattern(3000)
        for packet in packets:
            expected = P.checksum(packet.payload) if checksummed else 0
            assert packet.check == expected


def test_bad_checksum_drops_a_v1_connection(open_device: Callable[..., SimulatedDevice]) -> None:
    device = open_device(protocol_version=P.VERSION_CHECKSUMMED)
    with HostPeer(device.address) as peer:
        peer.handshake()
        stream = peer.open_ok("shell:cat")
        good = P.Packet(P.A_WRTE, stream.local, stream.remote, b"abc").encode(with_checksum=True)
        peer.send_raw(good)
        peer.expect(P.A_OKAY)
        bad = bytearray(good)
        bad[16] ^= 0xFF  # data_check
        peer.send_raw(bytes(bad))
        assert peer.closed_by_device()
    assert device.wait_for_connections(0, 5)


def test_checksum_ignored_after_0x01000001(device: SimulatedDevice) -> None:
    with online_peer(device.address) as peer:
        stream = peer.open_ok("shell:cat")
        bad = bytearray(
            P.Packet(P.A_WRTE, stream.local, stream.remote, b"x").encode(with_checksum=True)
        )
        bad[16] ^= 0xFF
        peer.send_raw(bytes(bad))
        peer.expect(P.A_OKAY)


def test_bad_checksum_on_cnxn_is_refused(device: SimulatedDevice) -> None:
    with HostPeer(device.address) as peer:
        raw = bytearray(
            P.Packet(P.A_CNXN, P.VERSION_SKIP_CHECKSUM, P.MAX_PAYLOAD, b"host::").encode(
                with_checksum=True
            )
        )
        raw[16] ^= 0x01
        peer.send_raw(bytes(raw))
        assert peer.closed_by_device()


def test_max_payload_is_the_smaller_one(open_device: Callable[..., SimulatedDevice]) -> None:
    device = open_device(max_payload=65536)
    with HostPeer(device.address) as peer:
        assert peer.handshake(max_payload=P.MAX_PAYLOAD).arg1 == 65536
    with HostPeer(device.address) as peer:
        assert peer.handshake(max_payload=4096).arg1 == 4096
        stream = peer.open_ok("shell:bytes 10000")
        sizes = [len(p.payload) for p in stream.packets()]
        assert sizes == [4096, 4096, 1808]
        # A packet longer than negotiated is a protocol violation: adbd drops the link.
        peer.send(P.A_WRTE, stream.local, stream.remote, b"x" * 4097)
        assert peer.closed_by_device()


@pytest.mark.parametrize(
    "garbage",
    [
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",  # not ADB at all
        P.HEADER.pack(P.A_CNXN, 1, 4096, 0, 0, 0x12345678),  # bad magic
        P.HEADER.pack(0x41414141, 0, 0, 0, 0, 0x41414141 ^ 0xFFFFFFFF),  # unknown command
        P.HEADER.pack(P.A_CNXN, 1, 4096, P.MAX_PAYLOAD + 1, 0, P.A_CNXN ^ 0xFFFFFFFF),  # huge
        P.HEADER.pack(P.A_CNXN, 1, 4096, 0xFFFFFFFF, 0, P.A_CNXN ^ 0xFFFFFFFF),  # absurd
    ],
)
def test_malformed_input_drops_the_connection(device: SimulatedDevice, garbage: bytes) -> None:
    with HostPeer(device.address) as peer:
        peer.send_raw(garbage)
        assert peer.closed_by_device()
    assert device.wait_for_connections(0, 5)


def test_cnxn_with_zero_max_payload_is_dropped(device: SimulatedDevice) -> None:
    with HostPeer(device.address) as peer:
        peer.send(P.A_CNXN, P.VERSION_SKIP_CHECKSUM, 0, b"host::")
        assert peer.closed_by_device()


def test_client_vanishing_mid_packet_and_mid_transfer(device: SimulatedDevice) -> None:
    with HostPeer(device.address) as peer:
        peer.send_raw(P.HEADER.pack(P.A_CNXN, 1, 4096, 100, 0, P.A_CNXN ^ 0xFFFFFFFF) + b"host")
    with online_peer(device.address) as peer:
        peer.open_ok("shell:bytes 5000000")
        peer.recv()  # the first WRTE; never acknowledged
    with online_peer(device.address) as peer:
        stream = peer.open_ok("shell:cat")
        peer.send(P.A_WRTE, stream.local, stream.remote, b"half a conversation")
    assert device.wait_for_connections(0, 5)
    with online_peer(device.address) as peer:  # and it still serves
        assert peer.open_ok("shell:echo alive").read_all() == b"alive\n"


def test_new_cnxn_resets_the_session(device: SimulatedDevice) -> None:
    with online_peer(device.address) as peer:
        stream = peer.open_ok("shell:wait")
        peer.handshake()  # adbd: handle_offline closes every stream, then a fresh handshake
        assert peer.open_ok("shell:echo again").read_all() == b"again\n"
        stream.okay()  # OKAY for a stream the device no longer has: adbd answers CLSE
        replies = [peer.expect(P.A_CLSE) for _ in range(2)]
        # (The other CLSE answers our OKAY to "echo again"'s last WRTE, sent after its CLSE.)
        assert (stream.remote, stream.local) in [(r.arg0, r.arg1) for r in replies]


def test_stop_joins_everything(sim_device_factory: DeviceFactory) -> None:
    device = SimulatedDevice(DeviceOptions(accept_any_key=True), userland_factory=StandinUserland)
    device.start()
    peers = [HostPeer(device.address) for _ in range(3)]
    for peer in peers:
        peer.handshake()
        peer.open_ok("shell:wait")
    device.stop()
    assert sim_threads() == []
    for peer in peers:
        assert peer.closed_by_device()
        peer.close()
