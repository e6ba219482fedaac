"""adbwire.testing: a simulated Android device that speaks the real ADB wire protocol.

`SimulatedDevice` is a test adbd on loopback TCP (Google's adb accepts it); a scripted
userland (adbwire.testing.userland) answers the commands. See docs/simulator.md.
"""

from __future__ import annotations

from adbwire.testing.auth import KeyStore, parse_android_pubkey
from adbwire.testing.device_files import DeviceFiles, FileStat, FsError
from adbwire.testing.device_state import DeviceState, ProcessIO, UserlandLike
from adbwire.testing.faults import Faults
from adbwire.testing.fixture import running_device
from adbwire.testing.options import DEVICE_FEATURES, DeviceOptions
from adbwire.testing.server import SimulatedDevice, UserlandFactory, default_userland_factory

__all__ = [
    "DEVICE_FEATURES",
    "DeviceFiles",
    "DeviceOptions",
    "DeviceState",
    "Faults",
    "FileStat",
    "FsError",
    "KeyStore",
    "ProcessIO",
    "SimulatedDevice",
    "UserlandFactory",
    "UserlandLike",
    "default_userland_factory",
    "parse_android_pubkey",
    "running_device",
]
