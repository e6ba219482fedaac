"""Action outcome: what an action did, read back from the device.

Every action tool answers the same questions afterwards: did the screen change, which
window has the focus, is the soft keyboard up, did an app crash or stop responding while
it ran, and what did the app log (warnings and errors) meanwhile. How to use it::

    watch = ActionWatch.begin(client)          # reads the screen and the device clock
    device_input.tap(client, x, y)             # the action itself
    outcome = watch.finish()                   # screen, focus, keyboard, crash/ANR, log

``begin`` takes the screen already read (``before=``) so an action that resolved an
element first does not read it twice, and ``packages=`` for apps whose log matters beyond
the focused one (the app being launched). ``finish`` waits for the screen to change for at
most ``settle`` seconds (short: an unchanged screen costs one or two reads), then reads the
log once. ``Outcome.problem`` is the crash or ANR logged since ``begin`` (preferring the
watched apps'), which the MCP layer (``mcp/tools/outcome.py``) reports as the call's error
(``app_crashed`` / ``app_not_responding``) with the rest of the outcome in its details.

The device clock has one-second resolution: crashes already logged in the second of
``begin`` are remembered there and never reported as the action's, but the log slice can
hold lines of that second from before the action.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from adbwire.device import logs
from adbwire.device.parsers import Anr, Crash, LogEntry, WindowFocus
from adbwire.device.parsers.crashes import belongs_to
from adbwire.device.ui.observe import DEFAULT_SETTLE, Observation, observe_after
from adbwire.device.ui.snapshot import UiSnapshot, read_ui
from adbwire.errors import AdbwireError, DisconnectedError, OperationCancelledError
from adbwire.wire.client import AdbClient

T = TypeVar("T")
LOG_SLICE = 20
"""The newest warning/error lines an outcome carries; ``log_more`` counts the rest."""


@dataclass(frozen=True)
class Outcome:
    screen_changed: bool | None
    """None when the screen could not be read afterwards."""
    window: str | None
    """The focused window afterwards (``pkg/cls``, or a system window's title)."""
    package: str | None
    """The app in focus afterwards."""
    keyboard_shown: bool | None
    problem: Crash | Anr | None
    """A crash or ANR logged since the action began by an app it involved: focused before
    or after, named by the caller, or started meanwhile (other apps' crashes are not the
    action's)."""
    log: tuple[LogEntry, ...]
    """The watched apps' warnings and errors logged meanwhile, the newest ``LOG_SLICE``."""
    log_more: int
    """How many older lines of that slice were left out."""
    after: UiSnapshot | None
    note: str | None
    seconds: float
    """From ``begin`` to the end of ``finish``."""


@dataclass
class ActionWatch:
    client: AdbClient
    before: UiSnapshot | None
    """None when the screen could not be read before the action (it still runs)."""
    mark: logs.LogMark | None
    """None when the log could not be read before the action."""
    packages: tuple[str, ...]
    started: float
    notes: tuple[str, ...] = ()

    @classmethod
    def begin(
        cls,
        client: AdbClient,
        *,
        before: UiSnapshot | None = None,
        packages: tuple[str, ...] = (),
    ) -> ActionWatch:
        """Read what an outcome is compared with: the screen (unless given) and where the
        log is."""
        started = time.monotonic()
        notes: list[str] = []
        snapshot = before if before is not None else _tolerant(read_ui, client, notes, "screen")
        mark = _tolerant(logs.mark, client, notes, "log")
        focus = snapshot.focus if snapshot else None
        focused = focus.package if focus else None
        watched = tuple(dict.fromkeys([*packages, *([focused] if focused else [])]))
        return cls(client, snapshot, mark, watched, started, tuple(notes))

    def finish(self, *, settle: float = DEFAULT_SETTLE) -> Outcome:
        """Look at the screen until it changes (at most ``settle`` seconds), then read the
        log of the action's time."""
        notes = list(self.notes)
        if self.before is not None:
            seen = observe_after(self.client, self.before, settle=settle)
        else:  # nothing to compare with: one reading, screen_changed unknown
            now = _tolerant(read_ui, self.client, notes, "screen")
            seen = Observation(now, None, now.keyboard_shown if now else None, None)
        after = seen.after
        focus = after.focus if after else None
        packages = [*self.packages, *([focus.package] if focus and focus.package else [])]
        notes += [n for n in (seen.note, seen.error) if n]
        window = logs.LogWindow([], [], ())
        if self.mark is not None:
            found = _tolerant(logs.log_window, self.client, notes, "log", self.mark, packages)
            window = found or window
        return Outcome(
            screen_changed=seen.screen_changed,
            window=focus.current_focus if focus else None,
            package=focus.package if focus else None,
            keyboard_shown=seen.keyboard_shown,
            problem=_problem(window.events, [*packages, *window.started]) or _dialog(focus),
            log=tuple(window.entries[-LOG_SLICE:]),
            log_more=max(0, len(window.entries) - LOG_SLICE),
            after=after,
            note="; ".join(notes) or None,
            seconds=round(time.monotonic() - self.started, 2),
        )


def _tolerant(
    read: Callable[..., T], client: AdbClient, notes: list[str], what: str, *args: Any
) -> T | None:
    """``read(client, *args)``, or None with a note when the device could not answer; a
    lost link or a cancelled call still ends the action."""
    try:
        return read(client, *args)
    except (OperationCancelledError, DisconnectedError):
        raise
    except AdbwireError as exc:
        notes.append(f"the {what} could not be read: {exc}")
        return None


def _dialog(focus: WindowFocus | None) -> Anr | None:
    """An app's "isn't responding" dialog left on screen after the action (its ANR may have
    been logged before the action began): the action did not reach the app."""
    if focus is None or focus.dialog != "anr" or not focus.dialog_process:
        return None
    reason = "the system shows its isn't-responding dialog (answer it: Wait or Close app)"
    return Anr(focus.dialog_process, None, None, reason, None)


def _problem(events: list[Crash | Anr], packages: list[str]) -> Crash | Anr | None:
    """The newest crash or ANR of an involved app."""
    names = {p.split(":", 1)[0] for p in packages}
    return next((e for e in events if any(belongs_to(e.process, n) for n in names)), None)
