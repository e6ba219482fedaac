"""Posted notifications and the shade that shows them.

They start from the scenario's ``[[notifications]]``. ``cmd statusbar expand-notifications``
puts the shade on top of the screen stack as a system window (``NotificationShade``) whose UI
tree lists each notification as a clickable row; tapping a row opens the screen the scenario
names for it (auto-cancel: the notification goes away) and closes the shade; Back or
``cmd statusbar collapse`` closes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from adbwire.testing.scenario import NotificationSpec, Scenario, ScreenSpec
from adbwire.testing.userland.android.navigation import Navigator, Visit, hex_id
from adbwire.testing.userland.android.ui import UiNode, UiTree, serialize

SHADE_COMPONENT = "android/NotificationShade"
SHADE_PACKAGE = "com.android.systemui"
ROW_HEIGHT = 220
TOP = 260


@dataclass
class Posted:
    spec: NotificationSpec
    posted_ms: int
    """Wall-clock epoch milliseconds when it was posted."""
    record_id: str = field(default_factory=hex_id)

    @property
    def key(self) -> str:
        spec = self.spec
        return f"0|{spec.package}|{spec.id}|{spec.tag or 'null'}|{spec.uid}"


class NotificationCenter:
    def __init__(self, scenario: Scenario, now_ms: int) -> None:
        self.posted = [
            Posted(spec, now_ms - spec.minutes_ago * 60_000) for spec in scenario.notifications
        ]

    def cancel(self, key: str) -> Posted | None:
        for index, posted in enumerate(self.posted):
            if posted.key == key:
                return self.posted.pop(index)
        return None


def shade_open(nav: Navigator) -> bool:
    current = nav.current
    return current is not None and current.screen.component == SHADE_COMPONENT


def open_shade(nav: Navigator, center: NotificationCenter, width: int, height: int) -> None:
    if shade_open(nav):
        nav.stack.pop()
    screen = ScreenSpec("notification_shade", SHADE_COMPONENT, _xml(center, width, height))
    tree = _tree(center, width, height)
    visit = Visit(screen, tree, False, 1, hex_id(), hex_id())
    visit.on_tap = lambda node: _tap(nav, center, node)
    nav.stack.append(visit)


def close_shade(nav: Navigator) -> None:
    if shade_open(nav):
        nav.stack.pop()


def _tap(nav: Navigator, center: NotificationCenter, node: UiNode) -> bool:
    """A row: cancel it, close the shade and open its screen. True when handled."""
    key = node.get("content-desc").removeprefix("notification ")
    if not node.get("resource-id").endswith(":id/expandableNotificationRow"):
        return False
    posted = center.cancel(key)
    close_shade(nav)
    if posted is not None and posted.spec.screen is not None:
        nav.show(posted.spec.screen)
    return True


def _rows(center: NotificationCenter, width: int) -> list[UiNode]:
    rows = []
    for index, posted in enumerate(center.posted):
        top = TOP + index * ROW_HEIGHT
        bounds = f"[32,{top}][{width - 32},{top + ROW_HEIGHT - 16}]"
        texts = [
            _node("android.widget.TextView", "android:id/title", posted.spec.title, bounds),
            _node("android.widget.TextView", "android:id/text", posted.spec.text, bounds),
        ]
        texts[1].attrs["index"] = "1"
        row = _node(
            "android.widget.FrameLayout",
            f"{SHADE_PACKAGE}:id/expandableNotificationRow",
            "",
            bounds,
            clickable=True,
            desc=f"notification {posted.key}",
        )
        row.attrs["index"] = str(index)
        row.children = texts
        rows.append(row)
    return rows


def _tree(center: NotificationCenter, width: int, height: int) -> UiTree:
    root = _node("android.widget.FrameLayout", f"{SHADE_PACKAGE}:id/notification_panel", "",
                 f"[0,0][{width},{height}]")  # fmt: skip
    root.children = _rows(center, width)
    return UiTree("0", [root])


def _xml(center: NotificationCenter, width: int, height: int) -> str:
    return serialize(_tree(center, width, height))


def _node(
    class_name: str, resource_id: str, text: str, bounds: str, *, clickable: bool = False,
    desc: str = "",
) -> UiNode:  # fmt: skip
    flag = "true" if clickable else "false"
    return UiNode(
        {
            "index": "0",
            "text": text,
            "resource-id": resource_id,
            "class": class_name,
            "package": SHADE_PACKAGE,
            "content-desc": desc,
            "checkable": "false",
            "checked": "false",
            "clickable": flag,
            "enabled": "true",
            "focusable": flag,
            "focused": "false",
            "scrollable": "false",
            "long-clickable": "false",
            "password": "false",
            "selected": "false",
            "bounds": bounds,
        }
    )
