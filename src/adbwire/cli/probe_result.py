"""One line of `adbwire devices` (targets_usb.probe's answer), a dataclass for its JSON:
its own module, so that commands which probe nothing do not load `dataclasses` (#20)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProbeResult:
    """One line of `adbwire devices`: the fields of the lead's DeviceRow, plus `usb`."""

    serial: str
    state: str
    transport: str
    usb: str | None = None
    product: str | None = None
    model: str | None = None
    device: str | None = None
    features: tuple[str, ...] = ()
    error: str | None = None
