"""The device's buffered reader at the protocol level: packets that arrive together, and the
received-bytes fault counted per packet as before (the packet that reaches the limit is
dropped, the ones before it are served, even when they arrived in the same recv)."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.wire import packets as P
from adbwire.wire.client import AdbClient
from adbwire.wire.keys import AdbKey
from tests.simulator.protocol_peer import HOST_BANNER, HostPeer, online_peer
from tests.simulator.protocol_standin import StandinUserland

DeviceFactory = Callable[..., SimulatedDevice]


@pytest.fixture
def device(sim_device_factory: DeviceFactory) -> SimulatedDevice:
    return sim_device_factory(DeviceOptions(accept_any_key=True), StandinUserland)


def wrte(local: int, remote: int, data: bytes) -> bytes:
    return P.Packet(P.A_WRTE, local, remote, data).encode(with_checksum=False)


def test_many_packets_in_one_send_are_all_served(device: SimulatedDevice) -> None:
    with online_peer(device.address) as peer:
        stream = peer.open_ok("exec:cat")
        pieces = [f"piece {index};".encode() for index in range(50)]
        peer.send_raw(b"".join(wrte(stream.local, stream.remote, piece) for piece in pieces))
        expected = b"".join(pieces)
        assert stream.read_exactly(len(expected)) == expected


def test_a_large_write_split_anywhere_arrives_whole(device: SimulatedDevice) -> None:
    data = bytes(range(256)) * 3000  # 768,000 bytes: one WRTE, sent in odd pieces
    with online_peer(device.address) as peer:
        stream = peer.open_ok("exec:head -c 768000")
        raw = wrte(stream.local, stream.remote, data)
        for start in range(0, len(raw), 65_521):
            peer.send_raw(raw[start : start + 65_521])
        assert stream.read_exactly(len(data)) == data


def packets_until_closed(peer: HostPeer) -> list[tuple[int, int, int]]:
    """(command, arg0, arg1) of every packet the device sends until it closes."""
    raw = b""
    peer.sock.settimeout(10)
    while chunk := peer.sock.recv(65536):
        raw += chunk
    found = []
    while len(raw) >= P.HEADER_SIZE:
        command, arg0, arg1, length, _check, _magic = P.HEADER.unpack_from(raw)
        found.append((command, arg0, arg1))
        raw = raw[P.HEADER_SIZE + length :]
    return found


def test_the_packet_that_reaches_the_received_limit_is_not_served(
    device: SimulatedDevice,
) -> None:
    with HostPeer(device.address) as peer:
        peer.handshake()
        received = 2 * P.HEADER_SIZE + len(HOST_BANNER) + 256  # CNXN, AUTH signature
        stream = peer.open_ok("exec:cat")
        received += P.HEADER_SIZE + len(b"exec:cat\0")
        served = wrte(stream.local, stream.remote, b"served")
        dropped = wrte(stream.local, stream.remote, b"dropped")
        device.faults.drop_after_received_bytes = received + len(served) + len(dropped)
        peer.send_raw(served + dropped)  # one send: most likely one recv on the device
        sent_back = packets_until_closed(peer)
    # The reader OKAYs a WRTE before it reads on (no delayed_ack): one OKAY, for "served".
    okays = [p for p in sent_back if p == (P.A_OKAY, stream.remote, stream.local)]
    assert len(okays) == 1, sent_back
    assert device.wait_for_connections(0, 5)


def test_pushes_with_delayed_ack_arrive_intact(
    sim_device: SimulatedDevice, adb_key: AdbKey, tmp_path: Path
) -> None:
    # Payloads wait in the inbox (up to the 32 MiB window) while their chunks are recycled:
    # every byte must still land where it belongs, on a first connection and a second one.
    size = 40 * 1024 * 1024 + 12345
    source = tmp_path / "source.bin"
    source.write_bytes(random.Random(11).randbytes(size))
    for attempt in range(2):
        with AdbClient.connect_tcp(sim_device.serial, [adb_key]) as client:
            assert client.connection.delayed_ack
            client.push([source], f"/data/local/tmp/pushed{attempt}.bin").raise_first()
        landed = sim_device.files.host_path(f"/data/local/tmp/pushed{attempt}.bin")
        assert landed.read_bytes() == source.read_bytes(), f"push {attempt} corrupted"
