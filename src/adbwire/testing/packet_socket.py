"""The byte side of one device connection: packets out (header + payload in one sendmsg,
under a lock), exact reads in, byte counters, and the connection-level faults.

Dropping a connection sends FIN after what was already sent and lets the reader discard what
still arrives until the host closes: closing a socket that holds unread data sends RST, and an
RST can destroy data the host has not read yet, which would make faults non-deterministic.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import TYPE_CHECKING

from adbwire.testing.faults import Faults
from adbwire.testing.stream import ConnectionGone
from adbwire.wire import packets as P

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["PacketSocket"]


class PacketSocket:
    def __init__(self, sock: socket.socket, faults: Faults, stopped: threading.Event) -> None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = sock
        self._faults = faults
        self._stopped = stopped
        self._write_lock = threading.Lock()
        self.with_checksum = True
        self.dead = False
        self.sent = 0
        self.received = 0

    def send_packet(
        self, command: int, arg0: int, arg1: int, payload: ReadableBuffer = b""
    ) -> None:
        view = memoryview(payload).cast("B")
        delay = self._faults.response_delay
        if delay > 0:
            self._stopped.wait(delay)
        header = P.Packet(command, arg0, arg1, view).header(with_checksum=self.with_checksum)
        parts = [memoryview(header), view] if view else [memoryview(header)]
        total = P.HEADER_SIZE + len(view)
        with self._write_lock:
            if self.dead:
                raise ConnectionGone("the connection is closed")
            limit = self._faults.drop_after_sent_bytes
            try:
                if limit is not None and self.sent + total > limit:
                    self._send_truncated(parts, max(0, limit - self.sent))
                    raise ConnectionGone("fault injected: connection dropped while sending")
                _send_all(self.sock, parts)
                self.sent += total
            except OSError as error:
                self.dead = True
                self.shutdown(socket.SHUT_RDWR)
                raise ConnectionGone(f"sending failed: {error}") from error

    def _send_truncated(self, parts: list[memoryview], allowed: int) -> None:
        data = b"".join(parts)[:allowed]
        if data:
            self.sock.sendall(data)
        self.sent += len(data)
        self._drop_locked()

    def recv_into(self, view: memoryview) -> bool:
        """Fill `view` completely; False at end of stream."""
        got = 0
        while got < len(view):
            count = self.sock.recv_into(view[got:])
            if count == 0:
                return False
            got += count
        self.received += got
        limit = self._faults.drop_after_received_bytes
        if limit is not None and self.received >= limit and not self.dead:
            self.drop()
        return True

    def drop(self) -> None:
        """End the connection from our side after what was sent (FIN, not RST)."""
        with self._write_lock:
            self._drop_locked()

    def _drop_locked(self) -> None:
        self.dead = True
        self.shutdown(socket.SHUT_WR)

    def close_now(self) -> None:
        """Wake the reader and stop everything (the device is stopping)."""
        self.dead = True
        self.shutdown(socket.SHUT_RDWR)

    def shutdown(self, how: int) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(how)

    def close(self) -> None:
        self.sock.close()


def _send_all(sock: socket.socket, parts: list[memoryview]) -> None:
    while parts:
        sent = sock.sendmsg(parts)
        while sent:
            head = parts[0]
            if sent >= len(head):
                sent -= len(head)
                parts.pop(0)
            else:
                parts[0] = head[sent:]
                sent = 0
