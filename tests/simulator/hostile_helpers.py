"""Shared helpers of the hostile-mode tests: a device with auth off and a client on it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from adbwire.testing import DeviceOptions, SimulatedDevice, running_device
from adbwire.wire.client import AdbClient


@contextlib.contextmanager
def hostile_device(**kwargs: Any) -> Iterator[tuple[SimulatedDevice, AdbClient]]:
    """`running_device(DeviceOptions(auth_required=False, ...), ...)` and a client on it."""
    option_fields = kwargs.pop("options", {})
    options = DeviceOptions(auth_required=False, **option_fields)
    with (
        running_device(options, **kwargs) as device,
        AdbClient.connect_tcp(device.serial, []) as client,
    ):
        yield device, client
