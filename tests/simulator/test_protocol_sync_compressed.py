"""Compressed SND2/RCV2 on the simulated device, built and checked with the compression
libraries themselves (not adbwire's encoder and decoder) as in file_sync_protocol.h:
flags brotli 1, lz4 2, zstd 4; one compressed stream in DATA messages of at most 64 KiB."""

from __future__ import annotations

import struct
import sys
from collections.abc import Callable, Iterator

import brotli  # type: ignore[import-untyped]
import lz4.frame  # type: ignore[import-untyped]
import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice
from tests.simulator.protocol_peer import HostPeer
from tests.simulator.protocol_standin import StandinUserland
from tests.simulator.sync_peer import Sync
from tests.wire.services.loopback_servers import wait_until

if sys.version_info >= (3, 14):
    from compression import zstd
else:
    from backports import zstd

DeviceFactory = Callable[..., SimulatedDevice]
CODECS: dict[int, tuple[Callable[[bytes], bytes], Callable[[bytes], bytes]]] = {
    1: (brotli.compress, brotli.decompress),
    2: (lz4.frame.compress, lz4.frame.decompress),
    4: (zstd.compress, zstd.decompress),
}
TEXT = b"".join(
    b"12-01 18:00:%02d.000 I/chatty: line %d of the log\n" % (n % 60, n) for n in range(20_000)
)


@pytest.fixture
def device(sim_device_factory: DeviceFactory) -> SimulatedDevice:
    return sim_device_factory(DeviceOptions(accept_any_key=True), StandinUserland)


@pytest.fixture
def sync(device: SimulatedDevice) -> Iterator[Sync]:
    with HostPeer(device.address) as peer:
        peer.handshake()
        yield Sync(peer.open_ok("sync:"))


def test_the_device_offers_the_three_algorithms(device: SimulatedDevice) -> None:
    features = set(device.options.features)
    assert {"sendrecv_v2_brotli", "sendrecv_v2_lz4", "sendrecv_v2_zstd"} <= features


@pytest.mark.parametrize("flag", sorted(CODECS))
def test_compressed_send_v2_is_decompressed_into_the_file(
    sync: Sync, device: SimulatedDevice, flag: int
) -> None:
    compress, _ = CODECS[flag]
    sync.request(b"SND2", "/data/local/tmp/log.txt")
    sync.stream.write(struct.pack("<4sII", b"SND2", 0o100644, flag))
    sync.send_data(compress(TEXT), 1_600_000_000, chunk=1000)
    assert sync.status() == (b"OKAY", b"")
    assert device.files.read_bytes("/data/local/tmp/log.txt") == TEXT


@pytest.mark.parametrize("flag", sorted(CODECS))
def test_compressed_recv_v2_sends_one_stream_in_64k_messages(
    sync: Sync, device: SimulatedDevice, flag: int
) -> None:
    _, decompress = CODECS[flag]
    device.files.write_bytes("/sdcard/log.txt", TEXT * 4)
    sync.request(b"RCV2", "/sdcard/log.txt")
    sync.stream.write(struct.pack("<4sI", b"RCV2", flag))
    chunks = list(sync.pull_chunks())
    assert {message_id for message_id, _ in chunks} == {b"DATA"}
    assert all(len(data) <= 64 * 1024 for _, data in chunks)
    compressed = b"".join(data for _, data in chunks)
    assert len(compressed) < len(TEXT)
    assert decompress(compressed) == TEXT * 4


def test_a_broken_stream_is_answered_decompress_failed(sync: Sync, device: SimulatedDevice) -> None:
    sync.request(b"SND2", "/data/local/tmp/broken")
    sync.stream.write(struct.pack("<4sII", b"SND2", 0o100644, 4))
    sync.send_data(b"\x00not zstd at all" * 10, 1_600_000_000)
    assert sync.status() == (b"FAIL", b"decompress failed")
    # adbd reads on to DONE, then drops the partial file
    assert wait_until(lambda: not device.files.exists("/data/local/tmp/broken"), 10)


def test_a_stream_cut_short_before_done_is_refused(sync: Sync, device: SimulatedDevice) -> None:
    whole = zstd.compress(TEXT)
    sync.request(b"SND2", "/data/local/tmp/cut")
    sync.stream.write(struct.pack("<4sII", b"SND2", 0o100644, 4))
    sync.send_data(whole[: len(whole) // 2], 1_600_000_000)
    assert sync.status() == (b"FAIL", b"decompress failed")
