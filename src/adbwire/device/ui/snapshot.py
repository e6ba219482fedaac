"""One reading of the screen: the UI tree, the toolkit, the keyboard and the focused window.

A snapshot's ``signature`` summarises what a user would see (the elements with their
text, state and position, the focused window, the keyboard); two snapshots with the same
signature show the same screen, which is how actions tell whether they changed anything.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from adbwire.device import commands
from adbwire.device.parsers import (
    FrameworkReport,
    UiHierarchy,
    WindowFocus,
    detect_framework,
    parse_keyboard_shown,
    parse_ui_xml,
    parse_window_focus,
)
from adbwire.device.parsers.activities import parse_activities
from adbwire.device.parsers.window import FALLBACK_KEYS, WINDOW_LIST_KEYS
from adbwire.device.ui.dump import DEFAULT_TIMEOUT, Method, dump_ui
from adbwire.errors import AdbwireError
from adbwire.wire.client import AdbClient

FOCUS_GREP = "grep -E '" + "|".join(("mCurrentFocus=", "mFocusedApp=", *FALLBACK_KEYS)) + "'"
"""Keeps the lines ``parse_window_focus`` reads from a ``dumpsys window`` dump."""
_FOCUS_LINES = "dumpsys window windows | " + FOCUS_GREP
_WINDOW_LIST_LINES = (
    "dumpsys window windows | grep -E '"
    + "|".join(("mCurrentFocus=", "mFocusedApp=", *FALLBACK_KEYS, *WINDOW_LIST_KEYS))
    + "'"
)
RESUMED_ACTIVITY = "ResumedActivity"


@dataclass(frozen=True)
class UiSnapshot:
    hierarchy: UiHierarchy
    xml_bytes: int
    method: Method
    compressed: bool
    framework: FrameworkReport
    keyboard_shown: bool | None
    """None when ``dumpsys input_method`` does not say."""
    focus: WindowFocus | None
    """None when ``dumpsys window`` could not be read."""

    @property
    def signature(self) -> str:
        return screen_signature(self.hierarchy, self.keyboard_shown, self.focus)


def keyboard_shown(client: AdbClient) -> bool | None:
    """Whether the soft keyboard is up, or None when the device does not say."""
    try:
        return parse_keyboard_shown(commands.text(client, ["dumpsys", "input_method"]))
    except AdbwireError:
        return None


def focused_window(client: AdbClient) -> WindowFocus | None:
    """The focused window and app, or None when ``dumpsys window`` cannot be read."""
    try:
        result = commands.run_line(client, _FOCUS_LINES, timeout=DEFAULT_TIMEOUT)
        focus = parse_window_focus(commands.decode(result.stdout))
        if focus.package is None and focus.source != "mCurrentFocus":
            focus = _focus_without_focus_lines(client)
    except AdbwireError:
        return None
    return focus if focus.current_focus or focus.focused_app else None


def _focus_without_focus_lines(client: AdbClient) -> WindowFocus:
    """No line named the focused app (some vendors' builds print no ``mCurrentFocus``, an
    IME target can be a ``Pop-Up Window``): the top visible app window, else the resumed
    activity of ``dumpsys activity activities``. Only such devices pay the extra reads."""
    listed = commands.run_line(client, _WINDOW_LIST_LINES, timeout=DEFAULT_TIMEOUT)
    focus = parse_window_focus(commands.decode(listed.stdout))
    if focus.package is not None:
        return focus
    activities = commands.run_line(client, "dumpsys activity activities", timeout=DEFAULT_TIMEOUT)
    resumed = parse_activities(commands.decode(activities.stdout)).focused
    if resumed is None:
        return focus
    if focus.current_focus is not None:  # a window without an app, such as a pop-up
        return WindowFocus(
            focus.current_focus, resumed.short, None, resumed, None, None, RESUMED_ACTIVITY
        )
    return WindowFocus(
        resumed.flattened, resumed.short, resumed, resumed, None, None, RESUMED_ACTIVITY
    )


def read_ui(
    client: AdbClient,
    *,
    compressed: bool = False,
    method: Method | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> UiSnapshot:
    """Dump and parse the screen, then read the keyboard and the focus."""
    dump = dump_ui(client, compressed=compressed, method=method, timeout=timeout)
    hierarchy = parse_ui_xml(dump.xml)
    return UiSnapshot(
        hierarchy=hierarchy,
        xml_bytes=len(dump.xml.encode()),
        method=dump.method,
        compressed=dump.compressed,
        framework=detect_framework(hierarchy.elements),
        keyboard_shown=keyboard_shown(client),
        focus=focused_window(client),
    )


def screen_signature(
    hierarchy: UiHierarchy, keyboard: bool | None, focus: WindowFocus | None
) -> str:
    digest = hashlib.sha256()
    digest.update(f"{focus.current_focus if focus else None}|{keyboard}\n".encode())
    for e in hierarchy.elements:
        b = e.bounds
        row = (
            e.class_name,
            e.resource_id,
            e.text,
            e.content_desc,
            (b.left, b.top, b.right, b.bottom),
            e.checked,
            e.selected,
            e.focused,
            e.enabled,
        )
        digest.update(repr(row).encode() + b"\n")
    return digest.hexdigest()
