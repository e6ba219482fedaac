"""One multiplexed ADB stream: a blocking, flow-controlled byte pipe to a device service.

Data the device sends waits in this stream's own queue; the reader thread never blocks on
it, so a slow consumer holds back only its own stream. We acknowledge a chunk when the
consumer takes it, which is what lets the device send the next one: memory per stream is
bounded by one packet (or by our receive window under delayed_ack).
"""

from __future__ import annotations

import threading
from collections import deque
from typing import TYPE_CHECKING

from adbwire.errors import (
    AdbwireError,
    DisconnectedError,
    OperationCancelledError,
    RemoteProtocolError,
    UsageError,
)
from adbwire.wire.timeouts import Deadline

if TYPE_CHECKING:
    from adbwire.wire.connection import Connection

Buffer = bytes | bytearray | memoryview


class Stream:
    """A device service opened with OPEN; use as a context manager so it is always closed."""

    def __init__(self, connection: Connection, local_id: int, service: str) -> None:
        self.connection = connection
        self.local_id = local_id
        self.service = service
        self._cond = threading.Condition(connection.state_lock)
        self._chunks: deque[memoryview] = deque()
        self._consumed_unacked = 0
        self._opened = False
        self._refused = False
        self._remote_closed = False
        self._closed = False
        self._error: AdbwireError | None = None
        self._write_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<Stream {self.local_id} {self.service!r}>"

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ----------------------------------------------------------- called by the reader
    # (all with the connection's state lock held)

    def _on_opened(self) -> None:
        self._opened = True
        self._cond.notify_all()

    def _on_refused(self) -> None:
        self._refused = True
        self._remote_closed = True
        self._cond.notify_all()

    def _on_data(self, payload: Buffer) -> None:
        self._chunks.append(memoryview(payload))
        self._cond.notify_all()

    def _on_writable(self) -> None:
        self._cond.notify_all()

    def _on_remote_close(self) -> None:
        self._remote_closed = True
        self._cond.notify_all()

    def _on_failure(self, error: AdbwireError) -> None:
        self._error = error
        self._cond.notify_all()

    # ----------------------------------------------------------- opening

    @property
    def refused(self) -> bool:
        return self._refused

    def _wait_open(self, deadline: Deadline) -> None:
        """Block until the device answered our OPEN (used by Connection.open_stream)."""
        with self._cond:
            while not (self._opened or self._refused or self._error or self._closed):
                if deadline.expired():
                    raise deadline.error()
                self._cond.wait(deadline.remaining())
            self._raise_if_failed()
            if self._closed:
                raise OperationCancelledError(f"opening {self.service!r} was cancelled")

    # ----------------------------------------------------------- reading

    @property
    def at_eof(self) -> bool:
        """True when the device closed the stream and every byte was read."""
        with self._cond:
            return self._remote_closed and not self._chunks

    def read(self, max_bytes: int | None = None, deadline: Deadline | None = None) -> bytes:
        """The next bytes the device sent (at most `max_bytes`); b"" once the device closed."""
        if max_bytes is not None and max_bytes < 1:
            raise UsageError(f"max_bytes must be at least 1, got {max_bytes}")
        with self._cond:
            while not self._chunks:
                if self._closed:
                    raise OperationCancelledError(f"{self.service!r} was closed while reading")
                if self._remote_closed:
                    self._raise_if_failed()
                    return b""
                self._raise_if_failed()
                if deadline is not None and deadline.expired():
                    raise deadline.error()
                self._cond.wait(None if deadline is None else deadline.remaining())
            head = self._chunks[0]
            acknowledge = 0
            if max_bytes is None or max_bytes >= len(head):
                self._chunks.popleft()
                taken = head
                acknowledge = self._consumed_unacked + len(head)
                self._consumed_unacked = 0
            else:
                taken = head[:max_bytes]
                self._chunks[0] = head[max_bytes:]
                self._consumed_unacked += max_bytes
        data = bytes(taken)
        if acknowledge:
            self.connection._acknowledge(self.local_id, acknowledge)
        return data

    def read_exactly(self, size: int, deadline: Deadline | None = None) -> bytes:
        """Exactly `size` bytes; a stream that ends first is a protocol error."""
        if size < 0:
            raise UsageError(f"size cannot be negative, got {size}")
        if size == 0:
            return b""
        first = self.read(size, deadline)
        if len(first) == size:
            return first
        parts = [first]
        got = len(first)
        while got < size:
            if not parts[-1]:
                raise RemoteProtocolError(
                    f"{self.service!r} ended after {got} of {size} expected bytes"
                )
            part = self.read(size - got, deadline)
            parts.append(part)
            got += len(part)
        return b"".join(parts)

    def read_all(self, deadline: Deadline | None = None) -> bytes:
        """Everything until the device closes the stream."""
        parts = []
        while chunk := self.read(None, deadline):
            parts.append(chunk)
        return b"".join(parts)

    # ----------------------------------------------------------- writing

    def write(self, data: Buffer, deadline: Deadline | None = None) -> None:
        """Send all of `data`, split to the peer's limits, waiting for credit as needed."""
        view = memoryview(data).cast("B")
        with self._write_lock:
            offset = 0
            while offset < len(view):
                with self._cond:
                    while not self.connection._can_write(self.local_id):
                        self._raise_if_failed()
                        if self._closed:
                            raise OperationCancelledError(f"{self.service!r} was closed")
                        if self._remote_closed:
                            raise DisconnectedError(
                                f"{self.service!r} was closed before all data was sent "
                                f"({offset} of {len(view)} bytes)"
                            )
                        if deadline is not None and deadline.expired():
                            raise deadline.error()
                        self._cond.wait(None if deadline is None else deadline.remaining())
                    size = self.connection._write_limit(self.local_id)
                    chunk = view[offset : offset + size]
                    packet = self.connection._make_write(self.local_id, chunk)
                self.connection._send(packet)
                offset += len(chunk)

    # ----------------------------------------------------------- closing

    def close(self) -> None:
        """Close our end (idempotent); unread data is dropped."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._chunks.clear()
            self._cond.notify_all()
        self.connection._close_stream(self)

    @property
    def closed(self) -> bool:
        return self._closed

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            raise self._error
