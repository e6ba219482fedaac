"""A file descriptor another thread can make readable: it wakes a caller blocked in `poll`
on a socket (`TcpTransport.interrupt_read`).

On Linux an eventfd (one descriptor); elsewhere a socket pair (two). A device farm holds one
per TCP connection, so the descriptor count matters.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading


class Doorbell:
    """Ring from any thread; the poller sees `fileno()` readable until `drain`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        """Held to ring, drain and close: neither may reach a descriptor number that closing
        freed and the process reused."""
        self._event_fd: int | None = None
        self._pair: tuple[socket.socket, socket.socket] | None = None
        if hasattr(os, "eventfd"):
            self._event_fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        else:
            inside, outside = socket.socketpair()
            inside.setblocking(False)
            outside.setblocking(False)
            self._pair = (inside, outside)

    def fileno(self) -> int:
        """-1 once closed, as a closed socket's."""
        if self._event_fd is not None:
            return self._event_fd
        return -1 if self._pair is None else self._pair[0].fileno()

    def ring(self) -> None:
        """Never blocks: a ring already pending is enough."""
        with self._lock, contextlib.suppress(OSError):  # the pair is full: one is pending
            if self._event_fd is not None:
                os.eventfd_write(self._event_fd, 1)
            elif self._pair is not None:
                self._pair[1].send(b"\0")

    def drain(self) -> None:
        """Forget every ring so far."""
        with self._lock, contextlib.suppress(OSError):  # BlockingIOError: none was pending
            if self._event_fd is not None:
                os.eventfd_read(self._event_fd)
            elif self._pair is not None:
                self._pair[0].recv(64)

    def close(self) -> None:
        with self._lock:
            fd, self._event_fd = self._event_fd, None
            pair, self._pair = self._pair, None
        if fd is not None:
            os.close(fd)
        for end in pair or ():
            end.close()
