"""Whether the simulated device is awake: what the power keys change and `dumpsys power` shows.

KEYCODE_POWER toggles, KEYCODE_WAKEUP only wakes and KEYCODE_SLEEP only sends to sleep, as
PhoneWindowManager handles them; each real change logs PowerManagerService's line in the
system buffer. The device has no lock screen (Settings > Screen lock: None), so waking never
shows a keyguard. While asleep the display is off: screencap is black and touches are
dropped, as the input policy drops them on a real phone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from adbwire.testing.userland.android.state import AndroidState

__all__ = ["POWER_KEYS", "PowerState", "press_power_key"]

SYSTEM_UID: Final = 1000
POWER_KEYS: Final = ("KEYCODE_POWER", "KEYCODE_WAKEUP", "KEYCODE_SLEEP", "KEYCODE_SOFT_SLEEP")
_WAKE_REASONS: Final = {
    "KEYCODE_POWER": ("WAKE_REASON_POWER_BUTTON", "android.policy:POWER"),
    "KEYCODE_WAKEUP": ("WAKE_REASON_WAKE_KEY", "android.policy:KEY"),
}
_SLEEP_REASONS: Final = {
    "KEYCODE_POWER": "power_button",
    "KEYCODE_SLEEP": "sleep_button",
    "KEYCODE_SOFT_SLEEP": "sleep_button",
}


@dataclass
class PowerState:
    """PowerManagerService's view: wakefulness and when it last changed (uptime ms)."""

    awake: bool = True
    last_wake_ms: int = 0
    last_sleep_ms: int = 0
    last_sleep_reason: str = "application"

    @property
    def wakefulness(self) -> str:
        return "Awake" if self.awake else "Asleep"

    @property
    def display_state(self) -> str:
        return "ON" if self.awake else "OFF"


def press_power_key(state: AndroidState, keycode: str) -> bool:
    """Handle a power-related key; False if `keycode` is not one (the caller goes on)."""
    if keycode not in POWER_KEYS:
        return False
    power = state.power
    now_ms = int(state.clock.uptime() * 1000)
    wants_awake = not power.awake if keycode == "KEYCODE_POWER" else keycode == "KEYCODE_WAKEUP"
    if wants_awake == power.awake:
        return True
    if wants_awake:
        reason, details = _WAKE_REASONS[keycode]
        power.awake, power.last_wake_ms = True, now_ms
        message = f"Waking up from Asleep (uid={SYSTEM_UID}, reason={reason}, details={details})..."
    else:
        power.awake, power.last_sleep_ms = False, now_ms
        power.last_sleep_reason = _SLEEP_REASONS[keycode]
        message = f"Going to sleep due to {power.last_sleep_reason} (uid {SYSTEM_UID})..."
    state.system_log("I", "PowerManagerService", message)
    return True
