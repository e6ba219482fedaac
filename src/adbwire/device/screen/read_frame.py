"""Reading ``screencap``'s output with a byte cap its own header sets.

A frame's first bytes say how large it is. Nothing past the header is kept until the
header has been checked (``limit_of`` raises for a frame over the pixel cap or for output
that is no frame); after that, output beyond the limit the header implies ends the read
with ``OutputTooLargeError`` and closes the stream, which stops the command. A device that
sends without end costs at most that limit, never the host's memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from adbwire.device import commands
from adbwire.errors import (
    CommandFailedError,
    DeviceCommandError,
    OutputTooLargeError,
    StreamRefusedError,
)
from adbwire.wire import shell_quote
from adbwire.wire.client import AdbClient
from adbwire.wire.services.shell import Channel, ShellProcess
from adbwire.wire.timeouts import Deadline

LimitOf = Callable[[bytes], int]
"""The first ``header_bytes`` of the output -> the most bytes the whole output may have."""

STDERR_CAP = 64 * 1024
"""What a failing screencap may say on stderr (shell fallback) before the read stops."""


class FrameReader:
    """Runs ``screencap FLAGS`` on one device and returns its stdout within the limits."""

    def __init__(self, client: AdbClient, timeout: float) -> None:
        self.client = client
        self.timeout = timeout

    def read(self, flags: list[str], header_bytes: int, limit_of: LimitOf) -> bytes:
        argv = ["screencap", *flags]
        command = " ".join(argv)
        deadline = Deadline(self.timeout, command)
        try:
            stream = self.client.open_stream(f"exec:{command}", timeout=deadline.remaining())
        except StreamRefusedError:
            if "shell_v2" not in self.client.features:
                raise
            data = self._over_shell(argv, deadline, header_bytes, limit_of)
        else:
            with stream:
                chunks = iter(lambda: stream.read_view(None, deadline), b"")
                data = collect(chunks, command, header_bytes, limit_of)
        if not data:
            raise DeviceCommandError(f"{command}: no output (is the display on?)")
        return data

    def _over_shell(
        self, argv: list[str], deadline: Deadline, header_bytes: int, limit_of: LimitOf
    ) -> bytes:
        command = " ".join(argv)
        stderr = bytearray()
        with self.client.start_shell(
            shell_quote.join(argv), timeout=deadline.remaining()
        ) as process:
            stdout = _stdout_of(process, deadline, stderr, command)
            data = collect(stdout, command, header_bytes, limit_of)
        if process.exit_code != 0:
            status = 255 if process.exit_code is None else process.exit_code
            raise CommandFailedError(command, status, commands.decode(bytes(stderr)))
        return data


def collect(
    chunks: Iterable[bytes | memoryview], what: str, header_bytes: int, limit_of: LimitOf
) -> bytes:
    """The chunks joined, refused as soon as the header does not pass or the bytes exceed
    the limit it implies (before the header is complete: one chunk past it at most)."""
    buffer = bytearray()
    limit: int | None = None
    for chunk in chunks:
        buffer += chunk
        if limit is None and len(buffer) >= header_bytes:
            limit = limit_of(bytes(buffer[:header_bytes]))
        if limit is not None and len(buffer) > limit:
            raise OutputTooLargeError(what, limit)
    return bytes(buffer)


def _stdout_of(
    process: ShellProcess, deadline: Deadline, stderr: bytearray, command: str
) -> Iterator[bytes]:
    for channel, data in process.output(deadline):
        if channel is Channel.STDOUT:
            yield data
        else:
            stderr += data
            if len(stderr) > STDERR_CAP:
                raise OutputTooLargeError(f"{command} (stderr)", STDERR_CAP)
