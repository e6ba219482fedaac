"""``dumpsys battery``."""

from __future__ import annotations

import re
from dataclasses import dataclass

from adbwire.device.parsers._text import lines_of, output_error, raise_if_error_output

# android.os.BatteryManager BATTERY_STATUS_* and BATTERY_HEALTH_* values.
_STATUS_NAMES = {1: "unknown", 2: "charging", 3: "discharging", 4: "not_charging", 5: "full"}
_HEALTH_NAMES = {
    1: "unknown",
    2: "good",
    3: "overheat",
    4: "dead",
    5: "over_voltage",
    6: "unspecified_failure",
    7: "cold",
}
_POWER_SOURCES = (
    ("AC powered", "ac"),
    ("USB powered", "usb"),
    ("Wireless powered", "wireless"),
    ("Dock powered", "dock"),
)
# Two-space indented "key: value" lines; the one-space " Time when ..." notes are skipped.
# The value is stripped with str.strip: r"\s*(.*?)\s*$" backtracks quadratically over a
# run of spaces inside a value.
_FIELD = re.compile(r"^  (\S[^:]*):")


@dataclass(frozen=True)
class BatteryStatus:
    """The battery as the battery service reports it.

    ``updates_stopped`` is true after ``dumpsys battery set ...``: the values are then
    whatever someone set, not what the hardware measures.
    """

    level: int | None
    scale: int | None
    status: str
    health: str
    plugged: str
    power_sources: tuple[str, ...]
    temperature_c: float | None
    voltage_mv: int | None
    present: bool | None
    technology: str | None
    updates_stopped: bool

    @property
    def percent(self) -> float | None:
        """Charge in percent, from level and scale."""
        if self.level is None or not self.scale:
            return None
        return 100.0 * self.level / self.scale


def parse_battery(text: str) -> BatteryStatus:
    """Parse ``dumpsys battery``.

    Raises :class:`~adbwire.errors.DeviceCommandError` for an error reply or for output that
    is not a battery dump at all.
    """
    raise_if_error_output("dumpsys battery", text)
    fields: dict[str, str] = {}
    for line in lines_of(text):
        match = _FIELD.match(line)
        if match is not None and match.group(1) not in fields:
            fields[match.group(1)] = line[match.end() :].strip()
    if "level" not in fields and "status" not in fields:
        raise output_error("dumpsys battery", "no battery state in the output", text)

    def integer(key: str) -> int | None:
        value = fields.get(key)
        try:
            return int(value) if value is not None else None
        except ValueError:
            return None

    def flag(key: str) -> bool | None:
        value = fields.get(key)
        return value == "true" if value in ("true", "false") else None

    sources = tuple(name for key, name in _POWER_SOURCES if flag(key))
    status, health, temperature = integer("status"), integer("health"), integer("temperature")
    return BatteryStatus(
        level=integer("level"),
        scale=integer("scale"),
        status=_STATUS_NAMES.get(status, "unknown") if status is not None else "unknown",
        health=_HEALTH_NAMES.get(health, "unknown") if health is not None else "unknown",
        plugged=sources[0] if sources else "none",
        power_sources=sources,
        temperature_c=temperature / 10 if temperature is not None else None,
        voltage_mv=integer("voltage"),
        present=flag("present"),
        technology=fields.get("technology") or None,
        updates_stopped="UPDATES STOPPED" in text,
    )
