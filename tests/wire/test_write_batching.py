"""Several packets per system call on small-payload links: a stream write sends as many
packets as its credit allows together (at most BATCH_PACKETS, about BATCH_BYTES), in order."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import pytest

from adbwire.errors import DisconnectedError
from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.wire import packets as P
from adbwire.wire.client import AdbClient
from adbwire.wire.keys import AdbKey
from adbwire.wire.stream import BATCH_BYTES, BATCH_PACKETS
from adbwire.wire.transport import PacketBytes, TcpTransport, _send_parts

DeviceFactory = Callable[..., SimulatedDevice]


@pytest.fixture
def batches(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """The WRTE payload sizes of every write_packets call (one list per call)."""
    seen: list[list[int]] = []
    original = TcpTransport.write_packets

    def counting(self: TcpTransport, packets: Sequence[PacketBytes]) -> None:
        seen.append([len(payload) for header, payload in packets if header[:4] == b"WRTE"])
        original(self, packets)

    monkeypatch.setattr(TcpTransport, "write_packets", counting)
    return seen


@pytest.mark.parametrize("payload", [1024, 4096, 65536])
def test_a_small_payload_push_goes_out_in_batches(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, batches: list[list[int]], payload: int
) -> None:
    device = sim_device_factory(
        DeviceOptions(
            accept_any_key=True, max_payload=payload, protocol_version=P.VERSION_CHECKSUMMED
        )
    )
    data = os.urandom(512 * 1024)
    with AdbClient.connect_tcp(device.serial, [adb_key]) as client:
        stream = client.connection.open_stream(f"sink:{len(data)}")
        with stream:
            stream.write(data)
            assert stream.read() == b""  # the device closes once it has every byte
    sizes = [size for batch in batches for size in batch]
    assert sum(sizes) == len(data)
    assert max(len(batch) for batch in batches) > 1
    assert all(len(batch) <= BATCH_PACKETS for batch in batches)
    assert all(sum(batch) <= BATCH_BYTES for batch in batches)
    assert len(batches) <= 2 * len(data) // min(BATCH_BYTES, BATCH_PACKETS * payload) + 2


class _TrickleSocket:
    """sendmsg that takes at most `most` bytes a call, as a full socket buffer does."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.received = bytearray()
        self.calls = 0

    def sendmsg(self, parts: Sequence[bytes | bytearray | memoryview]) -> int:
        self.calls += 1
        taken = b"".join(bytes(part) for part in parts)[: self.most]
        self.received += taken
        return len(taken)


@pytest.mark.parametrize("most", [1, 7, 24, 1000])
def test_partial_sends_resume_where_the_socket_stopped(most: int) -> None:
    parts: list[bytes | bytearray | memoryview] = [
        b"header-one-24-bytes-long",
        bytearray(os.urandom(50)),
        memoryview(b"header-two-24-bytes-long"),
        os.urandom(3),
    ]
    expected = b"".join(bytes(part) for part in parts)
    sock = _TrickleSocket(most)
    _send_parts(sock, parts)  # type: ignore[arg-type]
    assert bytes(sock.received) == expected
    assert sock.calls == -(-len(expected) // most)


def test_a_batch_interrupted_part_way_ends_the_link(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch cut off by an exception (a bug, KeyboardInterrupt) may have sent part of a
    packet: the byte stream is out of step, so the connection must not be used again."""
    device = sim_device_factory(DeviceOptions(accept_any_key=True, max_payload=1024))

    def interrupted(self: TcpTransport, packets: Sequence[PacketBytes]) -> None:
        raise RuntimeError("interrupted mid-batch")

    with AdbClient.connect_tcp(device.serial, [adb_key]) as client:
        stream = client.connection.open_stream("sink:8192")
        monkeypatch.setattr(TcpTransport, "write_packets", interrupted)
        with stream, pytest.raises(RuntimeError, match="mid-batch"):
            stream.write(bytes(8192))
        assert not client.alive
        assert "send interrupted" in str(client.connection.failure)
        with pytest.raises(DisconnectedError):
            client.shell("true", timeout=10)
