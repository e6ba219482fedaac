"""How fast Google's adb pushes and pulls through the simulator (64 MiB over loopback).

The figure is printed (run with -s to see it) and recorded as a test property; the assertion
is only a floor that catches a pathological regression (a per-byte loop, a lost OKAY that
turns every packet into a timeout), not a benchmark.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice, running_device
from tests.interop.adb_oracle import ADB, AdbOracle
from tests.simulator.protocol_standin import StandinUserland

pytestmark = [
    pytest.mark.interop,
    pytest.mark.skipif(not ADB.exists(), reason="Google's adb is not installed at /usr/bin/adb"),
]

SIZE = 64 * 1024 * 1024
FLOOR_MB_S = 30.0
ADB_RATE = re.compile(rb"([0-9.]+) MB/s")


@pytest.fixture
def device(adb: AdbOracle) -> Iterator[SimulatedDevice]:
    with running_device(DeviceOptions(authorized_keys=(adb.public_key,)), StandinUserland) as dev:
        adb.attach(dev.serial)
        yield dev


def timed(action: Callable[[], bytes]) -> tuple[float, bytes]:
    started = time.perf_counter()
    output = action()
    return time.perf_counter() - started, output


def test_push_pull_64_mib(
    adb: AdbOracle,
    device: SimulatedDevice,
    tmp_path: Path,
    record_property: Callable[[str, object], None],
) -> None:
    source = tmp_path / "big.bin"
    source.write_bytes(os.urandom(SIZE))
    serial = device.serial
    push_seconds, push_output = timed(
        lambda: adb.ok("-s", serial, "push", str(source), "/data/local/tmp/big.bin", timeout=120)
    )
    back = tmp_path / "back.bin"
    pull_seconds, pull_output = timed(
        lambda: adb.ok("-s", serial, "pull", "/data/local/tmp/big.bin", str(back), timeout=120)
    )
    assert back.read_bytes() == source.read_bytes()
    mib = SIZE / 1e6
    push_rate, pull_rate = mib / push_seconds, mib / pull_seconds
    adb_push = ADB_RATE.search(push_output)
    adb_pull = ADB_RATE.search(pull_output)
    report = (
        f"adb push 64 MiB: {push_rate:.0f} MB/s wall ({adb_push and adb_push.group(1).decode()} "
        f"MB/s by adb); adb pull: {pull_rate:.0f} MB/s wall "
        f"({adb_pull and adb_pull.group(1).decode()} MB/s by adb)"
    )
    print(report)
    record_property("throughput", report)
    assert push_rate > FLOOR_MB_S, report
    assert pull_rate > FLOOR_MB_S, report
