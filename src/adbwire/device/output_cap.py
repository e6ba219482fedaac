"""The byte cap on each read of device output, for the calls of the current context.

Every device operation reads command output or listings through `commands` (or passes
`current()` itself), so a device whose output never ends costs at most the cap, never the
host's memory. The cap applies to each read (one command's stdout and stderr together, one
directory listing), not to a whole operation.

The cap is a context variable rather than an argument of every operation: the MCP server
sets its per-tool cap (from the policy) around a tool's device calls with `limited_to`,
and each call made in that context, however deep, reads under it. Worker threads started
by `anyio.to_thread` inherit it; a plain `threading.Thread` starts from the default.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Final

from adbwire.errors import UsageError

DEFAULT_MAX_OUTPUT: Final = 16 * 1024 * 1024
"""The cap when nobody set one: larger than any real getprop, dumpsys, package list, UI
dump or logcat dump adbwire reads (those run to a few MiB at most)."""

_current: ContextVar[int] = ContextVar("adbwire_max_output", default=DEFAULT_MAX_OUTPUT)


def current() -> int:
    """The cap, in bytes, for a read made now."""
    return _current.get()


@contextmanager
def limited_to(max_bytes: int) -> Iterator[None]:
    """Reads in this block (this thread or task, and what it starts) stop past `max_bytes`."""
    if max_bytes <= 0:
        raise UsageError("an output cap must be a positive number of bytes")
    token = _current.set(max_bytes)
    try:
        yield
    finally:
        _current.reset(token)
