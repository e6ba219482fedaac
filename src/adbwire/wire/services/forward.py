"""Port forwarding (`adb forward`): host loopback listeners whose connections reach device
services.

Each forward listens on 127.0.0.1 only (never another interface); `tcp:0` lets the OS
pick a free port, reported in `Forward.local`. Every accepted client gets its own device
stream to the remote service, relayed both ways until either side closes
(`forward_relay`). A remote service the device refuses (nothing listening on that port,
no such socket) closes that one client, with the reason logged; the forward stays.
A lost device connection ends every forward (`Forward.error` says why).

There is no adb server: forwards live in this process, as long as the `PortForwarder`
that made them (which also lists and removes them).
"""

from __future__ import annotations

import contextlib
import logging
import re
import selectors
import socket
import threading

from adbwire.errors import AdbwireError, DisconnectedError, UsageError
from adbwire.wire.connection import Connection
from adbwire.wire.services.forward_relay import JOIN_SECONDS, Relay
from adbwire.wire.timeouts import Deadline

log = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"
DEFAULT_MAX_CONNECTIONS = 64
CONNECTION_CHECK_SECONDS = 0.5

_REMOTE_PATTERNS = {
    "tcp": re.compile(r"[0-9]{1,5}"),
    "localabstract": re.compile(r".+"),
    "localreserved": re.compile(r".+"),
    "localfilesystem": re.compile(r".+"),
    "jdwp": re.compile(r"[0-9]{1,10}"),
}


def parse_local(spec: str) -> int:
    """The port of a local spec `tcp:PORT` (0 picks a free port)."""
    kind, _, value = spec.partition(":")
    if kind != "tcp":
        raise UsageError(f"local {spec!r}: only tcp:PORT can be forwarded from this host")
    if not value.isdigit() or int(value) > 65535:
        raise UsageError(f"local {spec!r}: expected tcp:PORT with PORT from 0 to 65535")
    return int(value)


def check_remote(spec: str) -> str:
    """Validate a device-side spec: tcp:PORT, localabstract:NAME, localreserved:NAME,
    localfilesystem:PATH or jdwp:PID."""
    kind, _, value = spec.partition(":")
    pattern = _REMOTE_PATTERNS.get(kind)
    if pattern is None:
        kinds = ", ".join(f"{name}:…" for name in _REMOTE_PATTERNS)
        raise UsageError(f"remote {spec!r}: expected one of {kinds}")
    if "\0" in value or not pattern.fullmatch(value):
        raise UsageError(f"remote {spec!r}: bad {kind} value {value!r}")
    if kind == "tcp" and not 0 < int(value) <= 65535:
        raise UsageError(f"remote {spec!r}: port must be from 1 to 65535")
    return spec


