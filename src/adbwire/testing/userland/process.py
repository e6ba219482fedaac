"""The byte streams a simulated process reads and writes.

`ProcessIO` is the seam to the protocol side (one per shell/exec stream). Inside the userland
every command sees `Streams`: a reader for fd 0 and writers for fds 1 and 2, which
redirections and pipelines swap for files, buffers or /dev/null.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol


class ProcessIO(Protocol):
    """One running process's stdin/stdout/stderr, as the protocol side provides them."""

    def read_stdin(self, max_bytes: int = 65536) -> bytes:
        """Up to max_bytes of input; b"" at EOF (close-stdin or the stream closed)."""
        ...

    def write_stdout(self, data: bytes) -> None: ...

    def write_stderr(self, data: bytes) -> None: ...

    @property
    def cancelled(self) -> bool:
        """True once the client closed the stream: stop early."""
        ...


class Reader(Protocol):
    def read(self, max_bytes: int = 65536) -> bytes: ...


class Writer(Protocol):
    def write(self, data: bytes) -> None: ...


@dataclass
class Streams:
    stdin: Reader
    stdout: Writer
    stderr: Writer


class BytesReader:
    """A reader over bytes already in memory (pipelines, here-strings, files read whole)."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._pos = 0

    def read(self, max_bytes: int = 65536) -> bytes:
        chunk = self._data[self._pos : self._pos + max_bytes]
        self._pos += len(chunk)
        return chunk


class BufferWriter:
    def __init__(self) -> None:
        self._chunks: list[bytes] = []

    def write(self, data: bytes) -> None:
        self._chunks.append(data)

    def getvalue(self) -> bytes:
        return b"".join(self._chunks)


class BrokenPipe(BaseException):
    """The reading end of a pipe is gone (a process would get SIGPIPE): the writer ends.

    A BaseException, as the signal it stands for: a command's own `except Exception` (pm's
    error report, say) must not catch it and go on writing."""


SIGPIPE_STATUS = 128 + 13


class Pipe:
    """A pipeline's pipe between two stages running at once: bounded like a kernel pipe
    (a writer waits while it is full), end of file once the writer closed, and BrokenPipe
    for a writer once the reader closed (`yes | head -1` ends). Every wait re-checks
    `cancelled`, so a session that ends never leaves a stage waiting."""

    CAPACITY = 64 * 1024
    POLL_SECONDS = 0.1

    def __init__(self, cancelled: Callable[[], bool]) -> None:
        self._cancelled = cancelled
        self._changed = threading.Condition()
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self._writer_closed = False
        self._reader_closed = False

    def write(self, data: bytes) -> None:
        if not data:
            return
        with self._changed:
            while self._size >= self.CAPACITY and not self._reader_closed:
                if self._cancelled():
                    raise BrokenPipe("the session ended")
                self._changed.wait(self.POLL_SECONDS)
            if self._reader_closed:
                raise BrokenPipe("the reading end of the pipe is closed")
            self._chunks.append(bytes(data))
            self._size += len(data)
            self._changed.notify_all()

    def read(self, max_bytes: int = 65536) -> bytes:
        with self._changed:
            while not self._chunks and not self._writer_closed and not self._cancelled():
                self._changed.wait(self.POLL_SECONDS)
            if not self._chunks:
                return b""
            head = self._chunks[0]
            if len(head) <= max_bytes:
                self._chunks.popleft()
            else:
                self._chunks[0] = head[max_bytes:]
                head = head[:max_bytes]
            self._size -= len(head)
            self._changed.notify_all()
            return head

    def read_within(self, max_bytes: int, seconds: float) -> bytes | None:
        """Like `read`, but None once `seconds` passed with nothing to read (`read -t`)."""
        deadline = time.monotonic() + seconds
        with self._changed:
            while not self._chunks and not self._writer_closed and not self._cancelled():
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._changed.wait(min(left, self.POLL_SECONDS))
        return self.read(max_bytes)

    def close_write(self) -> None:
        with self._changed:
            self._writer_closed = True
            self._changed.notify_all()

    def close_read(self) -> None:
        with self._changed:
            self._reader_closed = True
            self._chunks.clear()
            self._size = 0
            self._changed.notify_all()


class NullWriter:
    def write(self, data: bytes) -> None:
        pass


class StdinReader:
    """fd 0 of a process started by the protocol side; optionally turns CR into LF (a tty).

    A read with a time limit (`read -t`) that gives up leaves its read of the stream under
    way in a helper thread; what that read brings is the next read's, so no byte is lost."""

    def __init__(self, io: ProcessIO, *, crlf_to_lf: bool = False) -> None:
        self._io = io
        self._crlf = crlf_to_lf
        self._pending = b""
        self._under_way: queue.Queue[bytes] | None = None

    def read(self, max_bytes: int = 65536) -> bytes:
        if not self._pending and self._under_way is not None:
            self._pending, self._under_way = self._under_way.get(), None
            if not self._pending:
                return b""
        if self._pending:
            data, self._pending = self._pending[:max_bytes], self._pending[max_bytes:]
            return data
        data = self._io.read_stdin(max_bytes)
        return data.replace(b"\r", b"\n") if self._crlf else data

    def read_within(self, max_bytes: int, seconds: float) -> bytes | None:
        """Like `read`, but None once `seconds` passed with nothing read."""
        if not self._pending and self._under_way is None:
            arrived: queue.Queue[bytes] = queue.Queue(maxsize=1)
            self._under_way = arrived
            threading.Thread(
                target=lambda: arrived.put(self._read_converted()),
                name="device stdin read",
                daemon=True,
            ).start()
        if not self._pending and self._under_way is not None:
            try:
                self._pending = self._under_way.get(timeout=seconds)
            except queue.Empty:
                return None
            self._under_way = None
            if not self._pending:
                return b""
        return self.read(max_bytes)

    def _read_converted(self) -> bytes:
        data = self._io.read_stdin(65536)
        return data.replace(b"\r", b"\n") if self._crlf else data


class OutputWriter:
    """fd 1 or 2 of a process; with a pty, LF becomes CRLF as a tty's ONLCR does."""

    def __init__(self, write: Callable[[bytes], None], *, onlcr: bool = False) -> None:
        self._write = write
        self._onlcr = onlcr

    def write(self, data: bytes) -> None:
        if not data:
            return
        self._write(data.replace(b"\n", b"\r\n") if self._onlcr else data)


class BufferIO:
    """A ProcessIO in memory: for tests, and for running commands from Python."""

    def __init__(self, stdin: bytes = b"") -> None:
        self._stdin = BytesReader(stdin)
        self.stdout = bytearray()
        self.stderr = bytearray()
        self._cancel = threading.Event()

    def read_stdin(self, max_bytes: int = 65536) -> bytes:
        return self._stdin.read(max_bytes)

    def write_stdout(self, data: bytes) -> None:
        self.stdout += data

    def write_stderr(self, data: bytes) -> None:
        self.stderr += data

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def cancel(self) -> None:
        self._cancel.set()
