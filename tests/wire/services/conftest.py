"""Fixtures: a simulated device of a chosen Android release, and host connections to it.

`device.services_opened` shows what the host asked for, so a test can check the exact
service strings adb would send; `device.faults` makes the device misbehave on purpose."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from adbwire.testing import DEVICE_FEATURES, SimulatedDevice
from adbwire.wire.connection import Connection
from adbwire.wire.keys import AdbKey
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.transport import TcpTransport

TEST_TIMEOUTS = Timeouts(connect=5.0, auth=5.0, operation=15.0)

ANDROID_11 = DEVICE_FEATURES
"""abb_exec installs, `remount` in a shell (remount_shell), sync v2."""
ANDROID_8 = ("shell_v2", "cmd")
"""`exec:cmd package install` streams, the `remount:` service."""
ANDROID_6 = ("shell_v2",)
"""Push installs with `pm install`."""

Connect = Callable[[], Connection]


@pytest.fixture
def features() -> tuple[str, ...]:
    """Override in a module (or parametrize) to pretend to be another Android release."""
    return ANDROID_11


@pytest.fixture
def device_options() -> dict[str, Any]:
    """Override (or parametrize) for other DeviceOptions fields, e.g. debuggable=False."""
    return {}


@pytest.fixture
def device(
    sim_device_factory: Callable[..., SimulatedDevice],
    features: tuple[str, ...],
    device_options: dict[str, Any],
) -> SimulatedDevice:
    return sim_device_factory(features=features, **device_options)


@pytest.fixture
def connect(device: SimulatedDevice, adb_key: AdbKey) -> Iterator[Connect]:
    """Open host connections to the device; all are closed after the test."""
    made: list[Connection] = []

    def open_one() -> Connection:
        transport = TcpTransport(*device.address, io_timeout=5.0)
        connection = Connection.open(transport, [adb_key], timeouts=TEST_TIMEOUTS)
        made.append(connection)
        return connection

    yield open_one
    for connection in made:
        connection.close()


@pytest.fixture
def connection(connect: Connect) -> Connection:
    return connect()
