"""Memory stays flat: moving 64 MiB each way never holds more than a small fraction of it.

tracemalloc sees every thread, the simulated device's too, so the device runs without
delayed_ack (with it, the device may rightly buffer its 32 MiB receive window)."""

from __future__ import annotations

import os
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from adbwire.wire.services import sync
from tests.wire.sync.conftest import FEATURE_SETS, SyncDevice

SIZE = 64 * 1024 * 1024
LIMIT = SIZE // 4


def test_push_and_pull_of_64_mib_stay_flat(
    connect_sync_device: Callable[..., SyncDevice], tmp_path: Path
) -> None:
    features = tuple(name for name in FEATURE_SETS["v2"] if name != "delayed_ack")
    device = connect_sync_device("v2", features=features)
    source = tmp_path / "source.bin"
    with source.open("wb") as out:
        for _ in range(SIZE // (1 << 20)):
            out.write(os.urandom(1 << 20))
    tracemalloc.start()
    try:
        pushed = sync.push(device.client.connection, str(source), "/sdcard/big.bin")
        push_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        pulled = sync.pull(device.client.connection, "/sdcard/big.bin", str(tmp_path / "back"))
        pull_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert pushed.ok and pulled.ok
    assert push_peak < LIMIT, f"push peaked at {push_peak} bytes"
    assert pull_peak < LIMIT, f"pull peaked at {pull_peak} bytes"
    assert os.path.getsize(tmp_path / "back") == SIZE
