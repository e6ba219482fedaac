"""Choosing the device to talk to among USB and TCP candidates, as `adb -s` does.

`-s` accepts a USB serial, 'usb:PORT-PATH' (for devices without a serial, or two devices
with the same one) and 'host[:port]'. With no `-s`, exactly one candidate is chosen; none or
several is a UsageError that lists what is there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from adbwire.errors import UsageError
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.transport import TcpTransport, Transport, parse_tcp_address, stall_timeout
from adbwire.wire.values import FrozenValue

if TYPE_CHECKING:  # libusb is loaded only when a USB device is used: TCP needs none of it
    from adbwire.wire.client import AdbClient
    from adbwire.wire.connection import Signer, StateListener
    from adbwire.wire.usb.api import Usb1Context
    from adbwire.wire.usb.discovery import UsbDeviceInfo


class DeviceCandidate(FrozenValue):
    """A device a command could talk to: a USB device or a TCP address."""

    __match_args__ = ("serial", "kind", "usb")
    __slots__ = __match_args__
    serial: str
    kind: str  # 'usb' or 'tcp'
    usb: UsbDeviceInfo | None

    def __init__(self, serial: str, kind: str, usb: UsbDeviceInfo | None = None) -> None:
        object.__setattr__(self, "serial", serial)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "usb", usb)

    def describe(self) -> str:
        if self.usb is None:
            return f"{self.serial} (tcp)"
        return f"{self.serial} (usb {self.usb.usb_id} at {self.usb.usb_path}, {self.usb.state})"


def usb_candidates(devices: Sequence[UsbDeviceInfo]) -> list[DeviceCandidate]:
    return [DeviceCandidate(info.name, "usb", info) for info in devices if info.has_adb]


def tcp_candidates(addresses: Sequence[str]) -> list[DeviceCandidate]:
    return [DeviceCandidate(address, "tcp") for address in dict.fromkeys(addresses)]


def _looks_like_tcp(selector: str) -> bool:
    try:
        parse_tcp_address(selector)
    except UsageError:
        return False
    return ":" in selector


def choose_device(
    requested: str | None,
    *,
    tcp_addresses: Sequence[str] = (),
    usb_devices: Sequence[UsbDeviceInfo] = (),
) -> DeviceCandidate:
    """The device `-s requested` names, or the only one there is.

    `usb_devices` may include phones without ADB (`list_usb_devices(include_without_adb=
    True)`): they are never chosen, but an error about them says to enable USB debugging.
    """
    usb = usb_candidates(usb_devices)
    tcp = tcp_candidates(tcp_addresses)
    if requested:
        by_usb = [c for c in usb if c.usb is not None and c.usb.matches(requested)]
        if len(by_usb) == 1:
            return by_usb[0]
        if len(by_usb) > 1:
            paths = ", ".join(c.usb.usb_path for c in by_usb if c.usb is not None)
            raise UsageError(
                f"{len(by_usb)} USB devices have the serial {requested!r} ({paths}): "
                "choose one by port with -s usb:PORT-PATH"
            )
        for info in usb_devices:
            if not info.has_adb and info.matches(requested):
                from adbwire.wire.usb.errors import no_adb_interface  # noqa: PLC0415

                raise UsageError(str(no_adb_interface(info.target())))
        for candidate in tcp:
            if candidate.serial == requested:
                return candidate
        if _looks_like_tcp(requested):
            return DeviceCandidate(requested, "tcp")
        raise UsageError(f"device {requested!r} not found; {_present(usb + tcp, usb_devices)}")
    candidates = usb + tcp
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise UsageError(
            "no device: plug in a phone with USB debugging on, or pass -s HOST:PORT"
            + _no_adb_hint(usb_devices)
        )
    listing = "; ".join(c.describe() for c in candidates)
    raise UsageError(f"more than one device ({listing}): choose one with -s SERIAL")


def _no_adb_hint(usb_devices: Sequence[UsbDeviceInfo]) -> str:
    from adbwire.wire.usb.errors import no_adb_interface  # noqa: PLC0415 - loads libusb

    phones = [info for info in usb_devices if not info.has_adb]
    if not phones:
        return ""
    return f". Also: {no_adb_interface(phones[0].target())}"


def _present(candidates: Sequence[DeviceCandidate], usb_devices: Sequence[UsbDeviceInfo]) -> str:
    if not candidates:
        return "no device is connected" + _no_adb_hint(usb_devices)
    return "devices present: " + "; ".join(c.describe() for c in candidates)


def open_transport(
    candidate: DeviceCandidate,
    *,
    timeouts: Timeouts | None = None,
    context: Usb1Context | None = None,
) -> Transport:
    """An unconnected transport for a candidate (`Connection.open` connects it)."""
    stall = stall_timeout((timeouts or Timeouts()).operation)
    io_timeout = math.inf if stall is None else stall
    if candidate.kind == "usb":
        from adbwire.wire.usb.transport import UsbTransport  # noqa: PLC0415 - loads libusb

        if candidate.usb is not None:
            return UsbTransport.for_device(candidate.usb, context=context, io_timeout=io_timeout)
        return UsbTransport(candidate.serial, context=context, io_timeout=io_timeout)
    host, port = parse_tcp_address(candidate.serial)
    return TcpTransport(host, port, io_timeout=stall)


def connect_usb(
    serial: str | None = None,
    keys: Sequence[Signer] | None = None,
    *,
    timeouts: Timeouts | None = None,
    on_state: StateListener | None = None,
    context: Usb1Context | None = None,
) -> AdbClient:
    """Connect to a USB device by serial or 'usb:PORT-PATH', or to the only one attached."""
    from adbwire.wire.client import AdbClient  # noqa: PLC0415
    from adbwire.wire.usb.discovery import list_usb_devices  # noqa: PLC0415 - loads libusb

    devices = list_usb_devices(context=context, include_without_adb=True)
    candidate = choose_device(serial, usb_devices=devices)
    if candidate.kind != "usb":
        raise UsageError(f"{serial!r} is not a USB device")
    transport = open_transport(candidate, timeouts=timeouts, context=context)
    return AdbClient.connect(transport, keys, timeouts=timeouts, on_state=on_state)
