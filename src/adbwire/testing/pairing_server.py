"""The simulated device's pairing server: "Pair device with pairing code" on a port.

It behaves as Android's (pairing_connection/pairing_server.cpp and the framework around it):

- each connection runs the device side of pairing (`adbwire.wire.pairing.server`) with the
  code on screen; up to 10 run at once, more are closed at once;
- the first success trusts the host's key (`SimulatedDevice.authorize_key`, as Android
  writes adb_keys) and closes the pairing port, as the phone closes its dialog;
- after 20 failed attempts the port closes too (Android's guard against guessing);
- the device answers with its GUID, `adb-<ro.serialno>-<6 random characters>`, which is
  also its mDNS instance name.

Each connection is bounded by `timeout` seconds, so a host that stalls frees its slot.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import socket
import string
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

from cryptography.hazmat.primitives.asymmetric import rsa

from adbwire.errors import AdbwireError, UsageError
from adbwire.wire.keys import AdbKey
from adbwire.wire.pairing.channel import pairing_context
from adbwire.wire.pairing.server import serve_pairing
from adbwire.wire.timeouts import Deadline

if TYPE_CHECKING:
    from adbwire.testing.server import SimulatedDevice

__all__ = ["MAX_CONNECTIONS", "MAX_FAILED_ATTEMPTS", "PairingServer", "device_guid"]

log = logging.getLogger(__name__)

MAX_CONNECTIONS: Final = 10
MAX_FAILED_ATTEMPTS: Final = 20
DEFAULT_TIMEOUT: Final = 10.0
_ALPHANUMERIC: Final = string.ascii_letters + string.digits


def device_guid(serial: str) -> str:
    """A GUID as adbd makes one (daemon/mdns.cpp): adb-SERIAL-xxxxxx."""
    suffix = "".join(secrets.choice(_ALPHANUMERIC) for _ in range(6))
    return f"adb-{serial}-{suffix}"


@dataclass
class PairingOutcome:
    """What happened so far; read it under no lock (the values only grow)."""

    paired_keys: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


class PairingServer:
    """Listens on (host, port) until one host pairs, 20 attempts fail, or `stop()`."""

    def __init__(
        self,
        device: SimulatedDevice,
        code: str,
        *,
        host: str | None = None,
        port: int = 0,
        guid: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        device_key: AdbKey | None = None,
    ) -> None:
        self.device = device
        if not code:
            raise UsageError("the pairing code cannot be empty")
        self.code = code
        """What the screen shows: 6 digits for a pairing code; QR pairing uses longer ones."""
        self.host = host or device.options.host
        self.requested_port = port
        serial = device.userland.properties.get("ro.serialno") or "EMULATOR"
        self.guid = guid or device_guid(serial)
        self.timeout = timeout
        key = device_key or AdbKey(
            Path("<simulated device>"),
            rsa.generate_private_key(public_exponent=65537, key_size=2048),
        )
        self._context = pairing_context(key)
        self.outcome = PairingOutcome()
        self.paired = threading.Event()
        """Set when a host paired successfully."""
        self.closed = threading.Event()
        """Set when the port closed (paired, too many failures, or stopped)."""
        self.port = 0
        self._listener: socket.socket | None = None
        self._lock = threading.Lock()
        self._attempts: set[socket.socket] = set()
        self._threads: list[threading.Thread] = []

    @property
    def address(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    def start(self) -> PairingServer:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        try:
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind((self.host, self.requested_port))
            listener.listen(MAX_CONNECTIONS)
        except OSError:
            listener.close()
            raise
        self._listener = listener
        self.port = listener.getsockname()[1]
        thread = threading.Thread(
            target=self._accept_loop, name=f"adbd-sim pairing :{self.port}", daemon=True
        )
        self._threads.append(thread)
        thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Close the port, cut the attempts in progress and wait for their threads."""
        self._close_listener()
        with self._lock:
            attempts = list(self._attempts)
        for sock in attempts:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        for thread in list(self._threads):
            if thread is not threading.current_thread():
                thread.join(timeout)

    def __enter__(self) -> PairingServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _close_listener(self) -> None:
        with self._lock:
            listener, self._listener = self._listener, None
        if listener is not None:
            # shutdown wakes a thread blocked in accept() on Linux; close alone may not.
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        self.closed.set()

    def _accept_loop(self) -> None:
        while True:
            with self._lock:
                listener = self._listener
            if listener is None:
                return
            try:
                sock, peer = listener.accept()
            except OSError:
                return
            with self._lock:
                if self._listener is None or len(self._attempts) >= MAX_CONNECTIONS:
                    sock.close()
                    continue
                self._attempts.add(sock)
            worker = threading.Thread(
                target=self._serve,
                args=(sock, f"{peer[0]}:{peer[1]}"),
                name=f"adbd-sim pairing {peer[0]}:{peer[1]}",
                daemon=True,
            )
            self._threads.append(worker)
            worker.start()

    def _serve(self, sock: socket.socket, peer: str) -> None:
        try:
            public_key = serve_pairing(
                sock,
                self._context,
                self.code.encode(),
                self.guid,
                peer=peer,
                deadline=Deadline(self.timeout, f"pairing with {peer}"),
            )
            self.device.authorize_key(public_key)
        except (AdbwireError, ValueError, OSError) as error:
            # ValueError: the key is not an Android public key (KeyFormatError); OSError: a
            # socket reset under us. Each counts toward the failure limit.
            log.info("pairing with %s failed: %s", peer, error)
            self._failed(str(error))
        else:
            log.info("paired with %s", peer)
            self.outcome.paired_keys.append(public_key)
            self.paired.set()
            self._close_listener()
        finally:
            with contextlib.suppress(OSError):
                sock.close()
            with self._lock:
                self._attempts.discard(sock)

    def _failed(self, reason: str) -> None:
        self.outcome.failures.append(reason)
        if len(self.outcome.failures) >= MAX_FAILED_ATTEMPTS:
            log.warning("%d failed pairing attempts: the pairing port closes", MAX_FAILED_ATTEMPTS)
            self._close_listener()
