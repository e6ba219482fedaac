"""``dumpsys window`` focus, ``wm size`` and ``wm density``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from adbwire.device.parsers._text import lines_of
from adbwire.device.parsers.component import (
    Component,
    component_in_activity_record,
    parse_component,
)

# "Window{23153ef u0 com.x/com.x.Main}", "Window{b4d2a948 com.x/com.x.Main paused=false}"
_WINDOW = re.compile(r"^Window\{[0-9a-f]+ (?:u\d+ )?(.*?)(?: paused=(?:true|false))?\}\s*$")
_FOCUS_LINE = re.compile(r"^\s*mCurrentFocus=(.*)$")
_APP_LINE = re.compile(r"^\s*mFocusedApp=(.*)$")
# Where the focus shows when a dump has no mCurrentFocus (some vendors' Android 12+
# builds, `dumpsys window windows` on newer releases), most telling first: the window the
# input method serves ("imeInputTarget in display# 0 Window{...}", Android 12+;
# "mInputMethodTarget=Window{...}" before), then the top full-screen opaque window.
FALLBACK_KEYS = (
    "mFocusedWindow",
    "imeInputTarget",
    "imeLayeringTarget",
    "imeControlTarget",
    "mInputMethodTarget",
    "mTopFullscreenOpaqueWindowState",
)
_FALLBACK_LINE = re.compile(
    r"^\s*(?P<key>" + "|".join(FALLBACK_KEYS) + r")(?:=| in display# ?\d+ )(?P<value>.*)$"
)
# `dumpsys window windows` lists windows top first, each under "Window #N Window{...}:";
# an app's window names its activity ("mActivityRecord=ActivityRecord{...}"; Android 10
# and before: "mAppToken=AppWindowToken{... ActivityRecord{...}}"), and
# "isVisible=true" (Android 10+) or "isOnScreen=true" says it is shown. The top visible
# app window is the last resort when no focus line names an app (an IME target that is a
# "Pop-Up Window", or none at all).
_WINDOW_BLOCK = re.compile(r"^\s*Window #\d+ (Window\{.*\}):\s*$")
_ACTIVITY_RECORD_LINE = re.compile(r"^\s*(?:mActivityRecord|mAppToken)=(.*)$")
_SHOWN_LINE = re.compile(r"^\s*(?:isVisible|isOnScreen)=true\s*$")
VISIBLE_APP_WINDOW = "visible app window"
WINDOW_LIST_KEYS = (
    "Window #",
    "mActivityRecord=",
    "mAppToken=",
    "isVisible=true",
    "isOnScreen=true",
)
"""What a grep must keep of a window list for the top visible app window."""

DialogKind = Literal["anr", "crash"]
_DIALOG_TITLES: dict[str, DialogKind] = {
    "Application Not Responding: ": "anr",
    "Application Error: ": "crash",
}


@dataclass(frozen=True)
class WindowFocus:
    """Which window has input focus and which app window manager considers focused.

    ``current_focus`` is the focused window's title as printed (``pkg/cls`` for an activity
    window, or names such as ``NotificationShade`` or ``Application Not Responding: pkg``);
    ``focused_app`` is the focused app's activity in ``pkg/.cls`` form. The two differ when a
    system window (keyguard, notification shade, a dialog) sits above the app.
    """

    current_focus: str | None
    focused_app: str | None
    focus_component: Component | None
    app_component: Component | None
    dialog: DialogKind | None
    dialog_process: str | None
    source: str | None = None
    """The line the focus was read from: ``mCurrentFocus``, or a fallback key."""

    @property
    def package(self) -> str | None:
        """The package of the focused activity window, else of the focused app."""
        component = self.focus_component or self.app_component
        return component.package if component else None

    @property
    def activity(self) -> str | None:
        """Fully qualified class of the focused activity window, else of the focused app."""
        component = self.focus_component or self.app_component
        return component.class_name if component else None

    @property
    def app_has_focus(self) -> bool:
        """True when the focused window belongs to the focused app (a launch took effect)."""
        return (
            self.focus_component is not None
            and self.app_component is not None
            and self.focus_component.package == self.app_component.package
        )


def _window_title(value: str) -> str | None:
    value = value.strip()
    if not value or value == "null":
        return None
    match = _WINDOW.match(value)
    return match.group(1).strip() if match else value


class _WindowList:
    """The top visible app window of a window list, read a line at a time."""

    def __init__(self) -> None:
        self.top: tuple[str | None, Component] | None = None
        self._title: str | None = None
        self._app: Component | None = None
        self._shown = False

    def read(self, line: str) -> None:
        if self.top is not None:
            return
        if (match := _WINDOW_BLOCK.match(line)) is not None:
            self._title, self._app, self._shown = _window_title(match.group(1)), None, False
        elif (match := _ACTIVITY_RECORD_LINE.match(line)) is not None:
            self._app = component_in_activity_record(match.group(1))
        elif _SHOWN_LINE.match(line):
            self._shown = True
        else:
            return
        if self._shown and self._app is not None:
            self.top = (self._title, self._app)


def parse_window_focus(text: str) -> WindowFocus:
    """Parse ``dumpsys window`` (or ``dumpsys window windows|displays``) for the focus.

    The first ``mCurrentFocus=`` and ``mFocusedApp=`` lines are used (the default display
    comes first). Without a ``mCurrentFocus`` line (or with ``mCurrentFocus=null``), the
    first of ``FALLBACK_KEYS`` that names a window is used, and an activity window found so
    stands in for a missing ``mFocusedApp``. When none of those names an app (an IME target
    such as ``Pop-Up Window``, or no line at all), the top visible window with an
    ``mActivityRecord`` gives the app (and the title, when there was none: source
    ``VISIBLE_APP_WINDOW``); ``source`` says which line it was. Missing lines give ``None``
    fields, never an error.
    """
    focus_value: str | None = None
    app_value: str | None = None
    fallbacks: dict[str, str] = {}
    windows = _WindowList()
    for line in lines_of(text):
        if focus_value is None and (match := _FOCUS_LINE.match(line)):
            focus_value = match.group(1)
        elif app_value is None and (match := _APP_LINE.match(line)):
            app_value = match.group(1)
        elif (match := _FALLBACK_LINE.match(line)) is not None:
            fallbacks.setdefault(match.group("key"), match.group("value"))
        else:
            windows.read(line)

    source = "mCurrentFocus" if focus_value is not None else None
    title = _window_title(focus_value) if focus_value is not None else None
    if title is None:
        for key in FALLBACK_KEYS:
            found = _window_title(fallbacks.get(key, ""))
            if found is not None:
                title, source = found, key
                break
    focus_component = parse_component(title) if title else None
    app_component = component_in_activity_record(app_value) if app_value else None
    if app_component is None and source != "mCurrentFocus":
        app_component = focus_component
    if focus_component is None and app_component is None and windows.top is not None:
        shown_title, app_component = windows.top
        if title is None:
            title, source = shown_title, VISIBLE_APP_WINDOW
            focus_component = parse_component(title) if title else None
    dialog: DialogKind | None = None
    dialog_process: str | None = None
    if title:
        for prefix, kind in _DIALOG_TITLES.items():
            if title.startswith(prefix):
                dialog, dialog_process = kind, title[len(prefix) :].strip() or None
    return WindowFocus(
        current_focus=title,
        focused_app=app_component.short if app_component else None,
        focus_component=focus_component,
        app_component=app_component,
        dialog=dialog,
        dialog_process=dialog_process,
        source=source if title else None,
    )


@dataclass(frozen=True)
class Size:
    """A width and a height in pixels."""

    width: int
    height: int


@dataclass(frozen=True)
class DisplaySize:
    """``wm size``: the panel's size and the override set with ``wm size WxH``, if any."""

    physical: Size | None
    override: Size | None

    @property
    def effective(self) -> Size | None:
        """The size apps see: the override when set, else the physical size."""
        return self.override or self.physical


