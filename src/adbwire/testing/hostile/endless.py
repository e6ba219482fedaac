"""Output that never ends: a command that keeps writing until the host closes the stream.

    running_device(options, userland_factory=hostile_userland(endless_output("dumpsys battery")))

The device writes under flow control (a WRTE waits for the host's OKAY, or for window
credit), so the device side holds at most one payload: only the host can run out of memory.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Literal

from adbwire.testing.hostile.userland import CommandMatch, Invocation, Rule, matcher

__all__ = ["CHUNK_SIZE", "endless_chunks", "endless_output"]

CHUNK_SIZE: Final = 64 * 1024
"""About how many bytes each write carries."""


def endless_chunks(line: str | bytes) -> Callable[[int], bytes]:
    """Chunk number n -> about CHUNK_SIZE bytes of `line` + "\\n" repeated; a "{n}" in the
    line is replaced by a running line number (so no two lines are the same)."""
    template = line.encode() if isinstance(line, str) else line
    numbered = b"{n}" in template
    per_chunk = max(1, CHUNK_SIZE // (len(template) + 1))

    def chunk(index: int) -> bytes:
        if not numbered:
            return (template + b"\n") * per_chunk
        first = index * per_chunk
        return b"".join(
            template.replace(b"{n}", str(first + offset).encode()) + b"\n"
            for offset in range(per_chunk)
        )

    return chunk


def endless_output(
    match: CommandMatch = None,
    *,
    line: str | bytes = "endless output line {n}",
    prefix: bytes = b"",
    channel: Literal["stdout", "stderr"] = "stdout",
) -> Rule:
    """Commands matching `match` (None: every command) write `prefix`, then `line` over and
    over (see `endless_chunks`) on `channel`, until the host closes the stream. Examples:
    `line="package:com.hostile.app{n}"` for `pm list packages`, `line="[x.{n}]: [1]"` for
    `getprop`."""
    chunks = endless_chunks(line)

    def respond(call: Invocation) -> int:
        write = call.io.write_stdout if channel == "stdout" else call.io.write_stderr
        if prefix:
            write(prefix)
        index = 0
        while not call.io.cancelled:
            write(chunks(index))  # raises StreamClosed once the host has closed the stream
            index += 1
        return 0

    return Rule(matcher(match), respond)
