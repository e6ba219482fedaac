"""Looking again after an action: did the screen change, is the keyboard up?

An action is never reported as "done" on faith. After a touch the screen is read again
until it differs from before, or until ``settle`` seconds have passed with nothing
changed (0.6 s by default: a screen that reacts starts changing within a frame or two, so
an action that changed nothing costs one or two extra reads, not a long wait; a
uiautomator dump itself waits for the app to idle, so the first changed reading is
usually the settled screen). ``screen_changed`` is None when the screen could not be read
afterwards.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from adbwire.device.ui.snapshot import UiSnapshot, read_ui
from adbwire.errors import AdbwireError, DisconnectedError, OperationCancelledError
from adbwire.wire.client import AdbClient

log = logging.getLogger(__name__)
DEFAULT_SETTLE = 0.6
FIRST_LOOK = 0.15
POLL = 0.3
KEYBOARD_NOTE = (
    "the screen did not change and the soft keyboard is up: it may cover the element or "
    "take the touch; press_key back to hide it, then try again"
)


@dataclass(frozen=True)
class Observation:
    after: UiSnapshot | None
    screen_changed: bool | None
    keyboard_shown: bool | None
    note: str | None
    error: str | None = None
    """Why the screen could not be read afterwards."""


def observe_after(
    client: AdbClient, before: UiSnapshot, *, settle: float = DEFAULT_SETTLE
) -> Observation:
    """Read the screen until it differs from ``before`` or ``settle`` seconds pass."""
    deadline = time.monotonic() + max(0.0, settle)
    time.sleep(min(FIRST_LOOK, max(0.0, settle)))
    after: UiSnapshot | None = None
    error: str | None = None
    while True:
        try:
            after = read_ui(client)
            error = None
        except (OperationCancelledError, DisconnectedError):
            raise  # a closed link never comes back: polling on would only wait out the time
        except AdbwireError as exc:
            log.debug("re-reading the screen failed", exc_info=True)
            after, error = None, str(exc)
        if after is not None and after.signature != before.signature:
            return _observation(after, True)
        if time.monotonic() + POLL > deadline:
            break
        time.sleep(POLL)
    if after is None:
        return Observation(None, None, None, None, error)
    return _observation(after, False)


def _observation(after: UiSnapshot, changed: bool) -> Observation:
    note = KEYBOARD_NOTE if not changed and after.keyboard_shown else None
    return Observation(after, changed, after.keyboard_shown, note)
