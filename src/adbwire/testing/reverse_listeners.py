"""adbd's reverse listeners: device-side ports whose connections become streams to the host.

`adb reverse tcp:D tcp:H` asks adbd (the `reverse:` service) to listen on the device's port
D; each connection made to it there (an app, `nc localhost D`) makes adbd OPEN a stream to
the host naming `tcp:H`, which the host relays to its own port H. The simulated device's
loopback is the machine's, so a listener is a real socket on 127.0.0.1:D.

As in adbd (adb.cpp, listeners.cpp) there is one table for the device: every connection
lists and removes every listener, a listener belongs to the connection that made it (its
streams go there, and it goes when that connection ends), and the texts of the replies
are adbd's.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from adbwire.testing.socket_relay import relay
from adbwire.testing.stream import DeviceStream

__all__ = ["HostLink", "ListenerError", "ReverseTable"]

log = logging.getLogger("adbwire.testing")

OPEN_TIMEOUT: Final = 10.0
"""How long a device-side connection waits for the host to answer the OPEN."""
ACCEPT_POLL: Final = 0.2
JOIN_SECONDS: Final = 5.0


@dataclass(frozen=True, eq=False)
class HostLink:
    """One connection to the host, as a listener needs it."""

    name: str
    """The transport's name in listings (adbd's TCP transports are `host-FD`)."""
    open_to_host: Callable[[str, float], DeviceStream | None]


class ListenerError(Exception):
    """adbd's FAIL text for a listener request."""


class _Listener:
    def __init__(self, local: str, connect_to: str, link: HostLink, server: socket.socket) -> None:
        self.local = local
        self.connect_to = connect_to
        self.link = link
        self._server = server
        self._closed = threading.Event()
        self._thread = threading.Thread(
            target=self._accept_loop, name=f"adbd-sim reverse {local}", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        """Stop listening before returning (a connect after this is refused)."""
        self._closed.set()
        with contextlib.suppress(OSError):
            self._server.shutdown(socket.SHUT_RDWR)  # wakes accept() on Linux
        if self._thread is not threading.current_thread():
            self._thread.join(JOIN_SECONDS)
        self._server.close()

    def _accept_loop(self) -> None:
        while not self._closed.is_set():
            try:
                client, _address = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(
                target=self._serve,
                args=(client,),
                name=f"adbd-sim reverse {self.local}",
                daemon=True,
            ).start()

    def _serve(self, client: socket.socket) -> None:
        client.settimeout(None)
        with contextlib.suppress(OSError):
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        stream = self.link.open_to_host(self.connect_to, OPEN_TIMEOUT)
        if stream is None:  # the host refused (or is gone): adbd closes the socket
            client.close()
            return
        relay(stream, client, f"adbd-sim reverse {self.local}")


class ReverseTable:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: dict[str, _Listener] = {}

    def install(self, local: str, connect_to: str, link: HostLink, *, rebind: bool) -> int:
        """Listen on `local` (tcp:PORT) for `link`; the port picked for tcp:0, else 0."""
        with self._lock:
            existing = self._listeners.get(local)
            if existing is not None:
                if not rebind:
                    raise ListenerError("cannot rebind existing socket")
                existing.connect_to = connect_to
                existing.link = link
                return 0
            port = _tcp_port(local)
            server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                server.bind(("127.0.0.1", port))
                server.listen(16)
            except OSError as exc:
                server.close()
                raise ListenerError(f"cannot bind listener: {exc.strerror or exc}") from None
            server.settimeout(ACCEPT_POLL)
            resolved = server.getsockname()[1] if port == 0 else 0
            name = f"tcp:{resolved}" if resolved else local
            self._listeners[name] = _Listener(name, connect_to, link, server)
            return int(resolved)

    def remove(self, local: str) -> None:
        with self._lock:
            listener = self._listeners.pop(local, None)
        if listener is None:
            raise ListenerError(f"listener '{local}' not found")
        listener.close()

    def remove_all(self) -> None:
        with self._lock:
            listeners = list(self._listeners.values())
            self._listeners.clear()
        for listener in listeners:
            listener.close()

    def listing(self) -> str:
        """adbd's format_listeners: `SERIAL LOCAL REMOTE` a line."""
        with self._lock:
            listeners = list(self._listeners.values())
        return "".join(f"{one.link.name} {one.local} {one.connect_to}\n" for one in listeners)

    def drop(self, link: HostLink) -> None:
        """The connection ended: its listeners go (adbd's listener_disconnect)."""
        with self._lock:
            gone = [key for key, one in self._listeners.items() if one.link is link]
            listeners = [self._listeners.pop(key) for key in gone]
        for listener in listeners:
            listener.close()


def _tcp_port(spec: str) -> int:
    kind, _, value = spec.partition(":")
    if kind != "tcp":
        # Unix-domain listeners (localabstract:, ...) are not simulated.
        raise ListenerError(f"cannot bind listener: {kind}: sockets are not simulated")
    if not value.isdigit() or int(value) > 65535:
        raise ListenerError(f"cannot bind listener: unknown socket specification '{spec}'")
    return int(value)
