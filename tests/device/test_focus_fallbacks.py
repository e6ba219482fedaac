"""The focused window when `dumpsys window` has no line naming the app: the top visible app
window, then `dumpsys activity activities`; a device that prints mCurrentFocus pays nothing
more than one read. Real dumps from tests/data/device_outputs, filtered the way the device's
grep would filter them."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from adbwire.device import commands
from adbwire.device.parsers.component import Component
from adbwire.device.ui import snapshot
from tests.device_outputs import device_output

ZILLOW_POPUP = device_output("dumpsys_window/zillow_popup_windows_no_current_focus.txt")
MTK_ACTIVITIES = device_output("dumpsys_activity_activities/mtk_camera_task_format.txt")


@dataclass
class Shell:
    stdout: bytes
    exit_code: int = 0
    stderr: bytes = b""


class Device:
    """Answers the focus reads from canned real output; records the command lines."""

    def __init__(self, window: str, activities: str = "") -> None:
        self.window, self.activities, self.lines = window, activities, list[str]()

    def run_line(self, client: object, line: str, *, timeout: float | None = None) -> Shell:
        self.lines.append(line)
        if line == "dumpsys activity activities":
            return Shell(self.activities.encode())
        pattern = re.fullmatch(r"dumpsys window windows \| grep -E '(.*)'", line)
        assert pattern is not None, line
        kept = [row for row in self.window.splitlines() if re.search(pattern.group(1), row)]
        return Shell("".join(row + "\n" for row in kept).encode())


@pytest.fixture
def device(monkeypatch: pytest.MonkeyPatch) -> Device:
    found = Device("")
    monkeypatch.setattr(commands, "run_line", found.run_line)
    return found


def test_a_pop_up_ime_target_is_resolved_by_the_window_list(device: Device) -> None:
    device.window = ZILLOW_POPUP
    focus = snapshot.focused_window(object())  # type: ignore[arg-type]
    assert focus is not None and focus.package == "com.zillow.android.zillowmap"
    assert focus.current_focus == "Pop-Up Window" and focus.source == "imeInputTarget"
    assert len(device.lines) == 2  # the focus lines, then the window list


def test_nothing_in_the_window_dump_falls_back_to_the_resumed_activity(device: Device) -> None:
    device.window = "\n".join(
        line for line in ZILLOW_POPUP.splitlines() if "isVisible" not in line and "On" not in line
    )
    device.activities = MTK_ACTIVITIES
    focus = snapshot.focused_window(object())  # type: ignore[arg-type]
    assert focus is not None and focus.source == "ResumedActivity"
    assert focus.app_component == Component(
        "com.mediatek.camera", "com.mediatek.camera.CameraLauncher"
    )
    assert focus.current_focus == "Pop-Up Window"  # the window stays what the dump said
    assert device.lines[-1] == "dumpsys activity activities"


def test_a_device_printing_mcurrentfocus_is_read_once(device: Device) -> None:
    device.window = "  mCurrentFocus=Window{9 u0 com.d/com.d.X}\n"
    focus = snapshot.focused_window(object())  # type: ignore[arg-type]
    assert focus is not None and focus.package == "com.d" and len(device.lines) == 1
    device.lines.clear()
    device.window = "  mCurrentFocus=Window{5 u0 NotificationShade}\n"  # no app, but said
    assert snapshot.focused_window(object()) is not None  # type: ignore[arg-type]
    assert len(device.lines) == 1
