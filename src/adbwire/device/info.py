"""Who the device is: identity, Android version, ABIs, screen, battery, emulator or not."""

from __future__ import annotations

from dataclasses import dataclass

from adbwire.device import commands
from adbwire.device.parsers import (
    BatteryStatus,
    parse_battery,
    parse_density,
    parse_display_size,
    parse_getprop,
    summarize_properties,
)
from adbwire.device.settings.orientation import display_orientation
from adbwire.errors import DeviceCommandError
from adbwire.wire.client import AdbClient


@dataclass(frozen=True)
class DeviceInfo:
    serial: str
    model: str | None
    manufacturer: str | None
    brand: str | None
    device: str | None
    android_version: str | None
    sdk: int | None
    abis: tuple[str, ...]
    screen_width: int | None
    screen_height: int | None
    density: int | None
    battery_percent: float | None
    battery_status: str | None
    features: tuple[str, ...]
    is_emulator: bool
    orientation: str | None = None
    """portrait, landscape, reverse_portrait or reverse_landscape (None: not reported)."""


def device_info(client: AdbClient) -> DeviceInfo:
    summary = summarize_properties(parse_getprop(commands.text(client, ["getprop"])))
    size = parse_display_size(_optional(client, ["wm", "size"])).effective
    density = parse_density(_optional(client, ["wm", "density"])).effective
    battery = read_battery(client)
    return DeviceInfo(
        serial=client.serial,
        model=summary.model,
        manufacturer=summary.manufacturer,
        brand=summary.brand,
        device=summary.device,
        android_version=summary.android_version,
        sdk=summary.sdk,
        abis=summary.abis,
        screen_width=size.width if size else None,
        screen_height=size.height if size else None,
        density=density,
        battery_percent=battery.percent if battery else None,
        battery_status=battery.status if battery else None,
        features=tuple(sorted(client.features)),
        is_emulator=summary.is_emulator,
        orientation=display_orientation(client),
    )


def read_battery(client: AdbClient) -> BatteryStatus | None:
    """The battery, or None on devices without a battery service (TVs, some boards)."""
    try:
        return parse_battery(commands.text(client, ["dumpsys", "battery"]))
    except DeviceCommandError:
        return None


def reports_emulator(client: AdbClient) -> bool:
    """Whether ro.kernel.qemu or ro.boot.qemu says this is an emulator."""
    values = (
        commands.text(client, ["getprop", "ro.kernel.qemu"]),
        commands.text(client, ["getprop", "ro.boot.qemu"]),
    )
    return any(value.strip() == "1" for value in values)


def _optional(client: AdbClient, argv: list[str]) -> str:
    """Output of a command that may be missing on some builds ("" then)."""
    try:
        return commands.text(client, argv)
    except DeviceCommandError:
        return ""
