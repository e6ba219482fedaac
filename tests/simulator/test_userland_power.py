"""The screen's power state: the power keys, `dumpsys power` in PowerManagerService's format,
and what a sleeping device does (black screencap, touches dropped, PowerManagerService logs)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adbwire.testing.userland import Userland
from tests.simulator.userland_harness import make_userland, run

KEY_LINES = re.compile(r"mWakefulness=\w+|mHoldingDisplaySuspendBlocker=\w+|Display Power: .*")


@pytest.fixture
def userland(tmp_path: Path) -> Userland:
    return make_userland(tmp_path)


def key_lines(userland: Userland) -> list[str]:
    return KEY_LINES.findall(run(userland, "dumpsys power").out)


AWAKE = ["mWakefulness=Awake", "mHoldingDisplaySuspendBlocker=true", "Display Power: state=ON"]
ASLEEP = ["mWakefulness=Asleep", "mHoldingDisplaySuspendBlocker=false", "Display Power: state=OFF"]


def test_the_dump_has_power_manager_services_layout(userland: Userland) -> None:
    out = run(userland, "dumpsys power").out
    assert out.startswith("POWER MANAGER (dumpsys power)\n\nPower Manager State:\n")
    labels = [line.split("=")[0].strip() for line in out.splitlines() if line.startswith("  m")]
    order = ["mDirty", "mWakefulness", "mIsPowered", "mPlugType", "mBatteryLevel"]
    assert [label for label in labels if label in order] == order
    assert labels.index("mHoldingWakeLockSuspendBlocker") + 1 == labels.index(
        "mHoldingDisplaySuspendBlocker"
    )
    assert re.search(r"^  mLastWakeTime=\d+ \(\d+ ms ago\)$", out, re.MULTILINE)
    assert "\nWake Locks: size=0\n\nSuspend Blockers: size=4\n" in out
    assert "  PowerManagerService.Display: ref count=1\n" in out
    assert out.endswith("\n\nDisplay Power: state=ON\n")
    assert key_lines(userland) == AWAKE
    assert "  mBatteryLevel=100\n  " in out and "  mPlugType=1\n" in out


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        (["KEYCODE_POWER"], ASLEEP),
        (["KEYCODE_POWER", "KEYCODE_POWER"], AWAKE),
        (["26"], ASLEEP),
        (["KEYCODE_SLEEP"], ASLEEP),
        (["SLEEP", "KEYCODE_SLEEP"], ASLEEP),
        (["KEYCODE_WAKEUP"], AWAKE),
        (["KEYCODE_SLEEP", "KEYCODE_WAKEUP"], AWAKE),
        (["KEYCODE_SLEEP", "224"], AWAKE),
    ],
)
def test_power_keys(userland: Userland, keys: list[str], expected: list[str]) -> None:
    for key in keys:
        assert run(userland, f"input keyevent {key}").status == 0
    assert key_lines(userland) == expected


def test_changes_are_logged_and_dumped(userland: Userland) -> None:
    run(userland, "input keyevent KEYCODE_POWER")
    out = run(userland, "dumpsys power").out
    assert "  mLastSleepReason=power_button\n" in out
    assert "  PowerManagerService.Display: ref count=0\n" in out
    run(userland, "input keyevent KEYCODE_WAKEUP")
    run(userland, "input keyevent KEYCODE_WAKEUP")  # already awake: no second line
    log = run(userland, "logcat -d -b system -s PowerManagerService").out.splitlines()
    assert [line.split(": ", 1)[1] for line in log if " I PowerManagerService: " in line][-2:] == [
        "Going to sleep due to power_button (uid 1000)...",
        "Waking up from Asleep (uid=1000, reason=WAKE_REASON_WAKE_KEY, "
        "details=android.policy:KEY)...",
    ]


def test_asleep_the_screen_is_black_and_touches_are_dropped(userland: Userland) -> None:
    bright = run(userland, "screencap").raw
    run(userland, "input keyevent KEYCODE_POWER")
    dark = run(userland, "screencap").raw
    assert dark[:16] == bright[:16] and set(dark[16:]) <= {0, 255}  # black, opaque
    assert "mInteractive=false" in run(userland, "dumpsys input_method").out
    run(userland, "input tap 540 1200")
    run(userland, "input swipe 540 1800 540 400")
    assert "NexusLauncherActivity" in run(userland, "dumpsys window | grep mCurrentFocus").out
    run(userland, "input keyevent KEYCODE_WAKEUP")
    assert run(userland, "screencap").raw == bright


def test_reboot_wakes_the_device(userland: Userland) -> None:
    run(userland, "input keyevent KEYCODE_POWER")
    userland.on_reboot("")
    assert key_lines(userland) == AWAKE


def test_there_is_no_keyguard_to_dismiss(userland: Userland) -> None:
    result = run(userland, "wm dismiss-keyguard")
    assert (result.status, result.out, result.err) == (0, "", "")
    assert "isKeyguardShowing=false" in run(userland, "dumpsys window policy").out
