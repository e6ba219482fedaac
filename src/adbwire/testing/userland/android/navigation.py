"""What is on screen: a back stack of screen visits, moved by taps, keys, swipes and launches.

Each visit owns a copy of its screen's UI tree, so text typed into a field stays there while
the visit is on the stack (and shows up in the next `uiautomator dump`). Going "to" a screen
that is already on the stack returns to it, as finishing the activities above it would.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from adbwire.testing.scenario import Scenario, ScreenSpec, Selector, Transition
from adbwire.testing.userland.android.ui import UiNode, UiTree, parse_hierarchy

_ids = itertools.count(1)


def hex_id() -> str:
    """A 7-digit hex identity like the ones Android prints for its records (`e2fc827`)."""
    return f"{(next(_ids) * 0x9E3779B1 + 0x1F2E3D) & 0xFFFFFFF:07x}"


@dataclass
class Visit:
    screen: ScreenSpec
    tree: UiTree
    keyboard: bool
    task_id: int
    record_id: str
    window_id: str
    typed: dict[int, str] = field(default_factory=dict)  # id(node) -> text typed so far
    on_tap: Callable[[UiNode], bool] | None = None
    """A system window's own handling of a tap on a node (True: handled), e.g. the shade."""

    @property
    def package(self) -> str:
        return self.screen.package


class Navigator:
    def __init__(self, scenario: Scenario, on_show: Callable[[Visit], None]) -> None:
        self._scenario = scenario
        self._trees: dict[str, UiTree] = {}
        self._on_show = on_show
        self._tasks: dict[str, int] = {}
        self._task_ids = itertools.count(scenario.uptime_seconds % 40 + 6)
        self.stack: list[Visit] = []
        start = scenario.initial_screen or scenario.home_screen
        if scenario.home_screen is not None:
            self.stack.append(self._visit(scenario.home_screen))
        if start is not None and start != scenario.home_screen:
            self.stack.append(self._visit(start))

    # -- state -------------------------------------------------------------------------------
    @property
    def current(self) -> Visit | None:
        return self.stack[-1] if self.stack else None

    def task_id(self, package: str) -> int:
        if package not in self._tasks:
            self._tasks[package] = next(self._task_ids)
        return self._tasks[package]

    def tree(self, screen_id: str) -> UiTree:
        if screen_id not in self._trees:
            self._trees[screen_id] = parse_hierarchy(self._scenario.screens[screen_id].hierarchy)
        return self._trees[screen_id]

    def _visit(self, screen_id: str) -> Visit:
        screen = self._scenario.screens[screen_id]
        tree = self.tree(screen_id).copy()
        keyboard = screen.keyboard and tree.focused_field() is not None
        return Visit(screen, tree, keyboard, self.task_id(screen.package), hex_id(), hex_id())

    # -- moves -------------------------------------------------------------------------------
    def show(self, screen_id: str) -> Visit:
        for index, visit in enumerate(self.stack):
            if visit.screen.id == screen_id and index > 0:
                del self.stack[index + 1 :]
                self._on_show(visit)
                return visit
        if self.stack and self.stack[-1].screen.id == screen_id:
            return self.stack[-1]
        visit = self._visit(screen_id)
        self.stack.append(visit)
        self._on_show(visit)
        return visit

    def home(self) -> None:
        for visit in self.stack[1:]:
            visit.keyboard = False
        del self.stack[1:]
        if self.stack:
            self._on_show(self.stack[0])

    def back(self) -> None:
        visit = self.current
        if visit is None:
            return
        if visit.keyboard:
            visit.keyboard = False
            return
        if len(self.stack) > 1:
            self.stack.pop()
            self._on_show(self.stack[-1])

    def drop_package(self, package: str) -> None:
        """The package's activities are gone (force-stop, crash, uninstall, clear)."""
        home = self.stack[:1]
        self.stack = home + [v for v in self.stack[1:] if v.package != package]
        self._tasks.pop(package, None)
        if self.stack:
            self._on_show(self.stack[-1])

    def bring_to_front(self, package: str) -> bool:
        indexes = [i for i, v in enumerate(self.stack) if v.package == package and i > 0]
        if not indexes:
            return False
        moved = [self.stack[i] for i in indexes]
        self.stack = [v for i, v in enumerate(self.stack) if i not in indexes] + moved
        self._on_show(self.stack[-1])
        return True

    # -- input -------------------------------------------------------------------------------
    def _transition(self, match: Callable[[Transition], bool]) -> Transition | None:
        visit = self.current
        if visit is None:
            return None
        for transition in self._scenario.transitions:
            if transition.source in (visit.screen.id, "*") and match(transition):
                return transition
        return None

    def _tap_transition(self, node: UiNode) -> Transition | None:
        return self._transition(lambda t: t.tap is not None and _selects(t.tap, node))

    def _apply(self, transition: Transition) -> None:
        if transition.target == "back":
            if self.current is not None:
                self.current.keyboard = False
            self.back()
        elif transition.target == "home":
            self.home()
        else:
            self.show(transition.target)

    def tap(self, x: int, y: int) -> None:
        visit = self.current
        if visit is None:
            return
        chain = visit.tree.path_at(x, y)
        if visit.on_tap is not None and any(visit.on_tap(node) for node in reversed(chain)):
            return
        for node in reversed(chain):
            found = self._tap_transition(node)
            if found is not None:
                self._apply(found)
                return
        box = next((n for n in reversed(chain) if n.is_text_field), None)
        if box is not None and box.flag("enabled"):
            visit.tree.focus(box)
            visit.keyboard = True

    def key(self, keycode: str) -> None:
        found = self._transition(lambda t: t.key == keycode)
        if found is not None and not (keycode == "KEYCODE_BACK" and self._keyboard_up()):
            self._apply(found)
        elif keycode == "KEYCODE_BACK":
            self.back()
        elif keycode == "KEYCODE_HOME":
            self.home()
        elif keycode == "KEYCODE_DEL":
            self._edit(lambda text: text[:-1])
        elif keycode == "KEYCODE_ESCAPE" and self.current is not None:
            self.current.keyboard = False

    def swipe(self, direction: str) -> None:
        found = self._transition(lambda t: t.swipe == direction)
        if found is not None:
            self._apply(found)

    def type_text(self, text: str) -> None:
        self._edit(lambda old: old + text)

    def _keyboard_up(self) -> bool:
        return self.current is not None and self.current.keyboard

    def _edit(self, change: Callable[[str], str]) -> None:
        visit = self.current
        box = visit.tree.focused_field() if visit is not None else None
        if visit is None or box is None:
            return
        old = visit.typed.get(id(box))
        if old is None:
            hint, original = box.get("hint"), box.get("text")
            hidden = box.flag("password") or (hint and original == hint)
            old = "" if hidden else original
        new = change(old)
        visit.typed[id(box)] = new
        shown = "\u2022" * len(new) if box.flag("password") else new
        box.attrs["text"] = shown if new or not box.get("hint") else box.get("hint")


def _selects(selector: Selector, node: UiNode) -> bool:
    checks = (
        (selector.resource_id, "resource-id"),
        (selector.text, "text"),
        (selector.content_desc, "content-desc"),
        (selector.class_name, "class"),
    )
    return all(value is None or node.get(attr) == value for value, attr in checks)
