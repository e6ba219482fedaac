"""TLS 1.3 between the pairing client and server, every step bounded by one deadline.

As AOSP's pairing connection (pairing_connection.cpp SetupTlsConnection, with
tls/tls_connection.cpp): TLS 1.3 only, each side presents a self-signed certificate and
accepts any certificate from the other (trust comes from the pairing code, not from TLS),
and the server requires one. After the handshake both sides export 64 bytes of keying
material with the label "adb-label" *and its NUL* (AOSP passes `sizeof` of the C string)
and no context; the pairing code followed by those bytes is the SPAKE2 password, which ties
the SPAKE2 exchange to this TLS session.

pyOpenSSL runs on the socket itself, made non-blocking; each wait (readable or writable)
takes what is left of the deadline.
"""

from __future__ import annotations

import contextlib
import logging
import select
import socket
from collections.abc import Callable
from functools import partial
from typing import Final, TypeVar

from OpenSSL import SSL, crypto

from adbwire.errors import AdbTimeoutError, PairingError
from adbwire.wire.keys import AdbKey
from adbwire.wire.timeouts import Deadline
from adbwire.wire.tls.certificate import certificate_for
from adbwire.wire.tls.channel import describe_tls_error

__all__ = ["EXPORTED_KEY_SIZE", "EXPORTER_LABEL", "PairingChannel", "pairing_context"]

EXPORTER_LABEL: Final = b"adb-label\0"
EXPORTED_KEY_SIZE: Final = 64

T = TypeVar("T")

log = logging.getLogger(__name__)


def _accept_any_certificate(
    _connection: SSL.Connection, _certificate: crypto.X509, _error: int, _depth: int, _ok: int
) -> bool:
    return True


def pairing_context(key: AdbKey) -> SSL.Context:
    """A TLS 1.3 context presenting `key`'s certificate, accepting (and requiring) any peer's."""
    context = SSL.Context(SSL.TLS_METHOD)
    context.set_min_proto_version(SSL.TLS1_3_VERSION)
    context.set_max_proto_version(SSL.TLS1_3_VERSION)
    context.use_certificate(certificate_for(key))
    context.use_privatekey(key.private_key)
    context.set_verify(SSL.VERIFY_PEER | SSL.VERIFY_FAIL_IF_NO_PEER_CERT, _accept_any_certificate)
    return context


class PairingChannel:
    """A TLS connection to the pairing peer; `sock` is closed with it."""

    def __init__(self, sock: socket.socket, connection: SSL.Connection, *, peer: str) -> None:
        self._sock = sock
        self._connection = connection
        self.peer = peer

    @classmethod
    def open(
        cls,
        sock: socket.socket,
        context: SSL.Context,
        *,
        server: bool,
        peer: str,
        deadline: Deadline,
    ) -> PairingChannel:
        """Run the TLS handshake on the connected `sock` (closed on failure)."""
        sock.setblocking(False)
        connection = SSL.Connection(context, sock)
        if server:
            connection.set_accept_state()
        else:
            connection.set_connect_state()
        channel = cls(sock, connection, peer=peer)
        try:
            channel._retry(connection.do_handshake, deadline, "the TLS handshake")
        except BaseException:
            channel.close()
            raise
        log.debug("%s: TLS handshake done (%s)", peer, connection.get_cipher_name())
        return channel

    def exported_key(self) -> bytes:
        """The TLS exporter's 64 bytes under adb's label (the same on both ends)."""
        return bytes(
            self._connection.export_keying_material(EXPORTER_LABEL, EXPORTED_KEY_SIZE, None)
        )

    def send(self, data: bytes, deadline: Deadline, what: str) -> None:
        view = memoryview(data)
        while view:
            sent = self._retry(partial(self._connection.send, view), deadline, f"sending {what}")
            view = view[sent:]

    def receive_exact(self, size: int, deadline: Deadline, what: str) -> bytes:
        """Exactly `size` bytes (the caller bounds `size`); PairingError if the peer ends first."""
        buffer = bytearray()
        while len(buffer) < size:
            wanted = size - len(buffer)
            chunk = self._retry(
                partial(self._connection.recv, wanted), deadline, f"waiting for {what}"
            )
            if not chunk:
                raise PairingError(
                    f"{self.peer} closed the pairing connection while we waited for {what} "
                    f"({len(buffer)} of {size} bytes came)"
                )
            buffer += chunk
        return bytes(buffer)

    def close(self) -> None:
        with contextlib.suppress(SSL.Error, OSError):
            self._connection.shutdown()
        with contextlib.suppress(OSError):
            self._sock.close()

    def __enter__(self) -> PairingChannel:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _retry(self, operation: Callable[[], T], deadline: Deadline, what: str) -> T:
        """Run a pyOpenSSL call until it stops asking to wait, each wait within `deadline`."""
        while True:
            try:
                return operation()
            except SSL.WantReadError:
                self._wait(deadline, what, readable=True)
            except SSL.WantWriteError:
                self._wait(deadline, what, readable=False)
            except SSL.ZeroReturnError:
                raise PairingError(f"{self.peer} closed the pairing connection ({what})") from None
            except SSL.SysCallError as error:
                raise PairingError(
                    f"{self.peer} dropped the pairing connection ({what}: {error.args[-1]})"
                ) from None
            except SSL.Error as error:
                raise PairingError(
                    f"TLS failed with {self.peer} ({what}: {describe_tls_error(error)}); is "
                    "this the pairing port shown under 'Pair device with pairing code'?"
                ) from None
            except OSError as error:
                raise PairingError(f"{self.peer}: {what} failed ({error})") from error

    def _wait(self, deadline: Deadline, what: str, *, readable: bool) -> None:
        remaining = deadline.remaining()
        if remaining is not None and remaining <= 0:
            raise AdbTimeoutError(f"pairing with {self.peer} timed out ({what})")
        fd = [self._sock]
        ready = (
            select.select(fd, [], [], remaining)
            if readable
            else select.select([], fd, [], remaining)
        )
        if not any(ready):
            raise AdbTimeoutError(f"pairing with {self.peer} timed out ({what})")
