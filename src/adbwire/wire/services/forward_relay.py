"""One forwarded connection: a host socket and a device stream, relayed both ways.

Two threads, one per direction, each holding at most one chunk, so memory is bounded
whatever moves through; a side that stops reading holds the other back (the stream's
flow control reaches the device, the socket's reaches the client).

Endings, as adb does them (sockets.cpp): when the client closes its side, the device
stream is closed (ADB streams cannot half-close). When the device closes the stream, what
it sent is delivered, then the client sees end-of-file (SHUT_WR); the client may keep
sending for `LINGER_SECONDS` (its bytes are read and dropped, so closing never resets the
connection under data still in flight) before the socket is closed.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
from collections.abc import Callable

from adbwire.errors import AdbwireError, DisconnectedError, StreamRefusedError
from adbwire.wire.connection import Connection
from adbwire.wire.operation import Operation
from adbwire.wire.stream import Stream

log = logging.getLogger(__name__)

RELAY_CHUNK = 64 * 1024
LINGER_SECONDS = 2.0
JOIN_SECONDS = 5.0


class Relay:
    """Relays one accepted client; `start()` opens the device stream in its own thread."""

    def __init__(
        self,
        connection: Connection,
        client: socket.socket,
        remote: str,
        *,
        label: str,
        open_timeout: float | None,
        on_done: Callable[[Relay], None],
        on_connection_lost: Callable[[AdbwireError], None],
    ) -> None:
        self._connection = connection
        self._client = client
        self.remote = remote
        self._label = label
        self._open_timeout = open_timeout
        self._on_done = on_done
        self._on_connection_lost = on_connection_lost
        self._lock = threading.Lock()
        self._stream: Stream | None = None
        self._closing = False
        self._operation = Operation()
        """Cancels an OPEN still waiting for the device when the relay is closed."""
        self._upstream_done = threading.Event()
        self._upstream = threading.Thread(
            target=self._run_upstream, name=f"adbwire-forward-up {label}", daemon=True
        )
        self._downstream: threading.Thread | None = None

    def start(self) -> None:
        self._upstream.start()

    def close(self) -> None:
        """Stop relaying now: the device stream is closed and the client disconnected."""
        with self._lock:
            self._closing = True
            stream = self._stream
        self._operation.cancel()
        if stream is not None:
            stream.close()
        with contextlib.suppress(OSError):
            self._client.shutdown(socket.SHUT_RDWR)

    def join(self, timeout: float = JOIN_SECONDS) -> None:
        if self._upstream.is_alive() and self._upstream is not threading.current_thread():
            self._upstream.join(timeout)

    # ----------------------------------------------------------- host -> device

    def _run_upstream(self) -> None:
        try:
            stream = self._open()
            if stream is not None:
                self._downstream = threading.Thread(
                    target=self._run_downstream,
                    args=(stream,),
                    name=f"adbwire-forward-down {self._label}",
                    daemon=True,
                )
                self._downstream.start()
                self._pump_up(stream)
                self._upstream_done.set()
                stream.close()
                self._downstream.join(JOIN_SECONDS)
        except Exception:  # a bug here must not kill the listener or leak the socket
            log.exception("forward %s: relay failed", self._label)
        finally:
            self._upstream_done.set()
            with contextlib.suppress(OSError):
                self._client.close()
            self._on_done(self)

    def _open(self) -> Stream | None:
        try:
            with self._operation.bound():
                stream = self._connection.open_stream(self.remote, self._open_timeout)
        except StreamRefusedError:
            log.warning(
                "forward %s: the device refused %r (nothing listening there?); "
                "closed this client connection",
                self._label,
                self.remote,
            )
            return None
        except DisconnectedError as exc:
            log.warning("forward %s: the device is gone: %s", self._label, exc)
            self._on_connection_lost(exc)
            return None
        except AdbwireError as exc:
            if not self._closing:
                log.warning("forward %s: cannot open %r: %s", self._label, self.remote, exc)
            return None
        with self._lock:
            if self._closing:
                stream.close()
                return None
            self._stream = stream
        return stream

    def _pump_up(self, stream: Stream) -> None:
        draining = False
        while True:
            try:
                data = self._client.recv(RELAY_CHUNK)
            except OSError:
                return
            if not data:
                return
            if draining:
                continue
            try:
                stream.write(data)
            except AdbwireError:
                # The device side ended: keep reading (and dropping) until the client
                # closes or the linger time is up, so the close does not reset the
                # connection before the client has read what the device sent.
                draining = True

    # ----------------------------------------------------------- device -> host

    def _run_downstream(self, stream: Stream) -> None:
        try:
            while True:
                try:
                    data = stream.read_view(None)
                except AdbwireError:
                    break
                if not data:
                    break
                try:
                    self._client.sendall(data)
                except OSError:
                    break
        finally:
            with contextlib.suppress(OSError):
                self._client.shutdown(socket.SHUT_WR)
            if not self._upstream_done.wait(LINGER_SECONDS):
                with contextlib.suppress(OSError):
                    self._client.shutdown(socket.SHUT_RD)
