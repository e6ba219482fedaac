"""The interop oracle in one place: Google's adb (Debian's package) with a server of its own
on a free port and a HOME of its own (adb_oracle.py), stopped after each test; `both`, adb
and adbwire beside each other on one simulated device (cli_parity.py); `device`, a simulated
device with the full userland attached to that adb (a test file may define its own)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice, running_device
from adbwire.wire.keys import AdbKey
from tests.interop.adb_oracle import AdbOracle
from tests.interop.cli_parity import Both, paired


@pytest.fixture
def adb(tmp_path: Path) -> Iterator[AdbOracle]:
    oracle = AdbOracle(tmp_path)
    try:
        oracle.start()
        yield oracle
    finally:
        oracle.kill()


@pytest.fixture
def both(adb: AdbOracle, adb_key: AdbKey, tmp_path: Path) -> Iterator[Both]:
    yield from paired(adb, adb_key, tmp_path)


@pytest.fixture
def device(adb: AdbOracle) -> Iterator[SimulatedDevice]:
    with running_device(DeviceOptions(authorized_keys=(adb.public_key,))) as simulated:
        adb.attach(simulated.serial)
        yield simulated
