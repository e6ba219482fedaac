"""Errors of UI reading and matching, refining the branches of ``adbwire.errors``.

Catching the base class still works; the MCP layer turns each into its own answer (an
ambiguous match lists the candidates so the caller can pick one).
"""

from __future__ import annotations

from collections.abc import Sequence

from adbwire.device.errors import NotFoundError
from adbwire.device.parsers import UiElement
from adbwire.errors import DeviceCommandError, UsageError


class UiDumpError(DeviceCommandError):
    """``uiautomator dump`` gave no hierarchy (the device's words are in the message)."""


class UiNotIdleError(UiDumpError):
    """The screen never became idle (an endless animation), even with ``--compressed``."""

    retryable = True


class NoMatchError(NotFoundError):
    """No element on the screen matches the selector; ``suggestions`` are the closest
    labels on the screen (possibly none)."""

    def __init__(self, message: str, *, selector: str, suggestions: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.selector = selector
        self.suggestions = tuple(suggestions)


class AmbiguousMatchError(UsageError):
    """More than one element matches where exactly one is needed; nothing was done."""

    def __init__(self, message: str, *, candidates: Sequence[UiElement]) -> None:
        super().__init__(message)
        self.candidates = tuple(candidates)


class StaleElementError(UsageError):
    """An element id refers to a screen that has changed since it was read."""
