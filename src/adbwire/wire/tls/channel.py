"""TLS over an already connected socket, driven through memory BIOs.

ADB upgrades its TCP connection in place (STLS), so TLS starts on a socket whose earlier
bytes were plain ADB packets, and bytes the plain reader already took from the socket may
be the start of the TLS stream (`initial`). pyOpenSSL works on memory buffers here: we move
the bytes between the socket and OpenSSL ourselves, which gives us

- deadlines on the handshake (each receive waits at most what is left of the connect timeout);
- safe full-duplex use: one reader thread and any writer thread at a time share the
  `SSL` object only under a short lock around in-memory work (encrypting, decrypting), never
  while waiting on the socket; OpenSSL objects must not be used by two threads at once;
- typed errors: a rejected certificate (the device does not know our key) is
  `TlsRejectedError`, a peer that does not speak TLS is `RemoteProtocolError`.

Encrypted bytes leave in the order OpenSSL produced them: they are taken out of the BIO and
sent under one send lock. The rare record the reader makes OpenSSL write (a TLS 1.3 KeyUpdate
answer; adbd never asks for one) waits in the BIO and leaves with the next send: the peer
does not wait for it, and each cross-thread hand-off saved counts on a loaded machine.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Sequence
from typing import Final

from OpenSSL import SSL

from adbwire.errors import AdbTimeoutError, DisconnectedError, RemoteProtocolError, TlsRejectedError
from adbwire.wire.timeouts import Deadline
from adbwire.wire.tls.records import RecordCounter

__all__ = ["RECORD_PLAINTEXT", "TlsChannel", "describe_tls_error", "is_certificate_rejection"]

RECORD_PLAINTEXT: Final = 16 * 1024
"""The most plaintext one TLS record carries, so the most one SSL_read returns."""
_RAW_RECEIVE: Final = 64 * 1024
_ENCRYPT_SLICE: Final = 64 * 1024
_CIPHERTEXT_MARGIN: Final = 1024
"""More than the record overhead of one slice (5 header + 1 type + 16 tag bytes a record)."""

# The alerts AOSP's TlsConnection reads as "the peer rejected our certificate"
# (tls/tls_connection.cpp GetFailureReason), as OpenSSL names them in its error reasons.
_REJECTION_ALERTS: Final = (
    "alert bad certificate",
    "alert unsupported certificate",
    "alert certificate revoked",
    "alert certificate expired",
    "alert certificate unknown",
    "alert access denied",
    "alert unknown ca",
    "alert certificate required",
)


def describe_tls_error(error: SSL.Error) -> str:
    """OpenSSL's reasons in one line ('tlsv1 alert unknown ca'), or the error's text."""
    reasons: list[str] = []
    for entry in error.args[0] if error.args and isinstance(error.args[0], list) else ():
        if isinstance(entry, tuple) and entry:
            reasons.append(str(entry[-1]))
    return "; ".join(reason for reason in reasons if reason) or str(error) or type(error).__name__


def is_certificate_rejection(error: SSL.Error) -> bool:
    """Did the peer end the handshake because it does not accept our certificate?"""
    text = describe_tls_error(error).lower()
    return any(alert in text for alert in _REJECTION_ALERTS)


class TlsChannel:
    """A TLS connection over `sock` (which stays ours to close): plaintext in and out."""

    def __init__(self, sock: socket.socket, connection: SSL.Connection, *, peer: str) -> None:
        self.sock = sock
        self.connection = connection
        self.peer = peer
        self._ssl_lock = threading.Lock()
        self._send_lock = threading.Lock()
        self._raw = bytearray(_RAW_RECEIVE)
        self._raw_view = memoryview(self._raw)
        self._incoming = RecordCounter()
        self._unread_records = 0
        """Complete records given to OpenSSL that it may not have decrypted yet (never fewer
        than it has: each successful read takes at least one)."""
        self._probe = True
        """What the handshake left in the BIO is unknown: read until OpenSSL wants more."""
        self._plain = bytearray(RECORD_PLAINTEXT)
        self._plain_view = memoryview(self._plain)
        self._plain_start = self._plain_end = 0
        """A record decrypted for a caller whose view was smaller: the part not handed out."""

    # ----------------------------------------------------------- handshake

    @classmethod
    def establish(
        cls,
        sock: socket.socket,
        connection: SSL.Connection,
        *,
        peer: str,
        deadline: Deadline,
        initial: bytes = b"",
    ) -> TlsChannel:
        """Run the handshake (client or server, as `connection` was set up) until done.

        Every wait is bounded by `deadline` (AdbTimeoutError); the socket's own timeout is
        restored afterwards. `initial`: bytes of the TLS stream read before the upgrade."""
        channel = cls(sock, connection, peer=peer)
        saved_timeout = sock.gettimeout()
        try:
            if initial:
                connection.bio_write(initial)
                channel._incoming.feed(initial)
            while True:
                try:
                    connection.do_handshake()
                    break
                except SSL.WantReadError:
                    channel._flush_handshake(deadline)
                    channel._feed_handshake(deadline)
                except SSL.Error as error:
                    channel._flush_quietly(deadline)  # the alert that tells the peer why
                    raise channel._handshake_error(error) from None
            channel._flush_handshake(deadline)
        finally:
            sock.settimeout(saved_timeout)
        return channel

    def _feed_handshake(self, deadline: Deadline) -> None:
        remaining = deadline.remaining()
        if remaining is not None and remaining <= 0:
            raise self._timeout(deadline)
        self.sock.settimeout(remaining)
        try:
            count = self.sock.recv_into(self._raw_view)
        except TimeoutError:
            raise self._timeout(deadline) from None
        except OSError as error:
            raise DisconnectedError(
                f"{self.peer}: connection lost during the TLS handshake ({error})"
            ) from error
        if not count:
            raise DisconnectedError(
                f"{self.peer}: the device closed the connection during the TLS handshake"
            )
        self.connection.bio_write(self._raw_view[:count])
        self._incoming.feed(self._raw_view[:count])

    def _flush_handshake(self, deadline: Deadline) -> None:
        data = self._take_ciphertext()
        if not data:
            return
        remaining = deadline.remaining()
        if remaining is not None and remaining <= 0:
            raise self._timeout(deadline)
        self.sock.settimeout(remaining)
        try:
            self.sock.sendall(data)
        except TimeoutError:
            raise self._timeout(deadline) from None
        except OSError as error:
            raise DisconnectedError(
                f"{self.peer}: connection lost during the TLS handshake ({error})"
            ) from error

    def _flush_quietly(self, deadline: Deadline) -> None:
        with contextlib.suppress(OSError, DisconnectedError, AdbTimeoutError):
            self._flush_handshake(deadline)

    def _timeout(self, deadline: Deadline) -> AdbTimeoutError:
        error = deadline.error()
        return AdbTimeoutError(f"{error} (the TLS handshake with {self.peer} did not finish)")

    def _handshake_error(self, error: SSL.Error) -> Exception:
        reason = describe_tls_error(error)
        if is_certificate_rejection(error):
            return self.rejection(reason)
        return RemoteProtocolError(
            f"{self.peer}: the TLS handshake failed ({reason}); the device asked for TLS "
            "but does not speak TLS 1.3 as adb does"
        )

    def rejection(self, reason: str) -> TlsRejectedError:
        return TlsRejectedError(
            f"{self.peer} refused our adb key over TLS ({reason}): this device does not "
            f"know this computer yet. Pair first: adbwire pair HOST:PAIRING_PORT (the address "
            "and code under 'Pair device with pairing code' in Wireless debugging), then "
            "connect again"
        )

    # ----------------------------------------------------------- data

    def receive_into(self, view: memoryview) -> int:
        """Decrypted bytes into the front of `view`; 0 when the peer ended the stream.

        Blocks until something arrives (a socket timeout only means "nothing yet"). Only
        one thread may receive (the connection's reader)."""
        if self._plain_start < self._plain_end:
            return self._hand_out(view)
        fresh = 0
        while True:
            if fresh or self._unread_records or self._probe:
                count = self._decrypt(view, fresh)
                fresh = 0
                if count < 0:
                    return 0
                if count:
                    return count
            try:
                fresh = self.sock.recv_into(self._raw_view)
            except TimeoutError:
                continue
            if not fresh:
                return 0
            self._unread_records += self._incoming.feed(self._raw_view[:fresh])

    def _decrypt(self, view: memoryview, fresh: int) -> int:
        """Give OpenSSL `fresh` received bytes, then take one record if a whole one is there.

        The plaintext goes into `view` when it can hold any record, else through our own
        buffer (what does not fit waits there). Returns the bytes put into `view`; 0:
        nothing yet; -1: close_notify."""
        direct = len(view) >= RECORD_PLAINTEXT
        with self._ssl_lock:
            try:
                if fresh:
                    self.connection.bio_write(self._raw_view[:fresh])
                if not (self._unread_records or self._probe):
                    return 0
                count = self.connection.recv_into(
                    view if direct else self._plain_view, RECORD_PLAINTEXT
                )
            except SSL.WantReadError:
                self._unread_records, self._probe = 0, False
                return 0
            except SSL.ZeroReturnError:
                return -1
            except SSL.Error as error:
                raise self._data_error(error) from None
        self._unread_records = max(0, self._unread_records - 1)
        if not direct:
            self._plain_start, self._plain_end = 0, count
            return self._hand_out(view)
        return count

    def _hand_out(self, view: memoryview) -> int:
        start = self._plain_start
        count = min(len(view), self._plain_end - start)
        view[:count] = self._plain_view[start : start + count]
        self._plain_start = start + count
        return count

    def _data_error(self, error: SSL.Error) -> Exception:
        reason = describe_tls_error(error)
        if is_certificate_rejection(error):
            # TLS 1.3: the client's handshake ends before the server checked its certificate,
            # so a refusal arrives as an alert on the first read.
            return self.rejection(reason)
        return RemoteProtocolError(f"{self.peer}: TLS error ({reason})")

    def send(self, parts: Sequence[bytes | bytearray | memoryview]) -> None:
        """Encrypt and send `parts` as one piece of the stream; OSError from the socket.

        Small parts (a packet header and a short payload) become one record. Large ones are
        encrypted a slice at a time and each slice's records sent at once: the outgoing BIO
        stays small (a 1 MiB write into it costs twice as much, in reallocations), the peer
        starts decrypting early, and the reader waits for the SSL lock one slice at most."""
        with self._send_lock:
            for piece in _slices(parts):
                with self._ssl_lock:
                    try:
                        self.connection.sendall(piece)
                    except SSL.Error as error:
                        raise self._data_error(error) from None
                    data = self._take_ciphertext(len(piece) + _CIPHERTEXT_MARGIN)
                self.sock.sendall(data)

    def _take_ciphertext(self, expected: int = _RAW_RECEIVE) -> bytes:
        """Everything OpenSSL wrote into the outgoing BIO (caller holds the SSL lock or is
        the only user, as during the handshake); `expected`: about how much that is."""
        chunks: list[bytes] = []
        while True:
            try:
                chunk = self.connection.bio_read(expected)
            except SSL.WantReadError:
                break
            chunks.append(chunk)
            if len(chunk) < expected:
                break
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _slices(parts: Sequence[bytes | bytearray | memoryview]) -> list[bytes | memoryview]:
    """`parts` cut or joined into pieces of at most _ENCRYPT_SLICE bytes, none empty."""
    total = sum(len(part) for part in parts)
    if total <= _ENCRYPT_SLICE:
        return [b"".join(parts)] if total else []
    pieces: list[bytes | memoryview] = []
    for part in parts:
        view = memoryview(part).cast("B")
        pieces.extend(view[at : at + _ENCRYPT_SLICE] for at in range(0, len(view), _ENCRYPT_SLICE))
    return pieces
