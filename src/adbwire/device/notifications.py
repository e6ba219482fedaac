"""The notifications on a device, and the shade that shows them.

``dumpsys notification --noredact`` lists every posted notification with its texts (without
``--noredact`` Android 10+ prints only their lengths); ``cmd statusbar expand-notifications``
pulls the shade down so that the UI tools can read and tap an entry.
"""

from __future__ import annotations

from dataclasses import dataclass

from adbwire.device import commands
from adbwire.device.parsers import parse_display_size, parse_window_focus
from adbwire.device.parsers.notifications import Notification, parse_notifications
from adbwire.errors import DeviceCommandError
from adbwire.wire.client import AdbClient

__all__ = ["Notification", "ShadeState", "list_notifications", "open_notifications"]
SHADE_WINDOWS = ("NotificationShade", "StatusBar", "NotificationPanel")


def list_notifications(client: AdbClient, package: str | None = None) -> list[Notification]:
    """Posted notifications, newest first, optionally of one package only."""
    text = commands.text(client, ["dumpsys", "notification", "--noredact"])
    found = [n for n in parse_notifications(text) if package is None or n.package == package]
    return sorted(found, key=lambda n: n.time or "", reverse=True)


@dataclass(frozen=True)
class ShadeState:
    method: str
    """cmd_statusbar, or swipe (a finger down from the top edge) where cmd failed."""
    shade_focused: bool | None
    """The notification shade has the focus now (None: the focus was not reported)."""
    focus: str | None


def open_notifications(client: AdbClient) -> ShadeState:
    method = "cmd_statusbar"
    result = commands.run(client, ["cmd", "statusbar", "expand-notifications"], timeout=15.0)
    if result.exit_code != 0:
        method = "swipe"
        size = parse_display_size(commands.text(client, ["wm", "size"])).effective
        if size is None:
            raise DeviceCommandError("neither cmd statusbar nor wm size answered")
        x = str(size.width // 2)
        commands.text(client, ["input", "swipe", x, "0", x, str(size.height * 2 // 3), "300"])
    window = commands.run(client, ["dumpsys", "window", "windows"], timeout=15.0)
    focus = parse_window_focus(commands.decode(window.stdout)).current_focus
    shade = None if focus is None else any(name in focus for name in SHADE_WINDOWS)
    return ShadeState(method, shade, focus)
