"""Everything needed to understand the screen at once, each part failing on its own.

``debug_context`` gathers the focused window, the UI tree, the recent log of the app in
front (or of a named package) and, on request, a screenshot. A section that cannot be read
reports its error under its own name and the other sections still come back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from adbwire.device import logs
from adbwire.device.parsers import LogEntry, WindowFocus
from adbwire.device.screen.encode import Budget
from adbwire.device.screen.history import ScreenHistory
from adbwire.device.screen.screenshot import Screenshot, take_screenshot
from adbwire.device.ui.snapshot import UiSnapshot, focused_window, read_ui
from adbwire.errors import AdbwireError, OperationCancelledError
from adbwire.wire.client import AdbClient

log = logging.getLogger(__name__)
T = TypeVar("T")
MAX_LOG_LINES = 500
# System windows whose package says nothing about the app being debugged.
_SYSTEM_PACKAGES = frozenset({"android", "com.android.systemui"})


@dataclass
class DebugContext:
    focus: WindowFocus | None = None
    ui: UiSnapshot | None = None
    log_package: str | None = None
    log_entries: list[LogEntry] | None = None
    log_note: str | None = None
    screenshot: Screenshot | None = None
    errors: dict[str, str] = field(default_factory=dict)
    """Section name (focus, ui, logcat, screenshot) -> what went wrong."""


def debug_context(
    client: AdbClient,
    *,
    package: str | None = None,
    log_lines: int = 50,
    min_level: str = "V",
    screenshot: bool = False,
    budget: Budget | None = None,
    history: ScreenHistory | None = None,
) -> DebugContext:
    """Focus, UI tree, recent log (filtered to ``package`` or the focused app) and an
    optional screenshot; see the module docstring."""
    context = DebugContext()
    context.focus = _section(context, "focus", lambda: _focus(client))
    context.ui = _section(context, "ui", lambda: read_ui(client))
    if context.ui is not None and context.focus is None:
        context.focus = context.ui.focus
    if log_lines > 0:
        focused = context.focus.package if context.focus else None
        wanted = package or (focused if focused not in _SYSTEM_PACKAGES else None)
        context.log_package = wanted
        count = min(log_lines, MAX_LOG_LINES)
        query = logs.LogQuery(package=wanted, min_level=min_level)
        result = _section(context, "logcat", lambda: logs.read_logcat(client, query))
        if result is not None:
            context.log_entries = result.entries[-count:]
            context.log_note = result.note
    if screenshot:
        context.screenshot = _section(
            context,
            "screenshot",
            lambda: take_screenshot(client, budget=budget, history=history),
        )
    return context


def _focus(client: AdbClient) -> WindowFocus:
    found = focused_window(client)
    if found is None:
        raise AdbwireError("dumpsys window did not name a focused window")
    return found


def _section(context: DebugContext, name: str, read: Callable[[], T]) -> T | None:
    try:
        return read()
    except OperationCancelledError:
        raise
    except AdbwireError as exc:
        context.errors[name] = f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # a bug in one section must not hide the others
        log.exception("debug_context section %s failed", name)
        context.errors[name] = f"internal error ({type(exc).__name__}); see the server log"
    return None
