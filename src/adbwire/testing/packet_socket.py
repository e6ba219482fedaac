"""The byte side of one device connection: packets out (header + payload in one sendmsg,
under a lock), byte counters, and the connection-level faults (packets in: packet_reader.py).

Dropping a connection sends FIN after what was already sent and lets the reader discard what
still arrives until the host closes: closing a socket that holds unread data sends RST, and an
RST can destroy data the host has not read yet, which would make faults non-deterministic.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from adbwire.testing.faults import Faults
from adbwire.testing.link_rate import LinkPacer
from adbwire.testing.stream import ConnectionGone, OutgoingPacket
from adbwire.testing.tls import DeviceTlsLink
from adbwire.wire import packets as P

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["PacketSocket"]

_pack_header = P.HEADER.pack
_JOIN_LIMIT: Final = 16 * 1024


class PacketSocket:
    def __init__(
        self,
        sock: socket.socket,
        faults: Faults,
        stopped: threading.Event,
        pacer: LinkPacer | None = None,
    ) -> None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = sock
        self._faults = faults
        self._stopped = stopped
        self._write_lock = threading.Lock()
        self.with_checksum = True
        self.dead = False
        self.sent = 0
        self.received = 0
        self._tls: DeviceTlsLink | None = None
        self._pacer = pacer

    def use_tls(self, link: DeviceTlsLink) -> None:
        """From now on packets go out encrypted (after the STLS handshake)."""
        with self._write_lock:
            self._tls = link

    def send_packet(
        self, command: int, arg0: int, arg1: int, payload: ReadableBuffer = b""
    ) -> None:
        delay = self._faults.response_delay
        if delay > 0:
            self._stopped.wait(delay)
        self._send_parts(self._encode(command, arg0, arg1, payload))

    def send_packets(self, packets: Sequence[OutgoingPacket]) -> None:
        """Several packets in one system call: the same bytes as a send_packet for each."""
        if self._faults.response_delay > 0:  # every packet is late on its own
            for packet in packets:
                self.send_packet(*packet)
            return
        parts: list[bytes | memoryview] = []
        for packet in packets:
            parts += self._encode(*packet)
        self._send_parts(parts)

    def _encode(
        self, command: int, arg0: int, arg1: int, payload: ReadableBuffer
    ) -> list[bytes | memoryview]:
        view = memoryview(payload).cast("B")
        length = len(view)
        check = P.checksum(view) if length and self.with_checksum else 0
        header = _pack_header(command, arg0, arg1, length, check, command ^ 0xFFFFFFFF)
        # A small packet goes out as one joined bytes object: cheaper than a gather list.
        return [header + view] if length <= _JOIN_LIMIT else [header, view]

    def _send_parts(self, parts: list[bytes | memoryview]) -> None:
        total = len(parts[0]) if len(parts) == 1 else sum(map(len, parts))
        with self._write_lock:
            if self.dead:
                raise ConnectionGone("the connection is closed")
            limit = self._faults.drop_after_sent_bytes
            try:
                if limit is not None and self.sent + total > limit:
                    self._send_truncated(parts, max(0, limit - self.sent))
                    raise ConnectionGone("fault injected: connection dropped while sending")
                if self._pacer is not None:
                    self._pacer.pace(total)
                if self._tls is not None:
                    self._tls.send(parts)
                else:
                    sent = self.sock.sendmsg(parts)
                    if sent != total:  # on loopback nearly never: the rest, as it drains
                        _send_all(self.sock, _skip(parts, sent))
                self.sent += total
            except OSError as error:
                self.dead = True
                self.shutdown(socket.SHUT_RDWR)
                raise ConnectionGone(f"sending failed: {error}") from error

    def _send_truncated(self, parts: list[bytes | memoryview], allowed: int) -> None:
        data = b"".join(parts)[:allowed]
        if data and self._tls is not None:
            self._tls.send([data])
        elif data:
            self.sock.sendall(data)
        self.sent += len(data)
        self._drop_locked()

    def count_received(self, size: int) -> None:
        """The reader took a whole packet of `size` bytes; drop the connection at the limit."""
        self.received += size
        limit = self._faults.drop_after_received_bytes
        if limit is not None and self.received >= limit and not self.dead:
            self.drop()

    def drop(self) -> None:
        """End the connection from our side after what was sent (FIN, not RST)."""
        with self._write_lock:
            self._drop_locked()

    def _drop_locked(self) -> None:
        self.dead = True
        self.shutdown(socket.SHUT_WR)

    def close_now(self) -> None:
        """Wake the reader and stop everything (the device is stopping)."""
        self.dead = True
        self.shutdown(socket.SHUT_RDWR)

    def shutdown(self, how: int) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(how)

    def close(self) -> None:
        self.sock.close()


def _send_all(sock: socket.socket, parts: list[bytes | memoryview]) -> None:
    while parts:
        parts = _skip(parts, sock.sendmsg(parts))


def _skip(parts: list[bytes | memoryview], count: int) -> list[bytes | memoryview]:
    """`parts` without their first `count` bytes (what a sendmsg took)."""
    index = 0
    while index < len(parts) and count >= len(parts[index]):
        count -= len(parts[index])
        index += 1
    rest = parts[index:]
    if count:
        rest[0] = memoryview(rest[0])[count:]
    return rest
