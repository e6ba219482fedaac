"""Device-side targets for forwarding tests: loopback TCP servers with one job each."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Behaviour = Callable[[socket.socket], None]


def echo(conn: socket.socket) -> None:
    while data := conn.recv(256 * 1024):
        conn.sendall(data)


def speak_then_close(message: bytes) -> Behaviour:
    def behave(conn: socket.socket) -> None:
        conn.sendall(message)

    return behave


class LoopbackServer:
    def __init__(self, behaviour: Behaviour) -> None:
        self._behaviour = behaviour
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self.accepted = 0
        self.finished = threading.Semaphore(0)
        """Released once per connection whose handler has returned."""
        self._threads: list[threading.Thread] = []
        self._conns: list[socket.socket] = []
        self._acceptor = threading.Thread(target=self._accept, daemon=True)
        self._acceptor.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            self.accepted += 1
            self._conns.append(conn)
            thread = threading.Thread(target=self._handle, args=(conn,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(30)
        with contextlib.suppress(OSError), conn:
            self._behaviour(conn)
        self.finished.release()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        for conn in self._conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        self._acceptor.join(10)
        for thread in self._threads:
            thread.join(10)


@contextmanager
def loopback_server(behaviour: Behaviour) -> Iterator[LoopbackServer]:
    server = LoopbackServer(behaviour)
    try:
        yield server
    finally:
        server.close()


def recv_all(sock: socket.socket) -> bytes:
    parts = []
    while chunk := sock.recv(256 * 1024):
        parts.append(chunk)
    return b"".join(parts)


def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Poll a condition that has no event to wait on (bounded)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.01)
    return condition()
