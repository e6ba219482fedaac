"""Reading ``screencap``'s output with a byte cap its own header sets.

A frame's first bytes say how large it is. Nothing past the header is kept until the
header has been checked (``limit_of`` raises for a frame over the pixel cap or for output
that is no frame); after that, output beyond the limit the header implies ends the read
with ``OutputTooLargeError`` and closes the stream, which stops the command. A device that
sends without end costs at most that limit, never the host's memory.

The output goes into one buffer the size of that limit, which is anonymous memory of its
own (``mmap``): pages are only committed as bytes arrive (a 20 KB PNG under a 10 MB limit
costs 20 KB), nothing is copied after arrival (the caller gets a view of it), and the
buffer is not left in the allocator's heap as freed 10 MB blocks are. With a ``Lease``
(``frame_pool``) the buffer is a mapping a previous screenshot used, already paged in.
A ``Watch`` is shown the buffer after each chunk, to work on the bytes that are there
while the rest arrives (``stream_reduce``).
"""

from __future__ import annotations

import mmap
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from adbwire.device import commands
from adbwire.device.screen.frame_pool import Lease
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
Allocate = Callable[[int], mmap.mmap]
"""A mapping of at least so many bytes."""
Watch = Callable[[mmap.mmap, int], None]
"""The buffer and how many bytes of it have arrived, after each chunk past the header."""

STDERR_CAP = 64 * 1024
"""What a failing screencap may say on stderr (shell fallback) before the read stops."""


@dataclass(frozen=True)
class Output:
    """What one ``screencap`` wrote, and how long it took to arrive."""

    data: memoryview
    """A read-only view of the buffer the output arrived in (empty: no output)."""
    seconds: float
    """From opening the stream to the last byte."""
    transfer_seconds: float
    """From the first byte to the last: the link's share, without the device's start-up."""


class FrameReader:
    """Runs ``screencap FLAGS`` on one device and returns its stdout within the limits;
    ``timeout`` bounds all its reads together (a fallback path gets what is left)."""

    def __init__(self, client: AdbClient, timeout: float, lease: Lease | None = None) -> None:
        self.client = client
        self.timeout = timeout
        self._ends = time.monotonic() + timeout
        self._allocate: Allocate = lease.take if lease is not None else _fresh

    def read(
        self, flags: list[str], header_bytes: int, limit_of: LimitOf, watch: Watch | None = None
    ) -> Output:
        argv = ["screencap", *flags]
        command = " ".join(argv)
        deadline = Deadline(max(0.0, self._ends - time.monotonic()), command)
        started = time.monotonic()
        try:
            stream = self.client.open_stream(f"exec:{command}", timeout=deadline.remaining())
        except StreamRefusedError:
            if "shell_v2" not in self.client.features:
                raise
            buffer = self._over_shell(argv, deadline, header_bytes, limit_of, watch)
        else:
            with stream:
                chunks = iter(lambda: stream.read_view(None, deadline), b"")
                buffer = collect(
                    chunks, command, header_bytes, limit_of, allocate=self._allocate, watch=watch
                )
        if not buffer.length:
            raise DeviceCommandError(f"{command}: no output (is the display on?)")
        ended = time.monotonic()
        first = buffer.first_byte_at if buffer.first_byte_at is not None else ended
        return Output(buffer.view(), ended - started, ended - first)

    def _over_shell(
        self,
        argv: list[str],
        deadline: Deadline,
        header_bytes: int,
        limit_of: LimitOf,
        watch: Watch | None,
    ) -> FrameBuffer:
        command = " ".join(argv)
        stderr = bytearray()
        with self.client.start_shell(
            shell_quote.join(argv), timeout=deadline.remaining()
        ) as process:
            stdout = _stdout_of(process, deadline, stderr, command)
            buffer = collect(
                stdout, command, header_bytes, limit_of, allocate=self._allocate, watch=watch
            )
        if process.exit_code != 0:
            status = 255 if process.exit_code is None else process.exit_code
            raise CommandFailedError(command, status, commands.decode(bytes(stderr)))
        return buffer


class FrameBuffer:
    """Output gathered under a limit its header sets: a small buffer until the header is
    complete, then one anonymous mapping of the limit's size."""

    def __init__(
        self,
        what: str,
        header_bytes: int,
        limit_of: LimitOf,
        allocate: Allocate,
        watch: Watch | None = None,
    ) -> None:
        self._what = what
        self._allocate = allocate
        self._watch = watch
        self._header_bytes = header_bytes
        self._limit_of = limit_of
        self._head = bytearray()
        self._mapping: mmap.mmap | None = None
        self._limit = 0
        self.length = 0
        self.first_byte_at: float | None = None

    def add(self, chunk: bytes | memoryview) -> None:
        size = len(chunk)
        if not size:
            return
        if self.first_byte_at is None:
            self.first_byte_at = time.monotonic()
        if self._mapping is None:
            self._head += chunk
            self.length = len(self._head)
            if self.length >= self._header_bytes:
                self._open(bytes(self._head[: self._header_bytes]))
        else:
            end = self.length + size
            if end > self._limit:
                raise OutputTooLargeError(self._what, self._limit)
            self._mapping[self.length : end] = chunk
            self.length = end
        if self._watch is not None and self._mapping is not None:
            self._watch(self._mapping, self.length)

    def _open(self, header: bytes) -> None:
        limit = self._limit_of(header)  # raises for a frame that must not be read
        if self.length > limit:
            raise OutputTooLargeError(self._what, limit)
        self._limit = limit
        self._mapping = self._allocate(max(limit, 1))
        self._mapping[: self.length] = self._head
        self._head = bytearray()

    def view(self) -> memoryview:
        """The bytes that arrived (read-only); the mapping lives as long as a view does."""
        if self._mapping is None:
            return memoryview(bytes(self._head))  # shorter than a header: a few bytes
        return memoryview(self._mapping)[: self.length].toreadonly()


def collect(
    chunks: Iterable[bytes | memoryview],
    what: str,
    header_bytes: int,
    limit_of: LimitOf,
    *,
    allocate: Allocate | None = None,
    watch: Watch | None = None,
) -> FrameBuffer:
    """The chunks in one buffer, refused as soon as the header does not pass or the bytes
    exceed the limit it implies (before the header is complete: one chunk past it at most);
    ``watch`` is shown the buffer after each chunk once the header passed."""
    buffer = FrameBuffer(what, header_bytes, limit_of, allocate or _fresh, watch)
    for chunk in chunks:
        buffer.add(chunk)
    return buffer


def _fresh(size: int) -> mmap.mmap:
    return mmap.mmap(-1, size)


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
