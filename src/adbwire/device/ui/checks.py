"""Waiting for an element to appear or go, and checking an element with the evidence.

Both read only the UI tree (no keyboard or focus reads), so they poll quickly; every wait
is bounded by its timeout. A read that fails while waiting (the screen changing under the
dump) counts as "not yet" and is retried; when every read failed, the last error is given.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from adbwire.device.parsers import UiElement, UiHierarchy, parse_ui_xml
from adbwire.device.ui.compact import element_line, merged_labels
from adbwire.device.ui.dump import dump_ui
from adbwire.device.ui.select import Selector, find, state_element, suggest, tap_target
from adbwire.errors import AdbwireError, DisconnectedError, OperationCancelledError, UsageError
from adbwire.wire.client import AdbClient

MAX_WAIT = 120.0
MIN_POLL = 0.2
Expectation = Literal[
    "visible",
    "hidden",
    "enabled",
    "disabled",
    "checked",
    "unchecked",
    "text_equals",
    "text_contains",
]
_FLAG_CHECKS = {
    "enabled": ("enabled", True),
    "disabled": ("enabled", False),
    "checked": ("checked", True),
    "unchecked": ("checked", False),
}


def read_tree(client: AdbClient) -> UiHierarchy:
    return parse_ui_xml(dump_ui(client).xml)


def visible(hierarchy: UiHierarchy, selector: Selector) -> list[UiElement]:
    return [e for e in find(hierarchy, selector).elements if not e.bounds.is_empty]


@dataclass(frozen=True)
class WaitResult:
    met: bool
    seconds: float
    reads: int
    element: UiElement | None
    """The first match when waiting for it to appear."""
    error: str | None = None
    hierarchy: UiHierarchy | None = None
    suggestions: tuple[str, ...] = ()
    """The closest labels when the element never appeared."""


def wait_for_element(
    client: AdbClient,
    selector: Selector,
    *,
    appear: bool = True,
    timeout: float = 10.0,
    poll: float = 0.5,
) -> WaitResult:
    """Poll the screen until the element is visible (``appear``) or gone, or time runs out."""
    if not 0 <= timeout <= MAX_WAIT:
        raise UsageError(f"timeout must be within 0..{MAX_WAIT:g} seconds")
    poll = max(MIN_POLL, poll)
    started = time.monotonic()
    reads, error, hierarchy = 0, None, None
    while True:
        try:
            hierarchy = read_tree(client)
            error = None
        except (OperationCancelledError, DisconnectedError):
            raise  # a closed link never comes back: polling on would only wait out the time
        except AdbwireError as exc:
            error = str(exc)
        reads += 1
        elapsed = round(time.monotonic() - started, 2)
        if hierarchy is not None and error is None:
            found = visible(hierarchy, selector)
            if bool(found) == appear:
                first = found[0] if found else None
                return WaitResult(True, elapsed, reads, first, None, hierarchy)
        if elapsed + poll > timeout:
            close = tuple(suggest(hierarchy, selector)) if hierarchy and appear else ()
            return WaitResult(False, elapsed, reads, None, error, hierarchy, close)
        time.sleep(poll)


@dataclass(frozen=True)
class AssertResult:
    passed: bool
    expectation: str
    evidence: str
    """What was found on screen, in the compact one-line form."""
    matches: int
    actual: str | None = None
    """The text compared (text checks), or the flag's value."""


def check(
    hierarchy: UiHierarchy, selector: Selector, expect: Expectation, value: str | None = None
) -> AssertResult:
    """Evaluate an expectation against one reading of the screen (pure)."""
    if expect in ("text_equals", "text_contains") and value is None:
        raise UsageError(f"{expect} needs a value to compare with")
    found = visible(hierarchy, selector)
    what = f"{expect}{f' {value!r}' if value is not None else ''}"
    if expect in ("visible", "hidden"):
        evidence = (
            element_line(found[0]) if found else f"nothing visible matches {selector.describe()}"
        )
        if len(found) > 1:
            evidence = f"{len(found)} matches, first: {evidence}"
        return AssertResult(bool(found) == (expect == "visible"), what, evidence, len(found))
    # one element model: a label and the row it labels are one element; flags are read
    # from the checkable/clickable element a user would operate
    flags = expect in _FLAG_CHECKS
    resolved: dict[str, UiElement] = {}
    for match in found:
        subject = state_element(hierarchy, match) if flags else match
        resolved.setdefault(tap_target(hierarchy, subject).id, subject)
    subjects = list(resolved.values())
    if len(subjects) != 1:
        if subjects:
            evidence = f"{len(subjects)} elements match; narrow the selector: " + "; ".join(
                element_line(e) for e in subjects[:5]
            )
        else:
            close = suggest(hierarchy, selector)
            evidence = f"nothing visible matches {selector.describe()}"
            evidence += f"; closest labels: {', '.join(map(repr, close))}" if close else ""
        return AssertResult(False, what, evidence, len(subjects))
    element = subjects[0]
    label = found[0] if found[0] is not element else None
    evidence = element_line(element, merged_labels(hierarchy).get(element.id))
    if label is not None:
        evidence += f" (for {element_line(label)})"
    if flags:
        attribute, wanted = _FLAG_CHECKS[expect]
        actual = bool(getattr(element, attribute))
        return AssertResult(actual == wanted, what, evidence, 1, str(actual).lower())
    actual_text = element.text or element.content_desc
    assert value is not None
    if expect == "text_equals":
        passed = actual_text.strip() == value.strip()
    else:
        passed = value.casefold() in actual_text.casefold()
    return AssertResult(passed, what, evidence, 1, actual_text)


def assert_element(
    client: AdbClient, selector: Selector, expect: Expectation, value: str | None = None
) -> AssertResult:
    """Read the screen once and check the expectation; a failed check is a result, not an
    error."""
    return check(read_tree(client), selector, expect, value)
