"""Device-wide state: reboot, airplane mode, screen on/off and lock."""

from __future__ import annotations

import dataclasses
import re
import time
from dataclasses import dataclass

from adbwire.device import commands
from adbwire.device.errors import VerificationError
from adbwire.device.settings.orientation import display_orientation
from adbwire.errors import UsageError
from adbwire.wire.client import AdbClient

REBOOT_MODES = ("system", "bootloader", "recovery", "sideload", "fastboot")
POLL_SECONDS = 0.25

_WAKEFULNESS = re.compile(r"\bmWakefulness=(\w+)")
_DISPLAY_STATE = re.compile(r"\bDisplay Power: state=(\w+)")
_LOCK_FLAGS = (
    re.compile(r"\bisKeyguardShowing=(true|false)"),
    re.compile(r"\bmShowingLockscreen=(true|false)"),
    re.compile(r"\bmDreamingLockscreen=(true|false)"),
    re.compile(r"\bisStatusBarKeyguard=(true|false)"),
    re.compile(r"\bmIsShowing=(true|false)"),
)


@dataclass(frozen=True)
class ScreenState:
    awake: bool | None
    display_on: bool | None
    locked: bool | None
    orientation: str | None = None


def parse_screen_state(power: str, window: str) -> ScreenState:
    """From ``dumpsys power`` and ``dumpsys window policy`` (or ``dumpsys window``)."""
    wake = _WAKEFULNESS.search(power)
    display = _DISPLAY_STATE.search(power)
    locked: bool | None = None
    for flag in _LOCK_FLAGS:
        match = flag.search(window)
        if match is not None:
            locked = match.group(1) == "true"
            break
    return ScreenState(
        awake=wake.group(1) == "Awake" if wake else None,
        display_on=display.group(1) == "ON" if display else None,
        locked=locked,
    )


def screen_state(client: AdbClient) -> ScreenState:
    power = commands.text(client, ["dumpsys", "power"])
    window = commands.run(client, ["dumpsys", "window", "policy"]).stdout.decode(errors="replace")
    state = parse_screen_state(power, window)
    return dataclasses.replace(state, orientation=display_orientation(client))


def wake_screen(
    client: AdbClient, *, dismiss_keyguard: bool = False, timeout: float = 5.0
) -> ScreenState:
    """Wake the screen (and dismiss a keyguard that has no PIN) and check that it is on."""
    commands.text(client, ["input", "keyevent", "KEYCODE_WAKEUP"])
    if dismiss_keyguard:
        commands.run(client, ["wm", "dismiss-keyguard"])
    deadline = time.monotonic() + timeout
    while True:
        state = screen_state(client)
        if state.awake is not False and (not dismiss_keyguard or state.locked is not True):
            return state
        if time.monotonic() >= deadline:
            raise VerificationError(f"the screen is still {_describe(state)} after waking it")
        time.sleep(POLL_SECONDS)


def _describe(state: ScreenState) -> str:
    return "locked" if state.locked and state.awake else "asleep"


def airplane_mode(client: AdbClient) -> bool:
    value = commands.text(client, ["settings", "get", "global", "airplane_mode_on"]).strip()
    return value == "1"


def set_airplane_mode(client: AdbClient, enabled: bool, *, timeout: float = 10.0) -> bool:
    """Switch airplane mode and wait until the setting reads back; returns whether it changed."""
    before = airplane_mode(client)
    if before == enabled:
        return False
    word = "enable" if enabled else "disable"
    result = commands.run(client, ["cmd", "connectivity", "airplane-mode", word])
    if result.exit_code != 0:  # before Android 11: write the setting and announce it
        commands.text(client, ["settings", "put", "global", "airplane_mode_on", str(int(enabled))])
        broadcast = ["am", "broadcast", "-a", "android.intent.action.AIRPLANE_MODE"]
        commands.run(client, [*broadcast, "--ez", "state", "true" if enabled else "false"])
    deadline = time.monotonic() + timeout
    while airplane_mode(client) != enabled:
        if time.monotonic() >= deadline:
            raise VerificationError(
                f"airplane_mode_on did not become {int(enabled)} in {timeout:g}s"
            )
        time.sleep(POLL_SECONDS)
    return True


def reboot(client: AdbClient, mode: str = "system") -> None:
    """Ask adbd to reboot; the connection drops, which is the expected outcome."""
    if mode not in REBOOT_MODES:
        raise UsageError(f"unknown reboot mode {mode!r}; use {', '.join(REBOOT_MODES)}")
    client.reboot("" if mode == "system" else mode, timeout=10.0)
