"""Acting on the screen by what is on it, and saying truthfully what happened.

- ``tap_element`` / ``long_press_element``: exactly one match (or an error listing the
  candidates, with nothing touched); the touch lands on the nearest clickable ancestor;
  afterwards the action's ``Outcome`` (``adbwire.device.ui.outcome``: screen changed,
  focus, keyboard, a crash or ANR, the app's log meanwhile).
- ``type_text``: optionally into a field found the same way (tapped first), typed
  literally, then verified by reading the field back (``verified`` false is not an error:
  password fields never show their text).
- ``scroll_to_element``: swipes a scrollable container until the element shows, a bounded
  number of times, and stops early when the list no longer moves.
- ``wait_for_element`` / ``assert_element`` (``adbwire.device.ui.checks``),
  ``debug_context`` (``...ui.debug``) and ``accessibility_audit`` (``...ui.audit``) are
  re-exported here.

Element ids (``e12``) in a selector must come from the screen as it is now: pass the tree
the caller last read as ``previous`` and an id whose element has moved or gone is refused.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from adbwire.device import input as device_input
from adbwire.device.parsers import Bounds, UiElement, UiHierarchy
from adbwire.device.ui.audit import AuditReport, accessibility_audit
from adbwire.device.ui.checks import AssertResult, WaitResult, assert_element, wait_for_element
from adbwire.device.ui.debug import DebugContext, debug_context
from adbwire.device.ui.observe import DEFAULT_SETTLE, observe_after
from adbwire.device.ui.outcome import ActionWatch, Outcome
from adbwire.device.ui.select import Resolved, Selector, check_fresh, find, identity, resolve_one
from adbwire.device.ui.snapshot import UiSnapshot, read_ui
from adbwire.errors import UsageError
from adbwire.wire.client import AdbClient

__all__ = [
    "ActionResult",
    "AssertResult",
    "AuditReport",
    "DebugContext",
    "ScrollResult",
    "TypeResult",
    "WaitResult",
    "accessibility_audit",
    "assert_element",
    "debug_context",
    "long_press_element",
    "scroll_to_element",
    "tap_element",
    "type_text",
    "wait_for_element",
]

Direction = Literal["up", "down", "left", "right"]
LONG_PRESS_MS = 800
MAX_SWIPES = 30
SCROLL_PAUSE = 0.3
EDIT_CLASSES = ("EditText", "AutoCompleteTextView")


@dataclass(frozen=True)
class ActionResult:
    resolved: Resolved
    outcome: Outcome
    before: UiSnapshot

    @property
    def note(self) -> str | None:
        """Why a touch may have had no effect (beyond the outcome's own note)."""
        if not self.resolved.target.enabled:
            return f"{self.resolved.target.id} is disabled: it may ignore touches"
        return None


def _target(
    client: AdbClient, selector: Selector, previous: UiHierarchy | None, long_press: bool
) -> tuple[UiSnapshot, Resolved]:
    before = read_ui(client)
    check_fresh(previous, before.hierarchy, [selector.element, selector.within])
    return before, resolve_one(before.hierarchy, selector, long_press=long_press)


def tap_element(
    client: AdbClient,
    selector: Selector,
    *,
    previous: UiHierarchy | None = None,
    settle: float = DEFAULT_SETTLE,
) -> ActionResult:
    """Tap the one element the selector names (its nearest clickable ancestor)."""
    before, resolved = _target(client, selector, previous, long_press=False)
    watch = ActionWatch.begin(client, before=before)
    device_input.tap(client, *resolved.point)
    return ActionResult(resolved, watch.finish(settle=settle), before)


def long_press_element(
    client: AdbClient,
    selector: Selector,
    *,
    previous: UiHierarchy | None = None,
    duration_ms: int = LONG_PRESS_MS,
    settle: float = DEFAULT_SETTLE,
) -> ActionResult:
    """Long-press the one element the selector names (nearest long-clickable ancestor)."""
    before, resolved = _target(client, selector, previous, long_press=True)
    watch = ActionWatch.begin(client, before=before)
    device_input.long_press(client, *resolved.point, duration_ms=duration_ms)
    return ActionResult(resolved, watch.finish(settle=settle), before)


@dataclass(frozen=True)
class TypeResult:
    typed: device_input.Typed
    field: UiElement | None
    """The text field as read after typing (None when no field could be found)."""
    verified: bool
    note: str | None
    tapped: Resolved | None
    outcome: Outcome


def is_text_field(element: UiElement) -> bool:
    return element.class_name.endswith(EDIT_CLASSES)


def type_text(
    client: AdbClient,
    text: str,
    *,
    selector: Selector | None = None,
    clear: bool = False,
    previous: UiHierarchy | None = None,
    settle: float = DEFAULT_SETTLE,
) -> TypeResult:
    """Type ``text`` literally into the field named by ``selector`` (tapped first) or into
    the focused field, optionally clearing it first, and read it back."""
    device_input.check_typeable(text)  # refuse before anything touches the device
    tapped: Resolved | None = None
    field: UiElement | None = None
    start = read_ui(client)
    watch = ActionWatch.begin(client, before=start)
    if selector is not None:
        check_fresh(previous, start.hierarchy, [selector.element, selector.within])
        before, tapped = start, resolve_one(start.hierarchy, selector)
        device_input.tap(client, *tapped.point)
        seen = observe_after(client, before, settle=settle).after
        field = _find_field(seen.hierarchy if seen else before.hierarchy, tapped.element)
    elif clear:
        field = _find_field(start.hierarchy, None)
    before_text = None if field is None else _shown_text(field)
    if clear and field is not None:
        device_input.press_keys(client, "move_end", *["delete"] * len(before_text or ""))
        before_text = ""
    typed = device_input.type_text(client, text)
    outcome = watch.finish(settle=0)
    after = outcome.after.hierarchy if outcome.after else read_ui(client).hierarchy
    found = _find_field(after, field or (tapped.element if tapped else None))
    verified, note = _verify(found, text, before_text)
    return TypeResult(typed, found, verified, note, tapped, outcome)


def _shown_text(field: UiElement) -> str:
    """The field's own text (an empty field shows its hint as text on some versions)."""
    return "" if field.hint and field.text == field.hint else field.text


def _find_field(hierarchy: UiHierarchy, like: UiElement | None) -> UiElement | None:
    """The text field that is ``like`` (same place and id), else the focused text field."""
    if like is not None:
        wanted = identity(like)[:3]
        same = [e for e in hierarchy.elements if identity(e)[:3] == wanted and is_text_field(e)]
        if same:
            return same[0]
    focused = [e for e in hierarchy.elements if e.focused and is_text_field(e)]
    return focused[0] if focused else None


def _verify(field: UiElement | None, text: str, before: str | None) -> tuple[bool, str | None]:
    """Verified only when the field now shows what it showed before plus the typed text
    (Enter is a newline in a multi-line field and nothing in a single-line one)."""
    if field is None:
        return False, "no focused text field was found afterwards: the text may have gone nowhere"
    if field.password:
        return False, f"{field.id} is a password field: its text is hidden, so it cannot be checked"
    shown = _shown_text(field)
    forms = {text, text.replace("\n", "")}
    if before is not None:
        if any(shown == before + form for form in forms):
            return True, None
        return False, (
            f"{field.id} shows {shown[:80]!r}, not {(before + text)[:80]!r} "
            "(the cursor may not have been at the end, or some characters were lost)"
        )
    pieces = [piece for piece in text.split("\n") if piece]
    if all(piece in shown for piece in pieces):
        return True, "the field's text before typing was not read, so only containment was checked"
    return False, f"{field.id} shows {shown[:80]!r}, which does not contain the typed text"


@dataclass(frozen=True)
class ScrollResult:
    found: bool
    element: UiElement | None
    swipes: int
    reason: str | None
    snapshot: UiSnapshot
    outcome: Outcome | None = None
    """None when nothing was swiped."""


def scroll_to_element(
    client: AdbClient,
    selector: Selector,
    *,
    direction: Direction = "down",
    container: str | None = None,
    max_swipes: int = 8,
    previous: UiHierarchy | None = None,
) -> ScrollResult:
    """Swipe until the element is on screen. ``direction`` is where the content should move
    into view from ("down" reveals what is below, as a finger swiping up does)."""
    if not 0 <= max_swipes <= MAX_SWIPES:
        raise UsageError(f"max_swipes must be within 0..{MAX_SWIPES}")
    snapshot = read_ui(client)
    check_fresh(previous, snapshot.hierarchy, [selector.element, selector.within, container])
    box = _container(snapshot.hierarchy, container, None)
    watch = ActionWatch.begin(client, before=snapshot)
    swipes = 0

    def done(found: UiElement | None, reason: str | None, seen: UiSnapshot) -> ScrollResult:
        outcome = watch.finish(settle=0) if swipes else None
        return ScrollResult(found is not None, found, swipes, reason, seen, outcome)

    while True:
        visible = [e for e in find(snapshot.hierarchy, selector).elements if not e.bounds.is_empty]
        if visible:
            return done(visible[0], None, snapshot)
        if box is None:
            return done(None, "nothing scrollable on screen", snapshot)
        if swipes >= max_swipes:
            return done(None, f"not found after {swipes} swipes", snapshot)
        device_input.swipe(client, *_swipe_line(box.bounds, direction), duration_ms=400)
        swipes += 1
        time.sleep(SCROLL_PAUSE)
        moved = read_ui(client)
        if moved.signature == snapshot.signature:
            reason = f"the content stopped moving after {swipes} swipes (its end): not found"
            return done(None, reason, moved)
        snapshot = moved
        box = _container(snapshot.hierarchy, None, box)


def _container(
    hierarchy: UiHierarchy, element_id: str | None, like: UiElement | None
) -> UiElement | None:
    if element_id is not None:
        found = hierarchy.get(element_id)
        if found is None or not found.scrollable:
            raise UsageError(f"{element_id} is not a scrollable element on this screen")
        return found
    scrollable = [e for e in hierarchy.elements if e.scrollable and not e.bounds.is_empty]
    if like is not None:
        same = [e for e in scrollable if identity(e)[:3] == identity(like)[:3]]
        if same:
            return same[0]
    return max(scrollable, key=lambda e: e.bounds.width * e.bounds.height, default=None)


def _swipe_line(box: Bounds, direction: Direction) -> tuple[int, int, int, int]:
    """A finger stroke inside ``box`` that brings content from ``direction`` into view."""
    cx, cy = box.center
    near_top, near_bottom = box.top + box.height // 4, box.bottom - box.height // 4
    near_left, near_right = box.left + box.width // 4, box.right - box.width // 4
    return {
        "down": (cx, near_bottom, cx, near_top),
        "up": (cx, near_top, cx, near_bottom),
        "right": (near_right, cy, near_left, cy),
        "left": (near_left, cy, near_right, cy),
    }[direction]
