"""ADB over USB through libusb (`usb1`), with nothing to install but pip packages.

    from adbwire.wire.usb import list_usb_devices, connect_usb

    for device in list_usb_devices():          # scans the bus afresh on every call
        print(device.name, device.usb_path, device.usb_id, device.state)
    with connect_usb() as client:              # the only device, or connect_usb("SERIAL")
        print(client.shell("getprop ro.product.model").stdout)

libusb comes from the system when it has one, else from the libusb-package wheel
(`load_libusb()` says which). USB is verified against a simulated USB layer in the tests,
not yet against a physical device: see docs/usb.md for the manual check.
"""

from adbwire.wire.usb.discovery import (
    ADB_INTERFACE,
    STATE_AVAILABLE,
    STATE_NO_ADB_INTERFACE,
    STATE_NO_DRIVER,
    STATE_NO_PERMISSIONS,
    STATE_OFFLINE,
    AdbInterface,
    UsbDeviceInfo,
    list_usb_devices,
)
from adbwire.wire.usb.errors import state_for_error, udev_rule
from adbwire.wire.usb.hotplug import UsbMonitor
from adbwire.wire.usb.library import LibusbInfo, load_libusb, shared_context, use_context
from adbwire.wire.usb.selection import (
    DeviceCandidate,
    choose_device,
    connect_usb,
    open_transport,
)
from adbwire.wire.usb.transport import UsbTransport

__all__ = [
    "ADB_INTERFACE",
    "STATE_AVAILABLE",
    "STATE_NO_ADB_INTERFACE",
    "STATE_NO_DRIVER",
    "STATE_NO_PERMISSIONS",
    "STATE_OFFLINE",
    "AdbInterface",
    "DeviceCandidate",
    "LibusbInfo",
    "UsbDeviceInfo",
    "UsbMonitor",
    "UsbTransport",
    "choose_device",
    "connect_usb",
    "list_usb_devices",
    "load_libusb",
    "open_transport",
    "shared_context",
    "state_for_error",
    "udev_rule",
    "use_context",
]
