"""Finding ADB devices on the USB bus.

An ADB device is one with an interface of class/subclass/protocol 0xFF/0x42/0x01 (vendor
specific / ADB / version 1) whose first alternate setting has a bulk IN and a bulk OUT
endpoint; like Google's adb, the first such interface of a device is the one used.

The serial number comes from sysfs on Linux (readable without permission on the device
node, as adb does it) and otherwise from the device's string descriptor, which needs the
device opened. A device that cannot be opened is still listed, with a state that says why.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import usb1

from adbwire.wire.usb.api import Usb1Context, Usb1Device, Usb1Handle, Usb1Setting
from adbwire.wire.usb.errors import UsbTarget
from adbwire.wire.usb.library import shared_context

log = logging.getLogger(__name__)

ADB_INTERFACE = (0xFF, 0x42, 0x01)

STATE_AVAILABLE = "available"
"""Has an ADB interface and could be opened (whether it answers is known after connecting)."""
STATE_NO_PERMISSIONS = "no permissions"
"""The operating system refused to open it (on Linux: a udev rule is missing)."""
STATE_NO_DRIVER = "no driver"
"""No usable driver (on Windows: WinUSB is not bound to the ADB interface)."""
STATE_OFFLINE = "offline"
"""It could not be opened for another reason (see the debug log)."""
STATE_NO_ADB_INTERFACE = "no adb interface"
"""An Android phone without an ADB interface: USB debugging is off."""

ANDROID_VENDORS = {
    0x18D1: "Google",
    0x04E8: "Samsung",
    0x2717: "Xiaomi",
    0x22B8: "Motorola",
    0x1004: "LG",
    0x0FCE: "Sony",
    0x0BB4: "HTC",
    0x12D1: "Huawei",
    0x2A70: "OnePlus",
    0x22D9: "OPPO",
    0x2D95: "vivo",
    0x19D2: "ZTE",
    0x17EF: "Lenovo",
    0x0B05: "ASUS",
    0x0E8D: "MediaTek",
    0x05C6: "Qualcomm",
}
"""USB vendor ids of common Android makers: only used to recognise a phone whose USB
debugging is off, so that we can say so; ADB devices are found by interface, never by id."""

LINUX_SYSFS_DEVICES = Path("/sys/bus/usb/devices")

_ENDPOINT_DIR_IN = 0x80
_TRANSFER_TYPE_MASK = 0x03
_TRANSFER_TYPE_BULK = 0x02


@dataclass(frozen=True)
class AdbInterface:
    """The claimed interface and its bulk endpoints (with their wMaxPacketSize)."""

    number: int
    in_endpoint: int
    out_endpoint: int
    in_packet_size: int
    out_packet_size: int


@dataclass(frozen=True)
class UsbDeviceInfo:
    """One USB device, as `list_usb_devices` found it."""

    serial: str | None
    """The USB serial number; None when it could not be read."""
    port_path: str
    """Bus and hub ports, e.g. '1-4.2' (adb shows it as 'usb:1-4.2')."""
    vendor_id: int
    product_id: int
    state: str
    bus: int
    device_address: int
    interface: AdbInterface | None = None
    product_name: str | None = None

    @property
    def name(self) -> str:
        """What to pass to -s: the serial, or 'usb:PORT-PATH' when there is none."""
        return self.serial or self.usb_path

    @property
    def usb_path(self) -> str:
        return f"usb:{self.port_path}"

    @property
    def usb_id(self) -> str:
        return f"{self.vendor_id:04x}:{self.product_id:04x}"

    @property
    def has_adb(self) -> bool:
        return self.interface is not None

    def target(self) -> UsbTarget:
        return UsbTarget(self.name, self.vendor_id, self.product_id, self.port_path)

    def matches(self, selector: str) -> bool:
        """True if `-s selector` names this device (serial or usb:PORT-PATH)."""
        return selector in (self.serial, self.usb_path)


@dataclass(frozen=True)
class FoundDevice:
    """A discovered device together with the usb1 object that opens it."""

    info: UsbDeviceInfo
    device: Usb1Device


def port_path_of(device: Usb1Device) -> str:
    bus = device.getBusNumber()
    try:
        ports = list(device.getPortNumberList())
    except usb1.USBError:
        ports = []
    if not ports:
        return f"{bus}-dev{device.getDeviceAddress()}"
    return f"{bus}-" + ".".join(str(port) for port in ports)


def _is_adb_setting(setting: Usb1Setting) -> bool:
    kind = (setting.getClass(), setting.getSubClass(), setting.getProtocol())
    return kind == ADB_INTERFACE and setting.getAlternateSetting() == 0


def _bulk_endpoints(setting: Usb1Setting) -> AdbInterface | None:
    found_in: tuple[int, int] | None = None
    found_out: tuple[int, int] | None = None
    for endpoint in setting.iterEndpoints():
        if endpoint.getAttributes() & _TRANSFER_TYPE_MASK != _TRANSFER_TYPE_BULK:
            continue
        address, size = endpoint.getAddress(), endpoint.getMaxPacketSize()
        if address & _ENDPOINT_DIR_IN:
            found_in = found_in or (address, size)
        else:
            found_out = found_out or (address, size)
    if found_in is None or found_out is None or not found_in[1] or not found_out[1]:
        return None
    return AdbInterface(setting.getNumber(), found_in[0], found_out[0], found_in[1], found_out[1])


def find_adb_interface(device: Usb1Device) -> AdbInterface | None:
    """The device's first ADB interface with usable bulk endpoints, if any."""
    for setting in device.iterSettings():
        if _is_adb_setting(setting):
            interface = _bulk_endpoints(setting)
            if interface is not None:
                return interface
            log.debug("ADB interface %d lacks bulk endpoints", setting.getNumber())
    return None


