"""`exec:` runs a command with a binary-safe stdout (no pty, no shell protocol framing).

Use it for bytes such as `screencap -p` output. There is no stderr channel and no exit
code: callers that need them use the shell service.
"""

from __future__ import annotations

from collections.abc import Iterator

from adbwire.errors import OutputTooLargeError, UsageError
from adbwire.wire.connection import Connection
from adbwire.wire.stream import Stream
from adbwire.wire.timeouts import Deadline


def open_exec(connection: Connection, command: str, timeout: float | None = None) -> Stream:
    """Start `command`; read its stdout from the returned stream, or write its stdin."""
    return connection.open_stream(f"exec:{command}", timeout)


def exec_out(
    connection: Connection,
    command: str,
    *,
    timeout: float | None = None,
    max_output: int | None = None,
) -> bytes:
    """Run `command` and return everything it wrote to stdout.

    Past `max_output` bytes (None: no cap) the stream is closed, which ends the command,
    and OutputTooLargeError is raised; the rest is never read.
    """
    if max_output is not None and max_output <= 0:
        raise UsageError("max_output must be a positive number of bytes")
    deadline = Deadline(
        connection.timeouts.operation if timeout is None else timeout, f"exec {command!r}"
    )
    with open_exec(connection, command, deadline.remaining()) as stream:
        if max_output is None:
            return stream.read_all(deadline)
        parts: list[bytes] = []
        received = 0
        while chunk := stream.read(None, deadline):
            received += len(chunk)
            if received > max_output:
                raise OutputTooLargeError(f"exec {command[:200]!r}", max_output)
            parts.append(chunk)
        return b"".join(parts)


def exec_chunks(
    connection: Connection, command: str, *, timeout: float | None = None
) -> Iterator[bytes]:
    """Stdout of `command` as it arrives; closing the iterator closes the stream."""
    deadline = Deadline(
        connection.timeouts.operation if timeout is None else timeout, f"exec {command!r}"
    )
    with open_exec(connection, command, deadline.remaining()) as stream:
        while chunk := stream.read(None, deadline):
            yield chunk
