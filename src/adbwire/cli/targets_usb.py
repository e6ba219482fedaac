"""USB for the command line: USB devices listed with TCP ones, `-s` across both, probing.

`adbwire devices` and every command that talks to one device use these helpers; nothing
here touches libusb directly (that stays in adbwire.wire.usb).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from adbwire.errors import AdbwireError, AuthPendingError, TransportError, UsageError
from adbwire.wire.client import AdbClient
from adbwire.wire.connection import Signer, StateListener
from adbwire.wire.protocol import ConnectionState
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.transport import parse_tcp_address
from adbwire.wire.usb.selection import (
    DeviceCandidate,
    choose_device,
    open_transport,
    tcp_candidates,
    usb_candidates,
)

if TYPE_CHECKING:  # libusb loads only when USB is used (`-s HOST:PORT` never needs it)
    from adbwire.cli.probe_result import ProbeResult as ProbeResult  # noqa: PLC0414 - export
    from adbwire.wire.usb.discovery import UsbDeviceInfo

_STATE_AVAILABLE = "available"
"""discovery.STATE_AVAILABLE, without loading libusb (tests/test_cli_startup.py checks it)."""
PROBE_AUTH_WAIT = 0.5
"""A listing does not wait for the debugging prompt: it reports 'unauthorized' and moves on."""


def list_usb_devices(*, include_without_adb: bool = False) -> list[UsbDeviceInfo]:
    """The bus scan, importing libusb only now."""
    from adbwire.wire.usb.discovery import list_usb_devices as scan  # noqa: PLC0415

    return scan(include_without_adb=include_without_adb)


def usb_devices(stderr: TextIO | None = None) -> list[UsbDeviceInfo]:
    """USB devices now, phones without ADB included; when USB is unavailable (no libusb at
    all), one line on stderr and an empty list, so TCP devices still work."""
    try:
        return list_usb_devices(include_without_adb=True)
    except TransportError as exc:
        print(f"adbwire: {exc}", file=stderr or sys.stderr)
        return []


def _is_tcp_address(text: str) -> bool:
    try:
        parse_tcp_address(text)
    except UsageError:
        return False
    return ":" in text and not text.startswith("usb:")


def candidates(tcp_addresses: Sequence[str], usb: Sequence[UsbDeviceInfo]) -> list[DeviceCandidate]:
    """What `adbwire devices` lists: USB devices with an ADB interface, then TCP ones."""
    return usb_candidates(usb) + tcp_candidates(tcp_addresses)


def choose(requested: str | None, tcp_addresses: Sequence[str]) -> DeviceCandidate:
    """The device for `-s requested` (USB serial, usb:PORT-PATH or HOST:PORT), or the only
    one; the bus is not scanned when `requested` is a TCP address."""
    if requested and _is_tcp_address(requested):
        return choose_device(requested, tcp_addresses=tcp_addresses)
    return choose_device(requested, tcp_addresses=tcp_addresses, usb_devices=usb_devices())


def connect(
    candidate: DeviceCandidate,
    timeouts: Timeouts,
    *,
    keys: Sequence[Signer] | None = None,
    on_state: StateListener | None = None,
) -> AdbClient:
    transport = open_transport(candidate, timeouts=timeouts)
    return AdbClient.connect(transport, keys, timeouts=timeouts, on_state=on_state)


def notes_for(usb: Sequence[UsbDeviceInfo]) -> list[str]:
    """Advice about USB phones that cannot be listed as devices (USB debugging off)."""
    from adbwire.wire.usb.errors import no_adb_interface  # noqa: PLC0415

    return [f"note: {no_adb_interface(info.target())}" for info in usb if not info.has_adb]


def probe(
    candidate: DeviceCandidate,
    timeouts: Timeouts,
    *,
    keys: Sequence[Signer] | None = None,
) -> ProbeResult:
    """Connect once to learn the state and banner; never waits for a person."""
    from adbwire.cli.probe_result import ProbeResult  # noqa: PLC0415 - a dataclass (#20)

    usb_path = candidate.usb.usb_path if candidate.usb is not None else None

    def result(state: str, error: str | None = None) -> ProbeResult:
        return ProbeResult(candidate.serial, state, candidate.kind, usb_path, error=error)

    if candidate.usb is not None and candidate.usb.state != _STATE_AVAILABLE:
        from adbwire.wire.usb.errors import permission_advice  # noqa: PLC0415

        advice = permission_advice(candidate.usb.vendor_id)
        return result(candidate.usb.state, f"{candidate.usb.target().describe()}: {advice}")
    saw_prompt = threading.Event()

    def on_state(state: ConnectionState) -> None:
        if state is ConnectionState.UNAUTHORIZED:
            saw_prompt.set()

    probe_timeouts = Timeouts(timeouts.connect, PROBE_AUTH_WAIT, timeouts.operation)
    try:
        with connect(candidate, probe_timeouts, keys=keys, on_state=on_state) as client:
            banner = client.banner
            return ProbeResult(
                serial=candidate.serial,
                state=banner.system_type,
                transport=candidate.kind,
                usb=usb_path,
                product=banner.product,
                model=banner.model,
                device=banner.device,
                features=tuple(sorted(banner.features)),
            )
    except AuthPendingError as exc:
        return result("unauthorized", str(exc))
    except AdbwireError as exc:
        if saw_prompt.is_set():
            return result("unauthorized", str(exc))
        if candidate.kind != "usb":
            return result("offline", str(exc))
        from adbwire.wire.usb.errors import state_for_error  # noqa: PLC0415

        state = state_for_error(exc)
        return result(state, str(exc))
