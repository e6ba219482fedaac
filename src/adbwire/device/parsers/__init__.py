"""Pure parsers: Android command output in, frozen dataclasses out. No I/O here.

One module per command family; every function takes the text (or bytes) a device printed.
Output that says the command failed raises :class:`adbwire.errors.DeviceCommandError`;
absent facts are ``None``.
"""

from __future__ import annotations

from adbwire.device.parsers.activities import (
    ActivityEntry,
    ActivityStack,
    TaskInfo,
    parse_activities,
)
from adbwire.device.parsers.battery import BatteryStatus, parse_battery
from adbwire.device.parsers.component import Component, parse_component
from adbwire.device.parsers.crashes import (
    Anr,
    Crash,
    crash_history,
    find_anrs,
    find_crashes,
    last_crash,
)
from adbwire.device.parsers.getprop import DeviceSummary, parse_getprop, summarize_properties
from adbwire.device.parsers.input_method import parse_keyboard_shown
from adbwire.device.parsers.logcat import (
    LogEntry,
    iter_logcat,
    level_at_least,
    parse_logcat,
    parse_logcat_line,
)
from adbwire.device.parsers.package_info import PackageInfo, PermissionState, parse_package_info
from adbwire.device.parsers.packages import (
    PackageEntry,
    parse_package_list,
    parse_pm_path,
    parse_resolve_activity,
)
from adbwire.device.parsers.screencap import (
    PngInfo,
    RawFrame,
    parse_png_header,
    parse_raw_screencap,
    png_is_black,
    raw_frame_is_black,
)
from adbwire.device.parsers.ui_dialogs import SystemDialog, detect_system_dialog
from adbwire.device.parsers.ui_framework import FrameworkReport, detect_framework
from adbwire.device.parsers.ui_xml import Bounds, UiElement, UiHierarchy, parse_ui_xml
from adbwire.device.parsers.window import (
    DisplayDensity,
    DisplaySize,
    Size,
    WindowDisplay,
    WindowFocus,
    parse_density,
    parse_display_size,
    parse_window_display,
    parse_window_focus,
)

__all__ = [
    "ActivityEntry",
    "ActivityStack",
    "Anr",
    "BatteryStatus",
    "Bounds",
    "Component",
    "Crash",
    "DeviceSummary",
    "DisplayDensity",
    "DisplaySize",
    "FrameworkReport",
    "LogEntry",
    "PackageEntry",
    "PackageInfo",
    "PermissionState",
    "PngInfo",
    "RawFrame",
    "Size",
    "SystemDialog",
    "TaskInfo",
    "UiElement",
    "UiHierarchy",
    "WindowDisplay",
    "WindowFocus",
    "crash_history",
    "detect_framework",
    "detect_system_dialog",
    "find_anrs",
    "find_crashes",
    "iter_logcat",
    "last_crash",
    "level_at_least",
    "parse_activities",
    "parse_battery",
    "parse_component",
    "parse_density",
    "parse_display_size",
    "parse_getprop",
    "parse_keyboard_shown",
    "parse_logcat",
    "parse_logcat_line",
    "parse_package_info",
    "parse_package_list",
    "parse_pm_path",
    "parse_png_header",
    "parse_raw_screencap",
    "parse_resolve_activity",
    "parse_ui_xml",
    "parse_window_display",
    "parse_window_focus",
    "png_is_black",
    "raw_frame_is_black",
    "summarize_properties",
]
