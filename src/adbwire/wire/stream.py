"""One multiplexed ADB stream: a blocking, flow-controlled byte pipe to a device service.

Data the device sends waits in this stream's own queue; the reader thread never blocks on
it, so a slow consumer holds back only its own stream. We acknowledge a chunk when the
consumer takes it, which is what lets the device send the next one: memory per stream is
bounded by one packet (or by our receive window under delayed_ack).

State lives under the connection's state lock. A thread that must wait checks the state,
leaves the lock and waits on a `Wakeup`: one for the reading side (opened, data, end) and
one for the writing side (credit). One thread at a time reads and one writes.
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
from adbwire.wire.wakeup import Wakeup

if TYPE_CHECKING:
    from adbwire.wire.connection import Connection
    from adbwire.wire.packets import Packet

Buffer = bytes | bytearray | memoryview
BATCH_PACKETS = 64
BATCH_BYTES = 256 * 1024
"""Most packets, and bytes, one write of a stream sends in one system call: small enough
that another stream's packet never waits behind much more than one large packet."""


class Stream:
    """A device service opened with OPEN; use as a context manager so it is always closed."""

    def __init__(self, connection: Connection, local_id: int, service: str) -> None:
        self.connection = connection
        self.local_id = local_id
        self.service = service
        self._lock = connection.state_lock
        self._readable = Wakeup()
        self._writable = Wakeup()
        self._chunks: deque[memoryview] = deque()
        self._consumed_unacked = 0
        self._opened = False
        self._refused = False
        self._remote_closed = False
        self._closed = False
        self._error: AdbwireError | None = None
        self._read_lock = threading.Lock()
        self._write_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<Stream {self.local_id} {self.service!r}>"

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ----------------------------------------------------------- called by the reader
    # (all with the connection's state lock held; each returns who to wake once it is left)

    def _on_opened(self) -> Wakeup:
        self._opened = True
        return self._readable

    def _on_refused(self) -> Wakeup:
        self._refused = True
        self._remote_closed = True
        return self._readable

    def _on_data(self, payload: Buffer) -> Wakeup:
        self._chunks.append(memoryview(payload))
        return self._readable

    def _on_writable(self) -> Wakeup:
        return self._writable

    def _on_remote_close(self) -> tuple[Wakeup, Wakeup]:
        self._remote_closed = True
        return self._readable, self._writable

    def _on_failure(self, error: AdbwireError) -> None:
        self._error = error
        self._wake_all()

    def _wake_all(self) -> None:
        self._readable.set()
        self._writable.set()

    # ----------------------------------------------------------- opening

    @property
    def refused(self) -> bool:
        return self._refused

    def _wait_open(self, deadline: Deadline) -> None:
        """Block until the device answered our OPEN (used by Connection.open_stream)."""
        while True:
            with self._lock:
                if self._opened or self._refused or self._error or self._closed:
                    break
                if deadline.expired():
                    raise deadline.error()
            self.connection._wait(self._readable, deadline.remaining())
        self._raise_if_failed()
        if self._closed:
            raise OperationCancelledError(f"opening {self.service!r} was cancelled")

    # ----------------------------------------------------------- reading

    @property
    def at_eof(self) -> bool:
        """True when the device closed the stream and every byte was read."""
        with self._lock:
            return self._remote_closed and not self._chunks

    def read(self, max_bytes: int | None = None, deadline: Deadline | None = None) -> bytes:
        """The next bytes the device sent (at most `max_bytes`); b"" once the device closed."""
        return bytes(self.read_view(max_bytes, deadline))

    def read_view(
        self, max_bytes: int | None = None, deadline: Deadline | None = None
    ) -> memoryview:
        """Like `read`, without copying: a view of the packet's own buffer, which nothing
        else holds or reuses (bulk transfers hand it straight to a file)."""
        if max_bytes is not None and max_bytes < 1:
            raise UsageError(f"max_bytes must be at least 1, got {max_bytes}")
        if not self._read_lock.acquire(True, _lock_timeout(deadline)):
            raise _expired(deadline)
        try:
            taken, acknowledge = self._take(max_bytes, deadline)
        finally:
            self._read_lock.release()
        if acknowledge:
            self.connection._acknowledge(self.local_id, acknowledge)
        return taken

    def _take(self, max_bytes: int | None, deadline: Deadline | None) -> tuple[memoryview, int]:
        """Wait for data and take up to `max_bytes` of it, with the bytes to acknowledge."""
        while True:
            with self._lock:
                if self._chunks:
                    head = self._chunks[0]
                    if max_bytes is None or max_bytes >= len(head):
                        self._chunks.popleft()
                        acknowledge = self._consumed_unacked + len(head)
                        self._consumed_unacked = 0
                        return head, acknowledge
                    self._chunks[0] = head[max_bytes:]
                    self._consumed_unacked += max_bytes
                    return head[:max_bytes], 0
                if self._closed:
                    raise OperationCancelledError(f"{self.service!r} was closed while reading")
                if self._remote_closed:
                    self._raise_if_failed()
                    return memoryview(b""), 0
                self._raise_if_failed()
                if deadline is not None and deadline.expired():
                    raise deadline.error()
            self.connection._wait(self._readable, _timeout(deadline))

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
        while chunk := self.read_view(None, deadline):
            parts.append(chunk)
        return b"".join(parts)

    # ----------------------------------------------------------- writing

    def write(self, data: Buffer, deadline: Deadline | None = None) -> None:
        """Send all of `data`, split to the peer's limits, waiting for credit as needed."""
        view = memoryview(data).cast("B")
        if not self._write_lock.acquire(True, _lock_timeout(deadline)):
            raise _expired(deadline)
        try:
            offset = 0
            while offset < len(view):
                packets: list[Packet] = []
                start = offset
                with self._lock:
                    # As many packets as the credit allows go out in one write (small
                    # payloads: 1 KiB links would otherwise cost a system call a KiB).
                    while (
                        offset < len(view)
                        and len(packets) < BATCH_PACKETS
                        and offset - start < BATCH_BYTES
                        and self.connection._can_write(self.local_id)
                    ):
                        size = self.connection._write_limit(self.local_id)
                        chunk = view[offset : offset + size]
                        packets.append(self.connection._make_write(self.local_id, chunk))
                        offset += len(chunk)
                    if not packets:
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
                if not packets:
                    self.connection._wait(self._writable, _timeout(deadline))
                    continue
                self.connection._send_many(packets)
        finally:
            self._write_lock.release()

    # ----------------------------------------------------------- closing

    def close(self) -> None:
        """Close our end (idempotent); unread data is dropped."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._chunks.clear()
        self._wake_all()
        self.connection._interrupt(self._readable, self._writable)
        self.connection._close_stream(self)

    @property
    def closed(self) -> bool:
        return self._closed

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            raise self._error


def _timeout(deadline: Deadline | None) -> float | None:
    return None if deadline is None else deadline.remaining()


def _lock_timeout(deadline: Deadline | None) -> float:
    remaining = None if deadline is None else deadline.remaining()
    return -1 if remaining is None else remaining


def _expired(deadline: Deadline | None) -> AdbwireError:
    assert deadline is not None  # without a deadline the wait cannot end early
    return deadline.error()
