"""libusb errors become adbwire errors in one place, by phase, with advice."""

from __future__ import annotations

import pytest
import usb1

from adbwire.errors import (
    AdbwireError,
    ConnectFailedError,
    DeviceBusyError,
    DevicePermissionError,
    DisconnectedError,
    RemoteProtocolError,
)
from adbwire.wire.usb.errors import (
    Phase,
    UsbTarget,
    permission_advice,
    state_for_error,
    udev_rule,
    usb_error,
    usb_errors,
)

TARGET = UsbTarget("SER123", 0x18D1, 0x4EE7, "1-4.2")

CASES: list[tuple[type[usb1.USBError], Phase, type[AdbwireError], str]] = [
    (usb1.USBErrorAccess, "open", DevicePermissionError, "permission denied"),
    (usb1.USBErrorBusy, "claim", DeviceBusyError, "`adb kill-server`"),
    (usb1.USBErrorBusy, "open", DeviceBusyError, "adb server"),
    (usb1.USBErrorNoDevice, "open", ConnectFailedError, "plug it in again"),
    (usb1.USBErrorNoDevice, "read", DisconnectedError, "unplugged"),
    (usb1.USBErrorNoDevice, "write", DisconnectedError, "unplugged"),
    (usb1.USBErrorNotFound, "read", DisconnectedError, "unplugged"),
    (usb1.USBErrorIO, "read", DisconnectedError, "probably unplugged"),
    (usb1.USBErrorPipe, "read", DisconnectedError, "stalled"),
    (usb1.USBErrorPipe, "open", ConnectFailedError, "replug"),
    (usb1.USBErrorTimeout, "write", DisconnectedError, "stopped reading"),
    (usb1.USBErrorOverflow, "read", RemoteProtocolError, "more data than was asked"),
    (usb1.USBErrorNotSupported, "open", ConnectFailedError, "WinUSB"),
    (usb1.USBErrorOther, "open", ConnectFailedError, "cannot open"),
    (usb1.USBErrorOther, "write", DisconnectedError, "USB write failed"),
]


@pytest.mark.parametrize(("libusb_error", "phase", "expected", "advice"), CASES)
def test_each_libusb_error_maps_to_one_adbwire_error(
    libusb_error: type[usb1.USBError], phase: Phase, expected: type[AdbwireError], advice: str
) -> None:
    error = usb_error(libusb_error(), phase, TARGET)
    assert type(error) is expected
    assert advice in str(error)
    assert "SER123 (18d1:4ee7 at usb:1-4.2)" in str(error)


def test_the_context_manager_chains_the_libusb_error() -> None:
    with pytest.raises(DisconnectedError) as caught, usb_errors("read", TARGET):
        raise usb1.USBErrorNoDevice()
    assert isinstance(caught.value.__cause__, usb1.USBErrorNoDevice)
    assert state_for_error(caught.value) == "offline"


@pytest.mark.parametrize(
    ("libusb_error", "state"),
    [
        (usb1.USBErrorBusy, "busy"),
        (usb1.USBErrorAccess, "no permissions"),
        (usb1.USBErrorNotSupported, "no driver"),
        (usb1.USBErrorIO, "offline"),
    ],
)
def test_failed_connections_become_listing_states(
    libusb_error: type[usb1.USBError], state: str
) -> None:
    with pytest.raises(ConnectFailedError) as caught, usb_errors("open", TARGET):
        raise libusb_error()
    assert state_for_error(caught.value) == state


def test_udev_rule_is_exactly_the_documented_line() -> None:
    assert udev_rule(0x18D1) == (
        'SUBSYSTEM=="usb", ATTR{idVendor}=="18d1", MODE="0660", GROUP="plugdev"'
    )


def test_permission_advice_depends_on_the_platform() -> None:
    linux = permission_advice(0x04E8, "Linux")
    assert 'ATTR{idVendor}=="04e8"' in linux and "udevadm" in linux
    assert "WinUSB" in permission_advice(0x04E8, "Windows")
    mac = permission_advice(0x04E8, "Darwin")
    assert "`adb kill-server`" in mac and "udev" not in mac
