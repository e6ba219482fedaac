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

from typing import TYPE_CHECKING

from adbwire._lazy_exports import lazy_exports

if TYPE_CHECKING:
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

# Names load on first use: choosing a TCP device must not load libusb.
_HOME_OF = {
    **dict.fromkeys(
        [
            "ADB_INTERFACE",
            "STATE_AVAILABLE",
            "STATE_NO_ADB_INTERFACE",
            "STATE_NO_DRIVER",
            "STATE_NO_PERMISSIONS",
            "STATE_OFFLINE",
            "AdbInterface",
            "UsbDeviceInfo",
            "list_usb_devices",
        ],
        "adbwire.wire.usb.discovery",
    ),
    "state_for_error": "adbwire.wire.usb.errors",
    "udev_rule": "adbwire.wire.usb.errors",
    "UsbMonitor": "adbwire.wire.usb.hotplug",
    **dict.fromkeys(
        ["LibusbInfo", "load_libusb", "shared_context", "use_context"], "adbwire.wire.usb.library"
    ),
    **dict.fromkeys(
        ["DeviceCandidate", "choose_device", "connect_usb", "open_transport"],
        "adbwire.wire.usb.selection",
    ),
    "UsbTransport": "adbwire.wire.usb.transport",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME_OF, globals())
