"""One ADB stream on the device side: inbound queue, outbound queue, flow control, close.

Flow control follows adbd (sockets.cpp):

- without delayed_ack, one WRTE is in flight per direction: we send the next WRTE only after
  the host's OKAY, and we OKAY the host's WRTE at once unless more than max_payload bytes are
  still unconsumed, in which case the OKAY waits until the service has read them;
- with delayed_ack, OPEN arg1 is how many bytes we may send before any OKAY; every host OKAY
  carries a le32 count that adds to it; we send while the count is positive. Our OKAY to OPEN
  grants the host `delayed_ack_window` bytes, and we OKAY with the number of bytes the
  service consumed (batched, and always when the queue runs empty).

Services run in their own thread and use read/read_exact/read_into/write/close; the
connection's reader thread calls the on_* methods. Only one thread sends WRTEs of a stream at
a time (the "sending" token), so packets leave in the order their bytes were written, and the
reader thread never blocks on a busy writer.
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final, Protocol

from adbwire.testing.byte_queue import ByteQueue
from adbwire.wire.packets import A_CLSE, A_OKAY, A_WRTE

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

    from adbwire.testing.faults import Faults

__all__ = ["ConnectionGone", "DeviceStream", "OutgoingPacket", "PacketSink", "StreamClosed"]

ACK_BATCH: Final = 256 * 1024
_LE32 = struct.Struct("<I")
_STALL_POLL: Final = 0.05


class StreamClosed(Exception):
    """The host closed the stream (or the connection is gone): stop serving it."""


class ConnectionGone(StreamClosed):
    """The connection to the host failed while sending."""


OutgoingPacket = tuple[int, int, int, "ReadableBuffer"]
"""command, arg0, arg1, payload"""


class PacketSink(Protocol):
    def send_packet(
        self, command: int, arg0: int, arg1: int, payload: ReadableBuffer = b""
    ) -> None: ...

    def send_packets(self, packets: Sequence[OutgoingPacket]) -> None: ...

    def forget_stream(self, local_id: int) -> None: ...


class DeviceStream:
    def __init__(
        self,
        sink: PacketSink,
        local_id: int,
        remote_id: int,
        service: str,
        *,
        max_payload: int,
        send_window: int | None,
        faults: Faults,
    ) -> None:
        self.local_id = local_id
        self.remote_id = remote_id
        self.service = service
        self.max_payload = max_payload
        self.delayed_ack = send_window is not None
        self._sink = sink
        self._faults = faults
        self._lock = threading.RLock()  # `with self._lock` skips the Condition's Python frame
        self._cond: threading.Condition | None = None
        """Made by the first wait: most streams (a short command's) never wait."""
        self._waiters = 0
        self._inbox = ByteQueue()
        self._okay_owed = False
        self._unacked = 0
        self._outbox = ByteQueue()
        self._in_flight = False
        self._available = send_window or 0
        self._sending = False
        self._written = 0
        self._closed_local = False
        self._closed_remote = False
        self._aborted = False

    def __repr__(self) -> str:
        return f"DeviceStream({self.local_id}<->{self.remote_id} {self.service!r})"

    @property
    def cancelled(self) -> bool:
        """The host closed the stream or the connection went away."""
        return self._closed_remote or self._aborted

    @property
    def closed(self) -> bool:
        return self._closed_local or self.cancelled

    def _condition(self) -> threading.Condition:
        cond = self._cond
        if cond is None:
            cond = self._cond = threading.Condition(self._lock)
        return cond

    def _wait(self) -> None:
        """Condition.wait, counted so `_wake` can skip notify_all when nobody waits."""
        cond = self._condition()
        self._waiters += 1
        try:
            cond.wait()
        finally:
            self._waiters -= 1

    def _wake(self) -> None:
        if self._waiters:
            self._condition().notify_all()

    # ---- inbound: called by the connection's reader thread -----------------------------

    def on_write(self, payload: bytes | memoryview) -> None:
        send_okay = False
        with self._lock:
            if self.closed:
                return
            if payload:
                self._inbox.append(memoryview(payload))
                self._wake()
            if not self.delayed_ack:
                if self._inbox.size <= self.max_payload:
                    send_okay = True
                else:
                    self._okay_owed = True
        if send_okay:
            self._sink.send_packet(A_OKAY, self.local_id, self.remote_id)

    def on_okay(self, acked: int | None) -> None:
        with self._lock:
            if self.delayed_ack != (acked is not None):
                return  # adbd logs "delayed ack mismatch" and ignores the packet
            if acked is None:
                self._in_flight = False
            else:
                self._available += acked
            self._wake()
        self._pump()

    def on_remote_close(self) -> None:
        with self._lock:
            already_closed = self._closed_local
            self._closed_remote = True
            self._closed_local = True
            # What the host wrote before its CLSE is still read, as adbd flushes a closing
            # socket's queue to the fd (local_socket_close); nothing more can be sent.
            self._outbox.clear()
            self._wake()
        if not already_closed:
            self._sink.send_packet(A_CLSE, self.local_id, self.remote_id)

    def abort(self) -> None:
        with self._lock:
            self._aborted = True
            self._drop_queues()

    def _drop_queues(self) -> None:
        self._inbox.clear()
        self._outbox.clear()
        self._wake()

    # ---- reading: called by the service thread ----------------------------------------

    def read(self, max_bytes: int = 65536) -> bytes:
        """Up to max_bytes of what the host sent; b"" once the host closed the stream."""
        with self._lock:
            self._wait_for_input()
            taken = self._inbox.take(max_bytes)
        data = b"".join(taken)
        self._after_consume(len(data))
        return data

    def read_exact(self, size: int) -> bytes:
        """Exactly `size` bytes, or StreamClosed if the stream ends first."""
        parts: list[memoryview] = []
        self.read_into(size, parts.append)
        return b"".join(parts)

    def read_into(self, size: int, consume: Callable[[memoryview], object]) -> None:
        """Hand exactly `size` bytes to `consume` piece by piece, without joining them."""
        remaining = size
        while remaining:
            with self._lock:
                self._wait_for_input()
                if not self._inbox:
                    raise StreamClosed(f"{self.service}: stream ended {remaining} bytes short")
                taken = self._inbox.take(remaining)
            count = sum(len(piece) for piece in taken)
            remaining -= count
            for index in range(len(taken)):
                consume(taken[index])
            taken.clear()  # keep no payload chunk busy while waiting for more input
            self._after_consume(count)

    def _wait_for_input(self) -> None:
        while not self._inbox and not self.closed:
            self._wait()

    def _after_consume(self, count: int) -> None:
        ack: int | None = None
        send_okay = False
        with self._lock:
            if self.closed or count == 0:
                return
            if self.delayed_ack:
                self._unacked += count
                if self._unacked >= ACK_BATCH or not self._inbox:
                    ack, self._unacked = self._unacked, 0
            elif self._okay_owed and self._inbox.size <= self.max_payload:
                self._okay_owed = False
                send_okay = True
        if ack is not None:
            self._sink.send_packet(A_OKAY, self.local_id, self.remote_id, _LE32.pack(ack))
        elif send_okay:
            self._sink.send_packet(A_OKAY, self.local_id, self.remote_id)

    # ---- writing: called by the service thread ----------------------------------------

    def write(self, data: ReadableBuffer) -> None:
        """Queue bytes for the host; blocks while max_payload bytes are already queued.

        The stream keeps a reference to `data` until it is sent: do not modify it."""
        view = memoryview(data).cast("B")
        if not view:
            return
        self._wait_while_stalled()
        if self._faults.trickles(self.service):
            self._trickle(view)
            return
        self._queue(view)

    def _queue(self, view: memoryview) -> None:
        with self._lock:
            while self._outbox.size >= self.max_payload and not self.closed:
                self._wait()
            if self.closed:
                raise StreamClosed(f"{self.service}: the host closed the stream")
            self._written += len(view)
            # Nothing queued or being sent, and flow control lets it go: it is the next WRTE.
            at_once = (
                not self._outbox
                and not self._sending
                and len(view) <= self.max_payload
                and self._may_send()
            )
            if at_once:
                self._sending = True
                self._charge(len(view))
            else:
                self._outbox.append(view)
        if at_once:
            self._pump(view)
        else:
            self._pump()

    def _trickle(self, view: memoryview) -> None:
        """Faults.trickle: one byte per WRTE, the fault's interval apart, until closed."""
        for index in range(len(view)):
            with self._lock:
                self._waiters += 1
                try:
                    self._condition().wait_for(lambda: self.closed, self._faults.trickle_interval)
                finally:
                    self._waiters -= 1
            self._queue(view[index : index + 1])

    def _wait_while_stalled(self) -> None:
        while self._faults.stalls(self.service, self._written) and not self.closed:
            self._faults.wait_released(_STALL_POLL)

    def _pump(self, first: ReadableBuffer | None = None) -> None:
        """Send whatever flow control allows; whoever holds the token re-checks before leaving.
        `first`: a payload the caller already took (and the token with it)."""
        chunk = first
        if chunk is None:
            with self._lock:
                if self._sending:
                    return
                self._sending = True
        try:
            while True:
                if chunk is None:
                    with self._lock:
                        chunk = self._take_sendable()
                        if chunk is None:
                            self._sending = False
                            self._wake()
                            return
                self._sink.send_packet(A_WRTE, self.local_id, self.remote_id, chunk)
                chunk = None
        except BaseException:
            with self._lock:
                self._sending = False
                self._wake()
            raise

    def _may_send(self) -> bool:
        """Flow control lets a WRTE go now (lock held)."""
        return self._available > 0 if self.delayed_ack else not self._in_flight

    def _charge(self, size: int) -> None:
        """A WRTE of `size` bytes goes now: count it against flow control (lock held)."""
        if self.delayed_ack:
            self._available -= size
        else:
            self._in_flight = True

    def _take_sendable(self) -> ReadableBuffer | None:
        if not self._outbox or self.cancelled or not self._may_send():
            return None
        chunk, size = self._outbox.take_payload(self.max_payload)
        self._charge(size)
        self._wake()
        return chunk

    def write_and_close(self, data: ReadableBuffer) -> None:
        """write(data), then close(). When flow control lets `data` go at once (nothing else
        queued), its WRTE and the CLSE leave in one system call: the same packets, no delay."""
        view = memoryview(data).cast("B")
        self._wait_while_stalled()
        with self._lock:
            fused = (
                not self._faults.trickles(self.service)
                and 0 < len(view) <= self.max_payload
                and not self._outbox
                and not self._sending
                and not self.closed
                and self._may_send()
            )
            if fused:
                self._written += len(view)
                self._charge(len(view))
                self._closed_local = True
                self._drop_queues()
        if not fused:
            self.write(view)
            self.close()
            return
        try:
            self._sink.send_packets(
                (
                    (A_WRTE, self.local_id, self.remote_id, view),
                    (A_CLSE, self.local_id, self.remote_id, b""),
                )
            )
        finally:
            self._sink.forget_stream(self.local_id)

    def close(self, *, keep_input: bool = False) -> None:
        """Send what is queued, then CLSE (without waiting for the last OKAY, like adbd).

        With `keep_input`, what the host already sent stays readable (adbd's closing list: a
        socket whose fd reached its end still writes its queued packets to the fd)."""
        with self._lock:
            while (self._outbox or self._sending) and not self.cancelled:
                self._wait()
            if self._closed_local:
                return
            self._closed_local = True
            if keep_input:
                self._outbox.clear()
                self._wake()
            else:
                self._drop_queues()
        try:
            self._sink.send_packet(A_CLSE, self.local_id, self.remote_id)
        except StreamClosed:
            pass
        finally:
            self._sink.forget_stream(self.local_id)
