"""Reading the UI tree safely and finding elements in it.

- ``dump``: a fresh ``uiautomator dump`` every time (streamed, or through a unique file
  removed before and after), with the ``--compressed`` retry for screens that never idle;
- ``snapshot``: the parsed tree with the toolkit, the keyboard and the focused window;
- ``compact``: the one-line-per-element text form (interactive elements by default);
- ``select``: selectors, the matching order, the nearest clickable ancestor;
- ``checks``, ``observe``, ``debug``, ``audit``, ``animations``: waiting and asserting,
  looking again after an action, the debug bundle, the accessibility audit, animation scales.

The actions built on these live in ``adbwire.device.ui.actions``.
"""

from __future__ import annotations

from adbwire.device.ui.compact import compact_tree, element_line, merged_labels
from adbwire.device.ui.dump import UiDump, dump_ui
from adbwire.device.ui.errors import (
    AmbiguousMatchError,
    NoMatchError,
    StaleElementError,
    UiDumpError,
    UiNotIdleError,
)
from adbwire.device.ui.select import Matches, Resolved, Selector, find, resolve_one, tap_target
from adbwire.device.ui.snapshot import UiSnapshot, focused_window, keyboard_shown, read_ui

__all__ = [
    "AmbiguousMatchError",
    "Matches",
    "NoMatchError",
    "Resolved",
    "Selector",
    "StaleElementError",
    "UiDump",
    "UiDumpError",
    "UiNotIdleError",
    "UiSnapshot",
    "compact_tree",
    "dump_ui",
    "element_line",
    "find",
    "focused_window",
    "keyboard_shown",
    "merged_labels",
    "read_ui",
    "resolve_one",
    "tap_target",
]
