"""Quoting for the device's POSIX shell (mksh on Android), so an argument is one word.

Every argument that comes from a caller goes through `quote` before it reaches a
`shell:`/`exec:` service: a caller's string can never start a second command.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from adbwire.errors import UsageError

_SAFE = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")


def quote(argument: str) -> str:
    """One shell word that the device's shell turns back into exactly `argument`."""
    if "\0" in argument:
        raise UsageError("a shell argument cannot contain a NUL character")
    if _SAFE.fullmatch(argument):
        return argument
    return "'" + argument.replace("'", "'\\''") + "'"


def join(argv: Iterable[str]) -> str:
    """A command line that runs `argv` with every argument quoted."""
    words = [quote(arg) for arg in argv]
    if not words:
        raise UsageError("empty command")
    return " ".join(words)
