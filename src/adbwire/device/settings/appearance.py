"""Dark mode (``cmd uimode night``, Android 10+) and font scale (``system font_scale``),
each read back after writing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from adbwire.device import commands
from adbwire.device.errors import UnsupportedError
from adbwire.device.parsers.device_settings import parse_night_mode
from adbwire.device.sdk import sdk_level
from adbwire.device.settings.ledger import Noted
from adbwire.device.settings.values import read_setting, wait_for, write_setting
from adbwire.errors import UsageError
from adbwire.wire.client import AdbClient

DarkMode = Literal["yes", "no", "auto"]
DARK_MODE_SDK = 29
MIN_FONT_SCALE = 0.5
MAX_FONT_SCALE = 2.0
VERIFY_SECONDS = 5.0


def night_mode(client: AdbClient) -> str | None:
    """``yes``, ``no``, ``auto`` (or a custom schedule), None when not reported."""
    return parse_night_mode(commands.text(client, ["cmd", "uimode", "night"]))


@dataclass(frozen=True)
class Change:
    before: str | None
    after: str | None


def set_night_mode(client: AdbClient, mode: str, *, noted: Noted | None = None) -> Change:
    """Switch dark mode to ``yes``/``no``/``auto`` (or back to a custom mode read earlier)."""
    sdk = sdk_level(client)
    if sdk is not None and sdk < DARK_MODE_SDK:
        raise UnsupportedError(f"dark mode needs Android 10 (API 29); this device is API {sdk}")
    before = night_mode(client)
    if noted is not None:
        original = before or "no"
        noted(lambda c: set_night_mode(c, original))
    commands.text(client, ["cmd", "uimode", "night", mode])
    after = wait_for(
        lambda: night_mode(client),
        lambda now: now == mode,
        timeout=VERIFY_SECONDS,
        what=f"cmd uimode night {mode}",
    )
    return Change(before, after)


def check_font_scale(scale: float) -> str:
    if not MIN_FONT_SCALE <= scale <= MAX_FONT_SCALE:
        raise UsageError(f"font scale must be within {MIN_FONT_SCALE}..{MAX_FONT_SCALE}")
    return f"{scale:g}"


def set_font_scale(client: AdbClient, scale: float, *, noted: Noted | None = None) -> Change:
    """Write ``system font_scale`` and read it back (apps re-layout on their own)."""
    text = check_font_scale(scale)
    before = read_setting(client, "system", "font_scale")
    if noted is not None:
        noted(lambda c: restore_font_scale(c, before))
    write_setting(client, "system", "font_scale", text)
    after = wait_for(
        lambda: read_setting(client, "system", "font_scale"),
        lambda now: now is not None and _same_number(now, scale),
        timeout=VERIFY_SECONDS,
        what=f"font_scale {text}",
    )
    return Change(before, after)


def restore_font_scale(client: AdbClient, value: str | None) -> None:
    write_setting(client, "system", "font_scale", value)


def _same_number(text: str, value: float) -> bool:
    try:
        return abs(float(text) - value) < 1e-6
    except ValueError:
        return False
