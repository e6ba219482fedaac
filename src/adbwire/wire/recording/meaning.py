"""What an OPEN asks the device to do, so a replay can match requests spelled differently.

Google's adb and adbwire ask for the same shell command in different words: adb adds
`TERM=xterm-256color` when its user has a terminal, and on a device without shell_v2 adbwire
wraps the command to learn its exit status (`shell:(CMD\\n); echo ADBWIRE_EXIT_…:$?`) where
adb sends `shell:CMD`. A replay compares the meaning: the command and the pty/raw choice
(the table is in docs/fixtures.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

LEGACY_WRAPPER: Final = re.compile(
    r"\((?P<command>.*)\n\); echo (?P<marker>ADBWIRE_EXIT_[0-9a-f]{16}:)\$\?", re.S
)
"""adbwire's shell v1 fallback (`adbwire.wire.services.shell`): the command in a subshell,
then a random marker and the exit status."""
EXIT_STATUS_UNKNOWN: Final = b"unknown"
"""What a replay puts after adbwire's marker when the recorded shell gave no exit status."""


@dataclass(frozen=True)
class ShellRequest:
    command: str
    pty: bool
    v2: bool
    marker: str | None
    """adbwire's legacy exit-status marker when the command is wrapped in it."""


def shell_request(service: str) -> ShellRequest | None:
    """The shell request a `shell[,ARG…]:COMMAND` service makes (None for other services)."""
    if not service.startswith("shell"):
        return None
    head, colon, command = service.partition(":")
    if not colon:
        return None
    args = head.split(",")
    if args[0] != "shell":
        return None
    v2 = "v2" in args[1:]
    pty = "pty" in args[1:] if ("pty" in args[1:] or "raw" in args[1:]) else not command
    marker: str | None = None
    if not v2:
        wrapped = LEGACY_WRAPPER.fullmatch(command)
        if wrapped is not None:
            command, marker = wrapped["command"], wrapped["marker"]
    return ShellRequest(command, pty, v2, marker)


@dataclass(frozen=True)
class Translation:
    """How the recorded device bytes must change to answer the client's spelling."""

    exit_marker: str | None = None
    """Append `<marker>unknown\\n` after the recorded output (adbwire's legacy wrapper asked
    for an exit status the recorded plain `shell:` stream never carried)."""


SAME: Final = Translation()


def match_meaning(recorded: str, actual: str) -> Translation | None:
    """How `actual` can be answered from the recorded `recorded` service, or None if it asks
    for something else. Exact spellings (and volatile tokens) are matched elsewhere."""
    if recorded.startswith("exec:") and actual.startswith("exec:"):
        return (
            SAME
            if recorded.removeprefix("exec:").strip() == actual.removeprefix("exec:").strip()
            else None
        )
    old, new = shell_request(recorded), shell_request(actual)
    if old is None or new is None or old.command != new.command or old.pty != new.pty:
        return None
    if old.v2 != new.v2:
        return None  # output framing and exit status differ: not translated (see docs)
    if old.marker is not None:
        return None  # adbwire's own recording: its marker is matched as a volatile token
    if new.marker is not None:
        return Translation(exit_marker=new.marker)
    return SAME


STAND_IN_COMMANDS: Final = frozenset({"realpath", "readlink"})
"""Path resolution: what adbwire's file tools ask before the request that matters. A
non-strict replay answers these, when unrecorded, as a device without the tool would."""


def stand_in_shell(service: str) -> bytes | None:
    """The device's answer to an unrecorded path-resolution command, as a device without that
    tool gives it (shell v2 packets, or adbwire's legacy marker with status 127); None for
    any other service."""
    request = shell_request(service)
    if request is None or request.pty:
        return None
    name = request.command.split(" ", 1)[0].strip("'\"")
    if name not in STAND_IN_COMMANDS:
        return None
    message = f"/system/bin/sh: {name}: inaccessible or not found\n".encode()
    if request.v2:
        return (
            bytes([2])
            + len(message).to_bytes(4, "little")
            + message
            + bytes([3])
            + (1).to_bytes(4, "little")
            + bytes([127])
        )
    return message + (request.marker or "").encode() + b"127\n"
