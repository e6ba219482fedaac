"""Compressed push and pull between the host and the simulated device, each algorithm,
and what adb does by default: push compresses with the best offered, pull does not."""

from __future__ import annotations

import importlib
import io
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from adbwire.errors import DisconnectedError, RemoteProtocolError, UsageError
from adbwire.wire.services import sync
from adbwire.wire.services.sync import Compression
from tests.wire.sync.conftest import SyncDevice

KINDS = [Compression.BROTLI, Compression.LZ4, Compression.ZSTD]
ZEROS = 4 * 1024 * 1024
WIRE_LIMIT = 1024 * 1024
"""The connection is cut after this many bytes: a raw 4 MiB transfer cannot pass."""


def text(size: int) -> bytes:
    lines = b"".join(
        b"%06d D/Logcat: sync compression line %d\n" % (n, n % 97) for n in range(size)
    )
    return lines[:size]


@pytest.mark.parametrize("kind", KINDS)
def test_each_algorithm_round_trips_files_and_streams(
    kind: Compression, v2_device: SyncDevice, tmp_path: Path
) -> None:
    mixed = os.urandom(200_000) + text(300_000) + b""
    (tmp_path / "mixed").write_bytes(mixed)
    (tmp_path / "small").write_bytes(b"under 64 KiB goes raw")
    client = v2_device.client
    result = client.push(
        [tmp_path / "mixed", tmp_path / "small"], "/data/local/tmp/", compression=kind
    )
    assert result.ok, result.failed
    assert v2_device.files.read_bytes("/data/local/tmp/mixed") == mixed
    assert v2_device.files.read_bytes("/data/local/tmp/small") == b"under 64 KiB goes raw"
    pulled = client.pull(["/data/local/tmp/mixed"], tmp_path / "back", compression=kind)
    assert pulled.ok and (tmp_path / "back").read_bytes() == mixed
    sink = io.BytesIO()
    assert sync.pull_stream(client.connection, "/data/local/tmp/mixed", sink, compression=kind)
    assert sink.getvalue() == mixed
    count = sync.push_stream(
        client.connection, io.BytesIO(mixed), "/data/local/tmp/streamed", compression=kind
    )
    assert count == len(mixed)
    assert v2_device.files.read_bytes("/data/local/tmp/streamed") == mixed


def test_push_compresses_by_default_and_pull_only_when_asked(
    v2_device: SyncDevice, tmp_path: Path
) -> None:
    (tmp_path / "zeros").write_bytes(bytes(ZEROS))
    v2_device.device.faults.drop_after_received_bytes = WIRE_LIMIT
    assert v2_device.client.push([tmp_path / "zeros"], "/data/local/tmp/zeros").ok
    v2_device.device.faults.reset()
    v2_device.device.faults.drop_after_sent_bytes = WIRE_LIMIT
    client = v2_device.client
    assert client.pull(["/data/local/tmp/zeros"], tmp_path / "z", compression=Compression.ANY).ok
    assert (tmp_path / "z").read_bytes() == bytes(ZEROS)


def test_an_uncompressed_push_is_what_the_wire_limit_cuts(
    v2_device: SyncDevice, tmp_path: Path
) -> None:
    """The check above is not vacuous: raw, the same file does not fit under the limit."""
    (tmp_path / "zeros").write_bytes(bytes(ZEROS))
    v2_device.device.faults.drop_after_received_bytes = WIRE_LIMIT
    with pytest.raises(DisconnectedError, match=r"push stopped after \d+ bytes"):
        v2_device.client.push(
            [tmp_path / "zeros"], "/data/local/tmp/zeros", compression=Compression.NONE
        )


def test_a_device_without_compression_gets_raw_transfers(
    connect_sync_device: Callable[..., SyncDevice], tmp_path: Path
) -> None:
    features = ("shell_v2", "stat_v2", "ls_v2", "sendrecv_v2", "fixed_push_mkdir")
    device = connect_sync_device(features=features)
    data = text(200_000)
    (tmp_path / "f").write_bytes(data)
    assert device.client.push([tmp_path / "f"], "/data/local/tmp/f").ok
    assert device.files.read_bytes("/data/local/tmp/f") == data
    with pytest.raises(UsageError, match="sendrecv_v2_zstd"):
        device.client.pull(["/data/local/tmp/f"], tmp_path / "g", compression=Compression.ZSTD)


def test_v1_devices_ignore_any(
    connect_sync_device: Callable[..., SyncDevice], tmp_path: Path
) -> None:
    device = connect_sync_device("v1")
    data = text(100_000)
    (tmp_path / "f").write_bytes(data)
    assert device.client.push([tmp_path / "f"], "/data/local/tmp/f").ok
    assert device.client.pull(["/data/local/tmp/f"], tmp_path / "g", compression=Compression.ANY).ok
    assert (tmp_path / "g").read_bytes() == data


def test_a_pull_that_inflates_past_its_size_is_stopped_and_leaves_no_file(
    v2_device: SyncDevice, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cap is the stat size plus an allowance; with the allowance taken away (as if the
    device lied about the size by 1 MiB) the decoder stops the pull."""
    pull_module = importlib.import_module("adbwire.wire.services.sync.pull")
    monkeypatch.setattr(pull_module, "GROWTH_ALLOWANCE", -1024 * 1024)
    v2_device.files.write_bytes("/sdcard/zeros", bytes(ZEROS))
    with pytest.raises(RemoteProtocolError, match="more than 3145728 bytes"):
        v2_device.client.pull(["/sdcard/zeros"], tmp_path / "z", compression=Compression.ZSTD)
    assert list(tmp_path.iterdir()) == []
    assert v2_device.client.shell("echo still online").stdout == b"still online\n"
