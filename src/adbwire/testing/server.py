"""SimulatedDevice: a test adbd listening on loopback TCP.

    with SimulatedDevice(DeviceOptions(accept_any_key=True), userland_factory=MyUserland) as dev:
        print(dev.serial)          # "127.0.0.1:PORT", what `adb connect` takes

One accept thread, one reader thread per connection and a pool of reusable worker threads
that serve open streams, one stream per worker at a time (workers.py). stop() closes the
listener and every connection and joins every thread it started (with bounded waits); no
thread or socket outlives it. Binding to anything but loopback is allowed but warned about
loudly: the simulator trusts whoever connects.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import selectors
import socket
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Final

from adbwire.testing.auth import KeyStore
from adbwire.testing.connection import DeviceConnection
from adbwire.testing.device_files import DeviceFiles
from adbwire.testing.device_state import DeviceState, UserlandLike
from adbwire.testing.faults import Faults
from adbwire.testing.options import DeviceOptions
from adbwire.testing.packet_reader import ChunkStore, chunks_for_window
from adbwire.testing.workers import WorkerPool

__all__ = ["SimulatedDevice", "UserlandFactory", "default_userland_factory"]

log = logging.getLogger("adbwire.testing")

UserlandFactory = Callable[[DeviceFiles], UserlandLike]
JOIN_TIMEOUT: Final = 10.0


def default_userland_factory(files: DeviceFiles) -> UserlandLike:
    """The scripted Android userland with the shipped default scenario."""
    from adbwire.testing.scenario import load_scenario  # noqa: PLC0415 - optional, heavy
    from adbwire.testing.userland import Userland  # noqa: PLC0415

    userland: UserlandLike = Userland(load_scenario(), files)
    return userland


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class SimulatedDevice:
    def __init__(
        self,
        options: DeviceOptions | None = None,
        *,
        userland_factory: UserlandFactory | None = None,
        files: DeviceFiles | None = None,
        faults: Faults | None = None,
    ) -> None:
        self.options = options or DeviceOptions()
        self._own_root: tempfile.TemporaryDirectory[str] | None = None
        if files is None:
            self._own_root = tempfile.TemporaryDirectory(prefix="adbwire-device-")
            files = DeviceFiles(Path(self._own_root.name))
        self.files = files
        self._userland_factory = userland_factory or default_userland_factory
        keys = KeyStore(self.options.authorized_keys)
        self.state = DeviceState(
            options=self.options,
            files=files,
            userland=self._userland_factory(files),
            faults=faults or Faults(),
            keys=keys,
            root=self.options.root,
        )
        self._listener: socket.socket | None = None
        self._wake_r: socket.socket | None = None
        self._wake_w: socket.socket | None = None
        self._accept_thread: threading.Thread | None = None
        self._connections: set[DeviceConnection] = set()
        self._lock = threading.Lock()
        self._connections_changed = threading.Condition(self._lock)
        self._stopping = threading.Event()
        self._workers = WorkerPool()
        self._chunks = ChunkStore(
            chunks_for_window(self.options.delayed_ack_window, self.options.max_payload)
        )
        self.port = 0

    # ---- public API --------------------------------------------------------------------

    @property
    def serial(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def address(self) -> tuple[str, int]:
        return (self.options.host, self.port)

    @property
    def userland(self) -> UserlandLike:
        return self.state.userland

    @property
    def faults(self) -> Faults:
        return self.state.faults

    @property
    def keys(self) -> KeyStore:
        return self.state.keys

    @property
    def root(self) -> bool:
        return self.state.root

    @property
    def services_opened(self) -> list[str]:
        """The service names clients opened (the latest 10,000, oldest first; refused
        ones too): what `adb` or adbwire asked this device for."""
        with self.state.lock:
            return list(self.state.services)

    @property
    def connection_count(self) -> int:
        with self._lock:
            return len(self._connections)

    def wait_for_connections(self, count: int, timeout: float) -> bool:
        """Wait until exactly `count` connections are open; False if the timeout passed."""
        with self._connections_changed:
            return self._connections_changed.wait_for(
                lambda: len(self._connections) == count, timeout
            )

    def start(self, *, accept_thread: bool = True) -> SimulatedDevice:
        """Listen; unless `accept_thread` is False, accept in a thread of its own (a
        `DeviceFarm` hosting many devices accepts for all of them in one thread instead,
        calling `accept_pending` when `listener` is readable)."""
        if self._listener is not None:
            raise RuntimeError("the simulated device is already running")
        host = self.options.host
        if not _is_loopback(host):
            message = (
                f"WARNING: the simulated adbd is listening on {host}, not loopback: anyone who "
                "can reach this address can connect to it (it is a test device, not a secure one)"
            )
            print(message, file=sys.stderr, flush=True)
            log.warning(message)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        try:
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind((host, self.options.port))
            listener.listen(16)
            listener.setblocking(False)
        except OSError:
            listener.close()
            raise
        self._listener = listener
        self.port = listener.getsockname()[1]
        if not accept_thread:
            return self
        self._wake_r, self._wake_w = socket.socketpair()
        self._accept_thread = threading.Thread(
            target=self._accept_loop, name=f"adbd-sim accept :{self.port}", daemon=True
        )
        self._accept_thread.start()
        return self

    def stop(self) -> None:
        """Close every connection and the listener; join every thread."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        if self._wake_w is not None:
            with contextlib.suppress(OSError):
                self._wake_w.send(b"x")
        if self._accept_thread is not None:
            self._accept_thread.join(JOIN_TIMEOUT)
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            connection.close()
        for connection in connections:
            connection.reader.join(JOIN_TIMEOUT)
            if connection.reader.is_alive():
                log.warning("a connection thread of the simulated device did not stop")
        self._workers.stop(JOIN_TIMEOUT)
        self._chunks.clear()
        for sock in (self._listener, self._wake_r, self._wake_w):
            if sock is not None:
                sock.close()
        if self._own_root is not None:
            self._own_root.cleanup()

    def __enter__(self) -> SimulatedDevice:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def authorize_key(self, key_text: str) -> None:
        """Trust a public key from now on (adb_keys); a connection waiting on it comes online."""
        self.state.keys.authorize(key_text)
        self._notify_authorized(key_text)

    def approve_pending_keys(self) -> list[str]:
        """The user taps "Allow" on every prompt shown so far; returns the keys allowed."""
        approved = self.state.keys.take_pending()
        for key_text in approved:
            self.authorize_key(key_text)
        return approved

    @property
    def pending_keys(self) -> list[str]:
        return self.state.keys.pending

    def drop_connections(self) -> None:
        """Cut every current connection (as if the cable were pulled); keep listening."""
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            connection.close()
        for connection in connections:
            connection.reader.join(JOIN_TIMEOUT)

    # ---- internals ---------------------------------------------------------------------

    def _notify_authorized(self, key_text: str) -> None:
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            connection.on_key_authorized(key_text)

    def _accept_loop(self) -> None:
        assert self._listener is not None
        assert self._wake_r is not None
        with selectors.DefaultSelector() as selector:
            selector.register(self._listener, selectors.EVENT_READ)
            selector.register(self._wake_r, selectors.EVENT_READ)
            while not self._stopping.is_set():
                for key, _events in selector.select():
                    if key.fileobj is self._wake_r or self._stopping.is_set():
                        return
                    self._accept_one()

    @property
    def listener(self) -> socket.socket | None:
        """The listening socket (non-blocking) once started."""
        return self._listener

    def accept_pending(self) -> None:
        """Accept one waiting connection, if any (for a farm's shared accept thread)."""
        if not self._stopping.is_set():
            self._accept_one()

    def _accept_one(self) -> None:
        assert self._listener is not None
        try:
            sock, _peer = self._listener.accept()
        except (BlockingIOError, InterruptedError):
            return
        except OSError as error:
            log.warning("simulated adbd: accept failed: %s", error)
            return
        sock.setblocking(True)
        if not self.state.available or self.state.faults.turns_away():
            sock.close()  # rebooting (or adbd restarting): nobody answers
            return
        try:
            connection = DeviceConnection(
                sock, self.state, self._forget, self._workers, self._chunks
            )
        except OSError:
            sock.close()
            return
        with self._lock:
            if self._stopping.is_set():
                sock.close()
                return
            self._connections.add(connection)
            self._connections_changed.notify_all()
        connection.start()

    def _forget(self, connection: DeviceConnection) -> None:
        with self._lock:
            self._connections.discard(connection)
            self._connections_changed.notify_all()
