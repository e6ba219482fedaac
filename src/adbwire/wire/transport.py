"""The TCP transport: adb_shell's, with blocking reads into preallocated buffers and
vectored writes so that a 1 MiB payload is never copied to be sent, TLS for wireless
debugging, and reads any thread can make within a time limit (`CallerReadable`).

What every transport (TCP, USB, recording, replay) must do is in transport_protocols.py.
"""

from __future__ import annotations

import contextlib
import errno
import math
import select
import socket
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from adb_shell.transport.tcp_transport import TcpTransport as _AdbShellTcpTransport

from adbwire.errors import ConnectFailedError, DisconnectedError, UsageError
from adbwire.wire.doorbell import Doorbell
from adbwire.wire.timeouts import LONGEST_WAIT, Deadline
from adbwire.wire.transport_protocols import (
    BatchWriter,
    CallerReadable,
    PacketBytes,
    TlsCapable,
    Transport,
)

if TYPE_CHECKING:
    from adbwire.wire.keys import AdbKey
    from adbwire.wire.tls.channel import TlsChannel

__all__ = [  # what a transport must do is in transport_protocols.py, imported from here too
    "DEFAULT_TCP_PORT",
    "MIN_STALL_TIMEOUT",
    "READ_AHEAD",
    "BatchWriter",
    "CallerReadable",
    "PacketBytes",
    "TcpTransport",
    "TlsCapable",
    "Transport",
    "describe_socket_error",
    "parse_tcp_address",
    "stall_timeout",
]

DEFAULT_TCP_PORT = 5555


def parse_tcp_address(text: str) -> tuple[str, int]:
    """Split 'host[:port]' (IPv6 as '[::1]:5555') and validate it."""
    host, port_text = text, ""
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            raise UsageError(f"bad address {text!r}: missing ']' after an IPv6 host")
        host, rest = text[1:end], text[end + 1 :]
        if rest:
            if not rest.startswith(":"):
                raise UsageError(f"bad address {text!r}: expected ':PORT' after ']'")
            port_text = rest[1:]
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    if not host:
        raise UsageError(f"bad address {text!r}: empty host")
    if not port_text:
        return host, DEFAULT_TCP_PORT
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise UsageError(f"bad address {text!r}: port must be a number from 1 to 65535")
    return host, int(port_text)


MIN_STALL_TIMEOUT = 60.0
READ_AHEAD = 64 * 1024
"""Bytes one receive may take beyond what the current read needs."""


def stall_timeout(operation: float) -> float | None:
    """How long one send may stay blocked before the link is declared dead (None: never)."""
    return None if operation >= LONGEST_WAIT else max(MIN_STALL_TIMEOUT, operation)


