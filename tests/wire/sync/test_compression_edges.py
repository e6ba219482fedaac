"""Compressed transfers at the edges of the DATA size: empty files and exactly 64 KiB."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from adbwire.wire.services import sync
from adbwire.wire.services.sync import Compression
from tests.wire.sync.conftest import SyncDevice

KINDS = [Compression.BROTLI, Compression.LZ4, Compression.ZSTD]
SIZES = [0, 1, 64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, 128 * 1024]


@pytest.mark.parametrize("kind", KINDS)
def test_edge_sizes_round_trip_compressed(
    kind: Compression, v2_device: SyncDevice, tmp_path: Path
) -> None:
    client = v2_device.client
    for size in SIZES:
        data = os.urandom(size // 2) + bytes(size - size // 2)
        local = tmp_path / f"f{size}"
        local.write_bytes(data)
        remote = f"/data/local/tmp/f{size}"
        assert client.push([local], remote, compression=kind).ok
        assert v2_device.files.read_bytes(remote) == data, size
        back = tmp_path / f"b{size}"
        assert client.pull([remote], back, compression=kind).ok
        assert back.read_bytes() == data, size
        sink = io.BytesIO()
        assert sync.pull_stream(client.connection, remote, sink, compression=kind) == size
        assert sink.getvalue() == data
        count = sync.push_stream(
            client.connection, io.BytesIO(data), remote + "s", compression=kind
        )
        assert count == size
        assert v2_device.files.read_bytes(remote + "s") == data, size


def test_edge_sizes_round_trip_raw_on_v1_and_v2(sync_device: SyncDevice, tmp_path: Path) -> None:
    """The same sizes uncompressed, on a device with and without sendrecv_v2 (`-z any` on a
    v1 device is raw)."""
    client = sync_device.client
    for size in SIZES:
        data = os.urandom(size)
        local = tmp_path / f"f{size}"
        local.write_bytes(data)
        remote = f"/data/local/tmp/f{size}"
        assert client.push([local], remote, compression=Compression.ANY).ok
        assert sync_device.files.read_bytes(remote) == data, size
        back = tmp_path / f"b{size}"
        assert client.pull([remote], back, compression=Compression.ANY).ok
        assert back.read_bytes() == data, size
