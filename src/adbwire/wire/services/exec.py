"""`exec:` runs a command with a binary-safe stdout (no pty, no shell protocol framing).

Use it for bytes such as `screencap -p` output. There is no stderr channel and no exit
code: callers that need them use the shell service.
"""

from __future__ import annotations

from collections.abc import Iterator

from adbwire.wire.connection import Connection
from adbwire.wire.stream import Stream
from adbwire.wire.timeouts import Deadline


def open_exec(connection: Connection, command: str, timeout: float | None = None) -> Stream:
    """Start `command`; read its stdout from the returned stream, or write its stdin."""
    return connection.open_stream(f"exec:{command}", timeout)


def exec_out(connection: Connection, command: str, *, timeout: float | None = None) -> bytes:
    """Run `command` and return everything it wrote to stdout."""
    deadline = Deadline(
        connection.timeouts.operation if timeout is None else timeout, f"exec {command!r}"
    )
    with open_exec(connection, command, deadline.remaining()) as stream:
        return stream.read_all(deadline)


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
