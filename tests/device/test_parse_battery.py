"""dumpsys battery."""

from __future__ import annotations

import pytest

from adbwire.device.parsers.battery import parse_battery
from adbwire.errors import DeviceCommandError
from tests.device_outputs import device_output


def test_recent_emulator_format() -> None:
    battery = parse_battery(device_output("dumpsys_battery/emulator_recent_format.txt"))
    assert (battery.level, battery.scale, battery.percent) == (100, 100, 100.0)
    assert battery.status == "charging"  # status: 2
    assert battery.health == "good"  # health: 2
    assert battery.plugged == "ac"
    assert battery.power_sources == ("ac",)
    assert battery.temperature_c == 25.0  # temperature: 250 (tenths of a degree)
    assert battery.voltage_mv == 5000
    assert battery.present is True
    assert battery.technology == "Li-ion"
    assert battery.updates_stopped is False


OLD_DEVICE = (
    "Current Battery Service state:\r\n"
    "  (UPDATES STOPPED -- use 'reset' to restart)\r\n"
    "  AC powered: false\r\n"
    "  USB powered: true\r\n"
    "  Wireless powered: false\r\n"
    "  status: 3\r\n"
    "  health: 3\r\n"
    "  present: true\r\n"
    "  level: 15\r\n"
    "  scale: 50\r\n"
    "  voltage: 3712\r\n"
    "  temperature: 418\r\n"
    "  technology: Li-poly\r\n"
)


def test_old_device_with_crlf_and_stopped_updates() -> None:
    battery = parse_battery(OLD_DEVICE)
    assert (battery.plugged, battery.status, battery.health) == ("usb", "discharging", "overheat")
    assert battery.percent == 30.0
    assert battery.temperature_c == pytest.approx(41.8)
    assert battery.updates_stopped is True


def test_unplugged_and_unknown_codes() -> None:
    text = OLD_DEVICE.replace("USB powered: true", "USB powered: false").replace(
        "status: 3", "status: 9"
    )
    battery = parse_battery(text)
    assert (battery.plugged, battery.power_sources, battery.status) == ("none", (), "unknown")


def test_errors_and_empty_output() -> None:
    with pytest.raises(DeviceCommandError, match="Can't find service: battery"):
        parse_battery("Can't find service: battery\n")
    with pytest.raises(DeviceCommandError, match="no battery state"):
        parse_battery("")


def test_truncated_output_keeps_what_arrived() -> None:
    battery = parse_battery("Current Battery Service state:\n  AC powered: true\n  level: 42\n  sc")
    assert (battery.level, battery.scale, battery.percent) == (42, None, None)
