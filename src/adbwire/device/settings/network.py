"""Wi-Fi and mobile data on or off: ``svc wifi|data enable|disable`` (every release since
4.x), read back from ``global wifi_on`` and ``global mobile_data``."""

from __future__ import annotations

from dataclasses import dataclass

from adbwire.device import commands
from adbwire.device.settings.ledger import Noted
from adbwire.device.settings.values import read_setting, wait_for
from adbwire.wire.client import AdbClient

VERIFY_SECONDS = 10.0
_SETTING = {"wifi": "wifi_on", "data": "mobile_data"}


def radio_on(client: AdbClient, radio: str) -> bool | None:
    """Whether ``wifi`` or ``data`` is on. wifi_on is 1 (on), 2 (on in airplane mode), 0
    (off) or 3 (off until airplane mode ends)."""
    value = read_setting(client, "global", _SETTING[radio])
    if value is None:
        return None
    return value in ("1", "2")


@dataclass(frozen=True)
class RadioChange:
    radio: str
    before: bool | None
    after: bool | None


def set_radio(
    client: AdbClient, radio: str, enabled: bool, *, noted: Noted | None = None
) -> RadioChange:
    if radio not in _SETTING:
        raise ValueError(f"unknown radio {radio!r}")
    before = radio_on(client, radio)
    if noted is not None and before is not None:
        was = before
        noted(lambda c: set_radio(c, radio, was))
    if before is not enabled:
        commands.text(client, ["svc", radio, "enable" if enabled else "disable"])
    after = wait_for(
        lambda: radio_on(client, radio),
        lambda now: now is enabled,
        timeout=VERIFY_SECONDS,
        what=f"svc {radio} {'enable' if enabled else 'disable'}",
    )
    return RadioChange(radio, before, after)
