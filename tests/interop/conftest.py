"""The interop oracle in one place: Google's adb (Debian's package) with a server of its own
on a free port and a HOME of its own (adb_oracle.py), stopped after each test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.interop.adb_oracle import AdbOracle


@pytest.fixture
def adb(tmp_path: Path) -> Iterator[AdbOracle]:
    oracle = AdbOracle(tmp_path)
    try:
        oracle.start()
        yield oracle
    finally:
        oracle.kill()
