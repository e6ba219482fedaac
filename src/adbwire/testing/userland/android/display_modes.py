"""Rotation and night mode as the simulated system derives them from its settings.

Rotation follows ``system user_rotation`` while ``system accelerometer_rotation`` is 0; with
the sensor on, the device (lying flat, no sensor events) stays in its natural rotation.
Night mode is ``secure ui_night_mode`` (0 auto, 1 no, 2 yes), as UiModeManagerService keeps it.
"""

from __future__ import annotations

from adbwire.testing.userland.android.png import Canvas, Rect
from adbwire.testing.userland.android.state import AndroidState

NIGHT_MODES = {"0": "auto", "1": "no", "2": "yes"}
NIGHT_VALUES = {name: value for value, name in NIGHT_MODES.items()}


def rotation(state: AndroidState) -> int:
    system = state.settings.get("system", {})
    if system.get("accelerometer_rotation", "0") == "1":
        return 0
    value = system.get("user_rotation", "0")
    return int(value) % 4 if value.isdigit() else 0


def rotated(size: tuple[int, int], quarter_turns: int) -> tuple[int, int]:
    width, height = size
    return (height, width) if quarter_turns % 2 else (width, height)


def night_mode(state: AndroidState) -> str:
    return NIGHT_MODES.get(state.settings.get("secure", {}).get("ui_night_mode", "1"), "no")


def dark(state: AndroidState) -> bool:
    return night_mode(state) == "yes"


def display_rotation_lines(state: AndroidState) -> list[str]:
    """The DisplayRotation block of ``dumpsys window displays`` (as Android 12-14 print it)."""
    turns = rotation(state)
    auto = state.settings.get("system", {}).get("accelerometer_rotation", "0") == "1"
    mode = "USER_ROTATION_FREE" if auto else "USER_ROTATION_LOCKED"
    return [
        "",
        "  DisplayRotation",
        "    mCurrentAppOrientation=SCREEN_ORIENTATION_UNSPECIFIED",
        "    mLastOrientation=-1",
        f"    mRotation={turns} mDeferredRotationPauseCount=0",
        "    mLandscapeRotation=ROTATION_90 mSeascapeRotation=ROTATION_270",
        "    mPortraitRotation=ROTATION_0 mUpsideDownRotation=ROTATION_180",
        "    mSupportAutoRotation=true",
        f"    mUserRotationMode={mode} mUserRotation=ROTATION_{turns * 90} "
        "mAllowAllRotations=unknown",
        "    mFixedToUserRotation=false",
        "",
    ]


def turn_canvas(canvas: Canvas, quarter_turns: int) -> Canvas:
    """The canvas as the display shows it after ``quarter_turns`` rotations."""
    width, height = canvas.width, canvas.height
    turns = quarter_turns % 4
    if turns == 0:
        return canvas
    rects = []
    for r in canvas.rects:
        if turns == 1:
            box = (r.top, width - r.right, r.bottom, width - r.left)
        elif turns == 2:
            box = (width - r.right, height - r.bottom, width - r.left, height - r.top)
        else:
            box = (height - r.bottom, r.left, height - r.top, r.right)
        rects.append(Rect(*box, r.color))
    size = rotated((width, height), turns)
    return Canvas(size[0], size[1], canvas.background, rects)