class Forward:
    """One listener; `local` is the resolved spec (tcp:0 becomes the real port)."""

    def __init__(
        self,
        connection: Connection,
        listener: socket.socket,
        remote: str,
        *,
        max_connections: int,
        open_timeout: float | None,
    ) -> None:
        self.port: int = listener.getsockname()[1]
        self.local = f"tcp:{self.port}"
        self._remote = remote
        self._connection = connection
        self._listener = listener
        self._max_connections = max_connections
        self._open_timeout = open_timeout
        self._lock = threading.Lock()
        self._relays: set[Relay] = set()
        self._closed = threading.Event()
        self._error: AdbwireError | None = None
        self._wake_reader, self._wake_writer = socket.socketpair()
        self._acceptor = threading.Thread(
            target=self._accept_loop, name=f"adbwire-forward {self.local}", daemon=True
        )
        self._acceptor.start()

    def __repr__(self) -> str:
        return f"<Forward {self.local} -> {self.remote}>"

    @property
    def remote(self) -> str:
        with self._lock:
            return self._remote

    def retarget(self, remote: str) -> None:
        """Send new connections to another device service (existing ones go on)."""
        with self._lock:
            self._remote = check_remote(remote)

    @property
    def active_connections(self) -> int:
        with self._lock:
            return len(self._relays)

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    @property
    def error(self) -> AdbwireError | None:
        """Why the forward stopped on its own (the device went away), else None."""
        return self._error

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the forward is closed (True) or `timeout` passes (False)."""
        return self._closed.wait(timeout)

    def close(self) -> None:
        """Stop listening and end every relayed connection (idempotent)."""
        self._shut_down(None)

    # ----------------------------------------------------------- internals

    def _shut_down(self, error: AdbwireError | None) -> None:
        with self._lock:
            if self._closed.is_set():
                return
            self._error = error
            self._closed.set()
            relays = list(self._relays)
        with contextlib.suppress(OSError):
            self._wake_writer.send(b"x")
        if self._acceptor is not threading.current_thread():
            self._acceptor.join(JOIN_SECONDS)
        for relay in relays:
            relay.close()
        for relay in relays:
            relay.join()
        self._listener.close()
        self._wake_reader.close()
        self._wake_writer.close()

    def _accept_loop(self) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(self._listener, selectors.EVENT_READ)
            selector.register(self._wake_reader, selectors.EVENT_READ)
            while not self._closed.is_set():
                ready = {key.fileobj for key, _ in selector.select()}
                if self._closed.is_set() or self._wake_reader in ready:
                    return
                try:
                    client, _address = self._listener.accept()
                except BlockingIOError:
                    continue
                except OSError as exc:
                    log.error("forward %s: accepting failed: %s", self.local, exc)
                    threading.Thread(target=self._shut_down, args=(None,), daemon=True).start()
                    return
                self._serve(client)

    def _serve(self, client: socket.socket) -> None:
        client.setblocking(True)
        with contextlib.suppress(OSError):
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self._lock:
            if len(self._relays) >= self._max_connections:
                log.warning(
                    "forward %s: %d connections already open; refused a new one",
                    self.local,
                    len(self._relays),
                )
                client.close()
                return
            relay = Relay(
                self._connection,
                client,
                self._remote,
                label=f"{self.local}->{self._remote}",
                open_timeout=self._open_timeout,
                on_done=self._relay_done,
                on_connection_lost=self._connection_lost,
            )
            self._relays.add(relay)
        relay.start()

    def _relay_done(self, relay: Relay) -> None:
        with self._lock:
            self._relays.discard(relay)

    def _connection_lost(self, error: AdbwireError) -> None:
        threading.Thread(target=self._shut_down, args=(error,), daemon=True).start()


class PortForwarder:
    """The forwards of one device connection: create, list, remove, close them all."""

    def __init__(
        self,
        connection: Connection,
        *,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        open_timeout: float | None = None,
    ) -> None:
        if max_connections < 1:
            raise UsageError("max_connections must be at least 1")
        self.connection = connection
        self._max_connections = max_connections
        self._open_timeout = open_timeout
        self._lock = threading.Lock()
        self._forwards: dict[int, Forward] = {}
        self._closed = False

    @property
    def alive(self) -> bool:
        """True until closed or until its connection failed."""
        return not self._closed and self.connection.failure is None

    def forward(self, local: str, remote: str, *, rebind: bool = True) -> Forward:
        """Listen on `local` (tcp:PORT on 127.0.0.1) and relay each client to `remote`.

        Like adb, forwarding a port this forwarder already listens on retargets it
        unless `rebind` is False (then it is a UsageError).
        """
        port = parse_local(local)
        check_remote(remote)
        if self.connection.failure is not None:
            raise self.connection.failure
        with self._lock:
            if self._closed:
                raise UsageError("this PortForwarder is closed")
            existing = self._forwards.get(port) if port else None
            if existing is not None and not existing.closed:
                if not rebind:
                    raise UsageError(f"cannot rebind existing socket {local}")
                existing.retarget(remote)
                return existing
            try:
                listener = socket.create_server((LOOPBACK, port))
            except OSError as exc:
                raise UsageError(f"cannot listen on {local}: {exc.strerror or exc}") from None
            listener.setblocking(False)
            forward = Forward(
                self.connection,
                listener,
                remote,
                max_connections=self._max_connections,
                open_timeout=self._open_timeout,
            )
            self._forwards[forward.port] = forward
        log.info("forwarding %s -> %s", forward.local, remote)
        return forward

    def list_forwards(self) -> list[Forward]:
        """The open forwards, by local port."""
        with self._lock:
            return [f for _, f in sorted(self._forwards.items()) if not f.closed]

    def remove(self, local: str) -> None:
        port = parse_local(local)
        with self._lock:
            forward = self._forwards.pop(port, None)
        if forward is None or forward.closed:
            raise UsageError(f"listener {local!r} not found")
        forward.close()

    def remove_all(self) -> None:
        with self._lock:
            forwards = list(self._forwards.values())
            self._forwards.clear()
        for forward in forwards:
            forward.close()

    def close(self) -> None:
        """Close every forward; no new ones can be made."""
        with self._lock:
            self._closed = True
        self.remove_all()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until no forward is open (e.g. the device went away): True, or False
        when `timeout` passes first. A lost connection is noticed within half a second
        even when no client is connected."""
        deadline = Deadline(timeout, "waiting for the forwards to end")
        while True:
            failure = self.connection.failure
            open_forwards = self.list_forwards()
            if failure is not None:
                for forward in open_forwards:
                    forward._shut_down(_as_disconnect(failure))
                return True
            if not open_forwards:
                return True
            remaining = deadline.remaining()
            if remaining is not None and remaining <= 0:
                return False
            step = (
                CONNECTION_CHECK_SECONDS
                if remaining is None
                else min(remaining, CONNECTION_CHECK_SECONDS)
            )
            open_forwards[0].wait(step)

    def __enter__(self) -> PortForwarder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _as_disconnect(error: AdbwireError) -> AdbwireError:
    if isinstance(error, DisconnectedError):
        return error
    return DisconnectedError(f"the device connection failed: {error}")
