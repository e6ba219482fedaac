"""Simulated devices for the sync tests: a current one (stat_v2, ls_v2, sendrecv_v2) and an
old one that speaks only sync v1, each with an AdbClient connected to it."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from adbwire.testing import DEVICE_FEATURES, DeviceFiles, SimulatedDevice
from adbwire.testing.server import default_userland_factory
from adbwire.wire.client import AdbClient
from adbwire.wire.keys import AdbKey
from adbwire.wire.timeouts import Timeouts

V2_ONLY = frozenset(
    {"stat_v2", "ls_v2", "sendrecv_v2", "sendrecv_v2_dry_run_send"}
    | {f"sendrecv_v2_{name}" for name in ("brotli", "lz4", "zstd")}
)
V1_FEATURES = tuple(name for name in DEVICE_FEATURES if name not in V2_ONLY)
FEATURE_SETS = {"v2": DEVICE_FEATURES, "v1": V1_FEATURES}


@dataclass
class SyncDevice:
    device: SimulatedDevice
    client: AdbClient
    version: str

    @property
    def files(self) -> DeviceFiles:
        return self.device.files


@pytest.fixture
def connect_sync_device(
    sim_device_factory: Callable[..., SimulatedDevice], adb_key: AdbKey
) -> Iterator[Callable[..., SyncDevice]]:
    with contextlib.ExitStack() as stack:

        def start(version: str = "v2", **options: Any) -> SyncDevice:
            features = options.pop("features", FEATURE_SETS[version])
            device = sim_device_factory(
                userland_factory=default_userland_factory, features=features, **options
            )
            client = AdbClient.connect_tcp(
                device.serial, [adb_key], timeouts=Timeouts(connect=10, auth=5, operation=10)
            )
            stack.callback(client.close)
            return SyncDevice(device, client, version)

        yield start


@pytest.fixture(params=["v2", "v1"])
def sync_device(
    request: pytest.FixtureRequest, connect_sync_device: Callable[..., SyncDevice]
) -> SyncDevice:
    """A device of each sync generation (the test runs once per generation)."""
    return connect_sync_device(request.param)


@pytest.fixture
def v2_device(connect_sync_device: Callable[..., SyncDevice]) -> SyncDevice:
    return connect_sync_device("v2")
