"""Start a simulated device for a test and stop it afterwards.

    with running_device(DeviceOptions(accept_any_key=True)) as device:
        ...  # connect to device.serial

In pytest, the `sim_device` fixture of the project's tests/conftest.py wraps this.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from adbwire.testing.device_files import DeviceFiles
from adbwire.testing.faults import Faults
from adbwire.testing.options import DeviceOptions
from adbwire.testing.server import SimulatedDevice, UserlandFactory

__all__ = ["running_device"]


@contextlib.contextmanager
def running_device(
    options: DeviceOptions | None = None,
    userland_factory: UserlandFactory | None = None,
    *,
    files: DeviceFiles | None = None,
    faults: Faults | None = None,
) -> Iterator[SimulatedDevice]:
    """A started SimulatedDevice on a port chosen by the OS; stopped (threads joined) on exit."""
    device = SimulatedDevice(options, userland_factory=userland_factory, files=files, faults=faults)
    device.start()
    try:
        yield device
    finally:
        device.stop()