@dataclass(frozen=True)
class DisplayDensity:
    """``wm density``: the panel's density and the override, in dpi."""

    physical: int | None
    override: int | None

    @property
    def effective(self) -> int | None:
        """The density apps see: the override when set, else the physical density."""
        return self.override if self.override is not None else self.physical


_SIZE_LINE = re.compile(r"^\s*(Physical|Override) size:\s*(\d+)\s*x\s*(\d+)\s*$")
_DENSITY_LINE = re.compile(r"^\s*(Physical|Override) density:\s*(\d+)\s*$")


def parse_display_size(text: str) -> DisplaySize:
    """Parse ``wm size`` (``Physical size: 1080x2400`` and maybe ``Override size: ...``)."""
    found: dict[str, Size] = {}
    for line in lines_of(text):
        match = _SIZE_LINE.match(line)
        if match and match.group(1) not in found:
            found[match.group(1)] = Size(int(match.group(2)), int(match.group(3)))
    return DisplaySize(physical=found.get("Physical"), override=found.get("Override"))


def parse_density(text: str) -> DisplayDensity:
    """Parse ``wm density`` (``Physical density: 440`` and maybe ``Override density: ...``)."""
    found: dict[str, int] = {}
    for line in lines_of(text):
        match = _DENSITY_LINE.match(line)
        if match and match.group(1) not in found:
            found[match.group(1)] = int(match.group(2))
    return DisplayDensity(physical=found.get("Physical"), override=found.get("Override"))


@dataclass(frozen=True)
class WindowDisplay:
    """The default display as ``dumpsys window`` describes it (``init=... cur=... app=...``)."""

    initial: Size
    density: int | None
    current: Size | None
    app: Size | None


_DISPLAY_LINE = re.compile(r"\binit=(\d+)x(\d+)(?: (\d+)dpi)?\b")
_CUR = re.compile(r"\bcur=(\d+)x(\d+)\b")
_APP = re.compile(r"\bapp=(\d+)x(\d+)\b")


def parse_window_display(text: str) -> WindowDisplay | None:
    """Sizes of the first display in ``dumpsys window``; ``None`` when no display line."""
    for line in lines_of(text):
        match = _DISPLAY_LINE.search(line)
        if match is None:
            continue
        cur, app = _CUR.search(line), _APP.search(line)
        return WindowDisplay(
            initial=Size(int(match.group(1)), int(match.group(2))),
            density=int(match.group(3)) if match.group(3) else None,
            current=Size(int(cur.group(1)), int(cur.group(2))) if cur else None,
            app=Size(int(app.group(1)), int(app.group(2))) if app else None,
        )
    return None
