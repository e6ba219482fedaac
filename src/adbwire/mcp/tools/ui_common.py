"""What the UI and screen tool families share: the element selector arguments, the memory
of what each device last showed, and the turning of UI refusals into answers.

(Kept apart from ``ui.py`` and ``screen.py`` so each stays one concern; this module has no
tools of its own.)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Literal, ParamSpec, TypeVar

from pydantic import AfterValidator, Field

from adbwire.device.parsers import UiHierarchy
from adbwire.device.screen.history import ScreenHistory
from adbwire.device.ui import (
    AmbiguousMatchError,
    NoMatchError,
    Selector,
    UiNotIdleError,
    element_line,
)
from adbwire.device.ui import actions as ops
from adbwire.device.ui.select import parse_query
from adbwire.mcp.registry import ToolOutput
from adbwire.mcp.results.envelope import ErrorCode, NextAction, ToolFailure
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.tools.common import DeviceArgs
from adbwire.mcp.tools.outcome import ActionOutcome, outcome_fields, problem_failure, said

MAX_FOUND = 20
P = ParamSpec("P")
T = TypeVar("T")
N = TypeVar("N", int, float)
_ELEMENT_ID = re.compile(r"^e\d{1,6}$")


def _element_id(value: str) -> str:
    if not _ELEMENT_ID.match(value):
        raise ValueError(f"expected an element id such as 'e12', not {value[:40]!r}")
    return value


def in_range(low: float, high: float) -> AfterValidator:
    """A range check the server enforces without spelling it out in the catalogue."""

    def check(value: N) -> N:
        if not low <= value <= high:
            raise ValueError(f"must be within {low:g}..{high:g}")
        return value

    return AfterValidator(check)


ElementId = Annotated[str, AfterValidator(_element_id), Field(max_length=8)]
Query = Annotated[str, Field(min_length=1, max_length=500)]


class Target(DeviceArgs):
    """Which element: `query` is matched on id/test tag, then desc, text, hint (a prefix such
    as ``text:Save`` picks the field; ``e12`` is an element id from a recent read); `within`
    limits the search to an element's subtree."""

    query: Query
    match: Literal["contains", "regex"] | None = None
    within: ElementId | None = None

    def selector(self) -> Selector:
        return parse_query(self.query, self.match or "exact", self.within)


def memory(call: ToolCall) -> ScreenHistory:
    """What this server last showed of each device (trees, screenshots)."""
    found = call.app.services.setdefault("screen_history", ScreenHistory())
    assert isinstance(found, ScreenHistory)
    return found


def to_device_point(call: ToolCall, x: float, y: float, space: str | None) -> tuple[int, int]:
    """A point in device pixels; `space` "screenshot" maps it from the device's last
    screenshot (which may have been scaled down)."""
    if space in (None, "device"):
        return round(x), round(y)
    mapping = memory(call).mapping(call.client.serial)
    if mapping is None:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENTS, "no screenshot of this device yet: take one first"
        )
    return mapping.to_device(x, y)


def previous_tree(call: ToolCall) -> UiHierarchy | None:
    return memory(call).tree(call.client.serial)


def remember(call: ToolCall, hierarchy: UiHierarchy | None) -> None:
    if hierarchy is not None:
        memory(call).set_tree(call.client.serial, hierarchy)


async def run_ui(call: ToolCall, func: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run a device UI operation, turning its refusals into answers an agent can act on."""
    try:
        return await call.run(func, *args, **kwargs)
    except NoMatchError as exc:
        details: dict[str, object] = {"selector": exc.selector}
        if exc.suggestions:
            details["suggestions"] = list(exc.suggestions)
        raise ToolFailure(ErrorCode.NOT_FOUND, str(exc), details) from None
    except AmbiguousMatchError as exc:
        candidates = [element_line(e) for e in exc.candidates[:10]]
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENTS, str(exc), {"candidates": candidates}
        ) from None
    except UiNotIdleError as exc:
        raise ToolFailure(
            ErrorCode.COMMAND_FAILED,
            str(exc),
            {"hint": "call ui_tree with disable_animations=true"},
            NextAction.RETRY,
            True,
        ) from None


class Acted(ActionOutcome):
    element: str
    target: str


def acted(result: ops.ActionResult, verb: str) -> ToolOutput:
    """The result of a touch on an element: the element, its touch target and the outcome
    (a crash or ANR meanwhile is raised as the call's error)."""
    resolved, outcome = result.resolved, result.outcome
    failure = problem_failure(outcome)
    if failure is not None:
        raise failure
    data = Acted(
        element=resolved.element.id,
        target=element_line(resolved.target),
        **outcome_fields(outcome, note=result.note),
    )
    x, y = resolved.point
    return ToolOutput(f"{verb} {resolved.target.id} at ({x}, {y}){said(outcome)}", data)
