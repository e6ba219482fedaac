"""Screen orientation: lock it to one of the four rotations, or let the sensor decide.

Written through the two settings window manager watches on every release since 4.x
(``system accelerometer_rotation`` and ``system user_rotation``), read back from them and from
the rotation the display reports (``mRotation=`` in ``dumpsys window displays``). An app that
fixes its own orientation keeps the display where it wants it: that is reported, not raised.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from adbwire.device import commands
from adbwire.device.parsers.device_settings import parse_display_rotation
from adbwire.device.settings.ledger import Noted
from adbwire.device.settings.values import POLL_SECONDS, read_setting, wait_for, write_setting
from adbwire.wire.client import AdbClient

Orientation = Literal["portrait", "landscape", "reverse_portrait", "reverse_landscape", "auto"]
ROTATIONS: dict[str, int] = {
    "portrait": 0,
    "landscape": 1,
    "reverse_portrait": 2,
    "reverse_landscape": 3,
}
NAMES = {value: name for name, value in ROTATIONS.items()}
SETTINGS = ("accelerometer_rotation", "user_rotation")
SETTLE_SECONDS = 5.0


@dataclass(frozen=True)
class RotationState:
    auto_rotate: bool | None
    """``accelerometer_rotation``: the sensor turns the screen (None: unset)."""
    user_rotation: int | None
    """The locked rotation setting (0-3), used while auto_rotate is off."""
    display_rotation: int | None
    """What the display shows now, or None when the device does not print it."""

    @property
    def orientation(self) -> str | None:
        """The display's orientation by name (portrait, landscape, reverse_…)."""
        return NAMES.get(self.display_rotation) if self.display_rotation is not None else None


def display_rotation(client: AdbClient) -> int | None:
    result = commands.run(client, ["dumpsys", "window", "displays"])
    return parse_display_rotation(commands.decode(result.stdout))


def read_rotation(client: AdbClient) -> RotationState:
    auto = read_setting(client, "system", "accelerometer_rotation")
    user = read_setting(client, "system", "user_rotation")
    return RotationState(
        auto_rotate=None if auto is None else auto == "1",
        user_rotation=int(user) if user is not None and user.isdigit() else None,
        display_rotation=display_rotation(client),
    )


def saved_rotation(client: AdbClient) -> dict[str, str | None]:
    """The raw settings, for ``restore_rotation`` (None: unset)."""
    return {key: read_setting(client, "system", key) for key in SETTINGS}


def restore_rotation(client: AdbClient, saved: dict[str, str | None]) -> None:
    for key in SETTINGS:
        write_setting(client, "system", key, saved.get(key))


@dataclass(frozen=True)
class OrientationChange:
    before: RotationState
    after: RotationState
    saved: dict[str, str | None]
    note: str | None


def set_orientation(
    client: AdbClient,
    orientation: Orientation,
    *,
    settle: float = SETTLE_SECONDS,
    noted: Noted | None = None,
) -> OrientationChange:
    """Lock the screen to ``orientation`` (or hand it to the sensor with ``auto``), check
    that the settings read back, and wait up to ``settle`` s for the display to turn."""
    saved = saved_rotation(client)
    if noted is not None:
        noted(lambda c: restore_rotation(c, saved))
    before = read_rotation(client)
    if orientation == "auto":
        write_setting(client, "system", "accelerometer_rotation", "1")
    else:
        write_setting(client, "system", "accelerometer_rotation", "0")
        write_setting(client, "system", "user_rotation", str(ROTATIONS[orientation]))
    wanted = None if orientation == "auto" else ROTATIONS[orientation]
    wait_for(
        lambda: saved_rotation(client),
        lambda now: (
            now["accelerometer_rotation"] == ("1" if wanted is None else "0")
            and (wanted is None or now["user_rotation"] == str(wanted))
        ),
        timeout=settle,
        what=f"set_orientation {orientation}",
    )
    after = read_rotation(client)
    deadline = time.monotonic() + settle
    while wanted is not None and after.display_rotation not in (None, wanted):
        if time.monotonic() >= deadline:
            break
        time.sleep(POLL_SECONDS)
        after = read_rotation(client)
    return OrientationChange(before, after, saved, _note(wanted, after))


def _note(wanted: int | None, after: RotationState) -> str | None:
    if wanted is None:
        return "the sensor decides the rotation now"
    if after.display_rotation is None:
        return "the device does not print the display's rotation: only the settings were checked"
    if after.display_rotation != wanted:
        return (
            f"the display stays {after.orientation}: the app on screen fixes its orientation "
            "(the lock applies to apps that do not)"
        )
    return None


def display_orientation(client: AdbClient) -> str | None:
    """The display's orientation by name, or None when the device does not print it."""
    turns = display_rotation(client)
    return NAMES.get(turns) if turns is not None else None
