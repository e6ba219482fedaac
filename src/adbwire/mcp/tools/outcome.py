"""Action outcome: the one result shape every action tool shares.

After an action the agent learns whether the screen changed, which window has the focus,
whether the soft keyboard is up, and the app's warnings and errors logged meanwhile (at
most ``LOG_SLICE`` lines, ``log_more`` counting the rest). A crash or ANR of an app the
action involved is not a result but the call's error: ``app_crashed`` /
``app_not_responding``, with the root cause, the top of the stack and this outcome in its
details. The device side is ``adbwire.device.ui.outcome`` (``ActionWatch``).

How an action tool uses it::

    class Tapped(ActionOutcome):                 # the tool's own fields on top
        x: int
        y: int

    async def tap(call, args):
        outcome = await watched(call, device_input.tap, call.client, x, y)
        data = Tapped(x=x, y=y, **outcome_fields(outcome))
        return ToolOutput(f"tapped ({x}, {y}){said(outcome)}", data)

``watched`` reads the screen and the log position, runs the action in a worker thread,
waits briefly for the screen to change (``settle``), reads the log once, and raises the
``ToolFailure`` when something crashed. ``run_watched(call, Watch(...), action, ...)``
also returns the action's own result; ``Watch`` takes the screen already read
(``before=``), apps whose log and crashes count even before they have the focus
(``packages=``, e.g. the app being launched) and the settle time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from pydantic import Field

from adbwire.device.parsers import Anr, Crash, LogEntry
from adbwire.device.ui.observe import DEFAULT_SETTLE
from adbwire.device.ui.outcome import ActionWatch, Outcome
from adbwire.device.ui.snapshot import UiSnapshot
from adbwire.mcp.results.envelope import ErrorCode, ToolFailure
from adbwire.mcp.results.text_lines import one_line
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.tools.common import Result

P = ParamSpec("P")
T = TypeVar("T")
MAX_LINE = 300


class ActionOutcome(Result):
    """What every action tool reports besides its own fields."""

    screen_changed: bool | None = None
    window: str | None = Field(default=None, description="focused window after")
    keyboard_shown: bool | None = None
    log: list[str] | None = Field(default=None, description="app's W/E lines meanwhile")
    log_more: int | None = None
    note: str | None = None


def log_line(entry: LogEntry) -> str:
    line = f"{entry.timestamp or ''} {entry.pid} {entry.level} {entry.tag}: {entry.message}"
    return one_line(line.strip()[:MAX_LINE])  # debug_context sends these a line each


def outcome_fields(outcome: Outcome, note: str | None = None) -> dict[str, Any]:
    """The ``ActionOutcome`` fields of an outcome (``note`` joins the outcome's own)."""
    notes = "; ".join(n for n in (note, outcome.note) if n) or None
    return {
        "screen_changed": outcome.screen_changed,
        "window": outcome.window,
        "keyboard_shown": outcome.keyboard_shown,
        "log": [log_line(entry) for entry in outcome.log] or None,
        "log_more": outcome.log_more or None,
        "note": notes,
    }


def said(outcome: Outcome) -> str:
    """A summary's tail: ``; screen changed; window pkg/.Main``."""
    changed = {True: "screen changed", False: "screen unchanged", None: "screen unreadable"}
    text = f"; {changed[outcome.screen_changed]}"
    return text + (f"; window {outcome.window}" if outcome.window else "")


def problem_failure(outcome: Outcome) -> ToolFailure | None:
    """The call's error when an involved app crashed or stopped responding meanwhile."""
    event = outcome.problem
    if event is None:
        return None
    details: dict[str, Any] = problem_details(event)
    details["outcome"] = {k: v for k, v in outcome_fields(outcome).items() if v not in (None, [])}
    if isinstance(event, Anr):
        message = f"{event.process} is not responding: {event.reason or 'no reason given'}"
        return ToolFailure(ErrorCode.APP_NOT_RESPONDING, message[:400], details)
    return ToolFailure(
        ErrorCode.APP_CRASHED, f"{event.process} crashed: {details['root_cause']}", details
    )


def problem_details(event: Crash | Anr) -> dict[str, Any]:
    """A crash's or ANR's facts for an error's details: kind, process, pid, time, the root
    cause and the top of the stack."""
    if isinstance(event, Anr):
        return {
            "kind": "anr",
            "process": event.process,
            "pid": event.pid,
            "time": event.timestamp,
            "root_cause": (event.reason or "")[:MAX_LINE],
        }
    cause = f"{event.root_cause_type}: {event.root_cause_message}".strip(": ")
    return {
        "kind": event.kind,
        "process": event.process,
        "pid": event.pid,
        "time": event.timestamp,
        "root_cause": cause[:MAX_LINE],
        "stack": [line.strip()[:MAX_LINE] for line in event.stack[:8]],
    }


@dataclass(frozen=True)
class Watch:
    """How to watch an action: the screen already read (``before``), apps to watch beyond
    the focused one (``packages``), and how long an unchanged screen is waited on."""

    before: UiSnapshot | None = None
    packages: tuple[str, ...] = ()
    settle: float = DEFAULT_SETTLE


async def watched(
    call: ToolCall,
    action: Callable[P, object],
    *args: P.args,
    **kwargs: P.kwargs,
) -> Outcome:
    """Run ``action(*args, **kwargs)`` between ``ActionWatch.begin`` and ``finish``; raise
    the ``ToolFailure`` of a crash or ANR. See the module docstring."""
    _, outcome = await run_watched(call, Watch(), action, *args, **kwargs)
    return outcome


async def run_watched(
    call: ToolCall,
    how: Watch,
    action: Callable[P, T],
    *args: P.args,
    **kwargs: P.kwargs,
) -> tuple[T, Outcome]:
    """``watched`` as ``how`` says, returning the action's own result too."""
    watch = await call.run(ActionWatch.begin, call.client, before=how.before, packages=how.packages)
    result = await call.run(action, *args, **kwargs)
    outcome = await call.run(watch.finish, settle=how.settle)
    failure = problem_failure(outcome)
    if failure is not None:
        raise failure
    return result, outcome