def _text(read: Callable[[], str | None]) -> str | None:
    try:
        value = read()
    except (usb1.USBError, UnicodeDecodeError):
        return None
    if not value:
        return None
    return value.strip() or None


def _sysfs_serial(root: Path | None, port_path: str) -> str | None:
    if root is None:
        return None
    try:
        return (root / port_path / "serial").read_text(errors="replace").strip() or None
    except OSError:
        return None


class _Gone(Exception):
    """The device left while we looked at it."""


def _identify(
    device: Usb1Device, port_path: str, sysfs_root: Path | None
) -> tuple[str | None, str, str | None]:
    """(serial, state, product name) of a device, opening it briefly if that is allowed."""
    serial = _sysfs_serial(sysfs_root, port_path)
    try:
        handle: Usb1Handle = device.open()
    except usb1.USBErrorAccess:
        return serial, STATE_NO_PERMISSIONS, None
    except usb1.USBErrorNotSupported:
        return serial, STATE_NO_DRIVER, None
    except (usb1.USBErrorNoDevice, usb1.USBErrorNotFound) as exc:
        raise _Gone from exc
    except usb1.USBError as exc:
        log.debug("cannot open USB device at %s: %s", port_path, exc)
        return serial, STATE_OFFLINE, None
    try:
        serial = serial or _text(handle.getSerialNumber)
        return serial, STATE_AVAILABLE, _text(handle.getProduct)
    finally:
        with contextlib.suppress(usb1.USBError):
            handle.close()


def _default_sysfs_root() -> Path | None:
    return LINUX_SYSFS_DEVICES if sys.platform.startswith("linux") else None


def scan(
    context: Usb1Context,
    *,
    include_without_adb: bool = False,
    sysfs_root: Path | None = None,
) -> Iterator[FoundDevice]:
    """Every ADB device on the bus (and Android phones without ADB, when asked)."""
    root = _default_sysfs_root() if sysfs_root is None else sysfs_root
    for device in context.getDeviceIterator(skip_on_error=True):
        try:
            interface = find_adb_interface(device)
            if interface is None and not (
                include_without_adb and device.getVendorID() in ANDROID_VENDORS
            ):
                continue
            port_path = port_path_of(device)
            serial, state, product = _identify(device, port_path, root)
            info = UsbDeviceInfo(
                serial=serial,
                port_path=port_path,
                vendor_id=device.getVendorID(),
                product_id=device.getProductID(),
                state=state if interface is not None else STATE_NO_ADB_INTERFACE,
                bus=device.getBusNumber(),
                device_address=device.getDeviceAddress(),
                interface=interface,
                product_name=product,
            )
        except (_Gone, usb1.USBErrorNoDevice, usb1.USBErrorNotFound):
            continue  # unplugged while we looked: it is simply not there
        except usb1.USBError as exc:
            log.debug("skipping a USB device whose descriptors cannot be read: %s", exc)
            continue
        yield FoundDevice(info, device)


def list_usb_devices(
    *, context: Usb1Context | None = None, include_without_adb: bool = False
) -> list[UsbDeviceInfo]:
    """ADB devices on USB now, sorted by port path; every call scans the bus afresh, so a
    device plugged in after start-up shows up on the next call.

    With `include_without_adb`, Android phones whose USB debugging is off are listed too,
    with state 'no adb interface'. Raises TransportError when USB is unavailable (no
    libusb could be loaded, or it cannot start).
    """
    found = scan(context or shared_context(), include_without_adb=include_without_adb)
    return sorted((item.info for item in found), key=lambda info: _port_sort_key(info.port_path))


def _port_sort_key(port_path: str) -> tuple[int, ...]:
    digits = port_path.replace("-", ".").replace("dev", "").split(".")
    return tuple(int(part) if part.isdigit() else 0 for part in digits)