class TcpTransport(_AdbShellTcpTransport):  # type: ignore[misc]
    """adb_shell's TCP transport with blocking exact reads and copy-free writes."""

    def __init__(
        self,
        host: str,
        port: int = DEFAULT_TCP_PORT,
        *,
        io_timeout: float | None = MIN_STALL_TIMEOUT,
    ) -> None:
        """`io_timeout`: a send blocked this long means the device stopped reading and the
        link is dead (None: wait for ever). Operation deadlines are enforced above this."""
        super().__init__(host, port)
        self._io_timeout = io_timeout
        self._sock: socket.socket | None = None
        self._inbox = bytearray(READ_AHEAD)
        self._inbox_view = memoryview(self._inbox)
        self._inbox_start = 0
        self._inbox_end = 0
        self._partial: tuple[bytearray, int] | None = None
        """A `read_within` that ran out of time: its buffer and the bytes already in it."""
        self._poller: select.poll | None = None
        self._doorbell: Doorbell | None = None
        self._tls: TlsChannel | None = None

    @property
    def kind(self) -> str:
        return "tcp"

    @property
    def tls(self) -> bool:
        """Whether the link was upgraded to TLS (a wireless-debugging connection)."""
        return self._tls is not None

    @property
    def address(self) -> str:
        host: str = self._host
        return f"[{host}]:{self._port}" if ":" in host else f"{host}:{self._port}"

    def connect(self, timeout: float) -> None:
        try:
            super().connect(timeout)
        except OSError as exc:
            raise ConnectFailedError(
                f"cannot connect to {self.address}: {describe_socket_error(exc)}"
            ) from exc
        sock = self._connection
        sock.setblocking(True)
        # The send timeout bounds a peer that stops reading; the reader thread treats its
        # own timeouts as "nothing yet" and keeps waiting.
        sock.settimeout(self._io_timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sock = sock
        if hasattr(select, "poll"):  # not on Windows: the reader thread reads there
            self._doorbell = Doorbell()
            self._poller = select.poll()
            self._poller.register(sock.fileno(), select.POLLIN)
            self._poller.register(self._doorbell.fileno(), select.POLLIN)

    def _socket(self) -> socket.socket:
        if self._sock is None:
            raise DisconnectedError(f"{self.address}: not connected")
        return self._sock

    @property
    def caller_readable(self) -> bool:
        return self._poller is not None and self._tls is None

    @property
    def read_ahead(self) -> int:
        return self._inbox_end - self._inbox_start

    def read_exactly(self, size: int) -> bytes | bytearray:
        data = self.read_within(size, None)
        assert data is not None  # without a time limit a read ends only with the bytes
        return data

    def read_within(self, size: int, timeout: float | None) -> bytes | bytearray | None:
        # Reads go through a read-ahead buffer: the packets of one reply (OKAY, WRTE, CLSE)
        # usually arrive together and are then taken with one system call, not two per packet.
        # A payload larger than the buffer is received straight into its own bytearray.
        if self._partial is None:
            start, end = self._inbox_start, self._inbox_end
            if end - start >= size:
                self._inbox_start = start + size
                return bytes(self._inbox_view[start : start + size])
            result = bytearray(size)
            filled = end - start
            result[:filled] = self._inbox_view[start:end]
            self._inbox_start = self._inbox_end = 0
        else:
            result, filled = self._partial  # the read-ahead buffer is empty meanwhile
            if len(result) != size:
                raise UsageError(f"a read of {len(result)} bytes is unfinished; asked for {size}")
            self._partial = None
        until = None if timeout is None else time.monotonic() + timeout
        view = memoryview(result)
        while filled < size:
            if until is not None and not self._readable_before(until):
                self._partial = (result, filled)
                return None
            if size - filled >= READ_AHEAD:
                filled += self._receive_into(view[filled:])
                continue
            got = self._receive_into(self._inbox_view)
            taken = min(got, size - filled)
            result[filled : filled + taken] = self._inbox_view[:taken]
            filled += taken
            self._inbox_start, self._inbox_end = taken, got
        return result

    def _readable_before(self, until: float) -> bool:
        """Wait until the socket has bytes (True), `until` passes or an interrupt came."""
        poller, doorbell = self._poller, self._doorbell
        if poller is None or doorbell is None or self._sock is None:
            raise DisconnectedError(f"{self.address}: not connected")
        wait_ms = -1 if until == math.inf else max(0, math.ceil((until - time.monotonic()) * 1000))
        ready = poller.poll(wait_ms)
        if not ready:
            return False
        if any(fd == doorbell.fileno() for fd, _ in ready):
            doorbell.drain()
            return False
        return True  # readable, hung up or in error: the receive says which

    def interrupt_read(self) -> None:
        doorbell = self._doorbell
        if doorbell is not None:
            doorbell.ring()

    def _receive_into(self, view: memoryview) -> int:
        if self._tls is not None:
            return self._receive_tls(view)
        sock = self._socket()
        while True:
            try:
                count = sock.recv_into(view)
            except TimeoutError:
                continue
            except OSError as exc:
                raise DisconnectedError(f"{self.address}: connection lost ({exc})") from exc
            if count == 0:
                raise DisconnectedError(f"{self.address}: the device closed the connection")
            return count

    def write_packet(self, header: bytes, payload: bytes | bytearray | memoryview) -> None:
        sock = self._socket()
        try:
            if self._tls is not None:
                self._tls.send((header, payload))
            elif payload:
                # One vectored send avoids both a copy and a tiny-segment round trip.
                sent = sock.sendmsg([header, payload])
                total = len(header) + len(payload)
                if sent < total:
                    rest = (
                        memoryview(header + bytes(payload))[sent:]
                        if sent < len(header)
                        else (memoryview(payload)[sent - len(header) :])
                    )
                    sock.sendall(rest)
            else:
                sock.sendall(header)
        except TimeoutError as exc:
            raise DisconnectedError(
                f"{self.address}: the device stopped reading (write timed out)"
            ) from exc
        except OSError as exc:
            raise DisconnectedError(f"{self.address}: connection lost ({exc})") from exc

    def write_packets(self, packets: Sequence[PacketBytes]) -> None:
        parts: list[bytes | bytearray | memoryview] = []
        for header, payload in packets:
            parts.append(header)
            if payload:
                parts.append(payload)
        sock = self._socket()
        try:
            if self._tls is not None:
                self._tls.send(parts)
            else:
                _send_parts(sock, parts)
        except TimeoutError as exc:
            raise DisconnectedError(
                f"{self.address}: the device stopped reading (write timed out)"
            ) from exc
        except OSError as exc:
            raise DisconnectedError(f"{self.address}: connection lost ({exc})") from exc

    # ----------------------------------------------------------- TLS (wireless debugging)

    def start_tls(self, keys: Sequence[AdbKey], deadline: Deadline) -> None:
        """Upgrade this connection to TLS 1.3, presenting one of `keys` (wire/tls/)."""
        from adbwire.wire.tls.channel import TlsChannel  # noqa: PLC0415 - only for TLS links
        from adbwire.wire.tls.client import client_connection  # noqa: PLC0415

        sock = self._socket()
        # Bytes read ahead past the device's STLS already belong to the TLS stream.
        early = bytes(self._inbox_view[self._inbox_start : self._inbox_end])
        self._inbox_start = self._inbox_end = 0
        self._tls = TlsChannel.establish(
            sock, client_connection(keys), peer=self.address, deadline=deadline, initial=early
        )

    def _receive_tls(self, view: memoryview) -> int:
        assert self._tls is not None
        if self._sock is None:
            raise DisconnectedError(f"{self.address}: not connected")
        try:
            count = self._tls.receive_into(view)
        except OSError as exc:
            raise DisconnectedError(f"{self.address}: connection lost ({exc})") from exc
        if count == 0:
            raise DisconnectedError(f"{self.address}: the device closed the connection")
        return count

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        if self._doorbell is not None:
            self._doorbell.close()
        self._connection = cast(socket.socket, None)  # adb_shell's attribute


def describe_socket_error(exc: OSError) -> str:
    """What a failed connect means, in words (not `[Errno 111] Connection refused`)."""
    if isinstance(exc, socket.gaierror):
        return "no such host (the name does not resolve)"
    if isinstance(exc, TimeoutError):
        return "no answer (timed out): is the address right and the device on this network?"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused: nothing listens on that port (is adbd in TCP mode?)"
    if exc.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
        return "the network or host is unreachable from here"
    return exc.strerror or str(exc)


def _send_parts(sock: socket.socket, parts: list[bytes | bytearray | memoryview]) -> None:
    """sendmsg until every part is out (a partial send resumes mid-part, without a copy)."""
    first = 0
    while first < len(parts):
        sent = sock.sendmsg(parts[first:] if first else parts)
        while sent:
            size = len(parts[first])
            if sent >= size:
                sent -= size
                first += 1
            else:
                parts[first] = memoryview(parts[first])[sent:]
                sent = 0
