"""The one place where libusb's errors become adbwire's, with advice a user can act on.

Which adbwire error a libusb error becomes depends on the phase: while opening a device
nothing is connected yet (ConnectFailedError); once packets flow, losing the device is a
DisconnectedError, which the connection hands to every open stream at once.
"""

from __future__ import annotations

import contextlib
import platform
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import usb1

from adbwire.errors import (
    AdbwireError,
    ConnectFailedError,
    DeviceBusyError,
    DevicePermissionError,
    DisconnectedError,
    NoAdbInterfaceError,
    RemoteProtocolError,
)

Phase = Literal["open", "claim", "read", "write"]
"""open: opening the device or clearing halts; claim: claiming the ADB interface;
read / write: moving packets."""


@dataclass(frozen=True)
class UsbTarget:
    """How errors name a device: its serial (if known), vendor:product and port path."""

    name: str
    vendor_id: int | None = None
    product_id: int | None = None
    port_path: str | None = None

    def describe(self) -> str:
        details = []
        if self.vendor_id is not None and self.product_id is not None:
            details.append(f"{self.vendor_id:04x}:{self.product_id:04x}")
        if self.port_path:
            details.append(f"at usb:{self.port_path}")
        return f"USB device {self.name}" + (f" ({' '.join(details)})" if details else "")


def udev_rule(vendor_id: int) -> str:
    return f'SUBSYSTEM=="usb", ATTR{{idVendor}}=="{vendor_id:04x}", MODE="0660", GROUP="plugdev"'


def permission_advice(vendor_id: int | None, system: str | None = None) -> str:
    system = system or platform.system()
    if system == "Linux":
        rule = udev_rule(vendor_id) if vendor_id is not None else udev_rule(0x18D1)
        example = "" if vendor_id is not None else " (use your device's vendor id)"
        return (
            "your user may not open it. Add a udev rule" + example + ", e.g. in "
            "/etc/udev/rules.d/51-android.rules:\n"
            f"    {rule}\n"
            "then run `sudo udevadm control --reload-rules && sudo udevadm trigger`, make sure "
            "you are in the plugdev group (`sudo usermod -aG plugdev $USER`, then log in "
            "again), and replug the device"
        )
    if system == "Windows":
        return (
            "Windows needs the WinUSB driver for the ADB interface (the Google USB Driver or "
            "your vendor's ADB driver); if it is installed, another program may have the device "
            "open: an adb server (stop it with `adb kill-server`), Android Studio or scrcpy"
        )
    return (
        "another program (an adb server, Android Studio, scrcpy) may have the device open "
        "exclusively: quit it (`adb kill-server` stops an adb server, if you have one)"
    )


BUSY_ADVICE = (
    "another process has claimed its ADB interface. Most often that is a running adb "
    "server (Android Studio and scrcpy start one too): stop it with `adb kill-server` if you "
    "have platform-tools installed, or quit the program using the device, then try again"
)

NO_DRIVER_ADVICE = (
    "the operating system offers no usable driver for it: on Windows install the Google USB "
    "Driver (WinUSB) for the ADB interface"
)


def usb_error(error: usb1.USBError, phase: Phase, target: UsbTarget) -> AdbwireError:
    """Translate one libusb error raised while doing `phase` on `target`."""
    what = target.describe()
    if isinstance(error, usb1.USBErrorBusy):
        return DeviceBusyError(f"cannot use {what}: {BUSY_ADVICE}")
    if isinstance(error, usb1.USBErrorAccess):
        if phase in ("read", "write"):
            return DisconnectedError(f"{what}: access lost during a transfer ({error})")
        return DevicePermissionError(
            f"cannot open {what}: permission denied; {permission_advice(target.vendor_id)}"
        )
    if isinstance(error, (usb1.USBErrorNoDevice, usb1.USBErrorNotFound)):
        gone = f"{what} is gone: it was unplugged, rebooted or reset"
        if phase in ("read", "write"):
            return DisconnectedError(gone)
        return ConnectFailedError(f"{gone}; plug it in again and retry")
    if isinstance(error, usb1.USBErrorNotSupported) and phase in ("open", "claim"):
        return ConnectFailedError(f"cannot open {what}: {NO_DRIVER_ADVICE}")
    if isinstance(error, usb1.USBErrorPipe):
        stalled = f"{what}: the USB endpoint stalled (LIBUSB_ERROR_PIPE)"
        if phase in ("read", "write"):
            return DisconnectedError(f"{stalled}; reconnect, and replug the device if it persists")
        return ConnectFailedError(f"{stalled} and could not be reset; replug the device")
    if isinstance(error, usb1.USBErrorOverflow):
        return RemoteProtocolError(
            f"{what} sent more data than was asked for (LIBUSB_ERROR_OVERFLOW)"
        )
    if isinstance(error, usb1.USBErrorTimeout) and phase == "write":
        return DisconnectedError(f"{what}: the device stopped reading (USB write timed out)")
    if isinstance(error, usb1.USBErrorIO) and phase in ("read", "write"):
        return DisconnectedError(
            f"{what}: USB I/O error; the device was probably unplugged (or the cable or port "
            "is faulty)"
        )
    if phase in ("read", "write"):
        return DisconnectedError(f"{what}: USB {phase} failed: {error}")
    return ConnectFailedError(f"cannot open {what}: {error}")


@contextlib.contextmanager
def usb_errors(phase: Phase, target: UsbTarget) -> Iterator[None]:
    """Turn any libusb error raised inside the block into the matching adbwire error."""
    try:
        yield
    except usb1.USBError as exc:
        raise usb_error(exc, phase, target) from exc


def no_adb_interface(target: UsbTarget) -> NoAdbInterfaceError:
    return NoAdbInterfaceError(
        f"{target.describe()} offers no ADB interface: enable USB debugging on it "
        "(Settings > About phone: tap 'Build number' seven times; then Settings > System > "
        "Developer options > USB debugging), replug it, and accept the 'Allow USB debugging?' "
        "prompt"
    )


def state_for_error(error: BaseException) -> str:
    """The `adb devices`-style state a failed USB connection attempt means."""
    cause = error.__cause__
    if isinstance(cause, usb1.USBErrorBusy):
        return "busy"
    if isinstance(cause, usb1.USBErrorAccess):
        return "no permissions"
    if isinstance(cause, usb1.USBErrorNotSupported):
        return "no driver"
    return "offline"
