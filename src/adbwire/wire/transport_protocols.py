"""Byte transports: the seam where TCP, USB, recording and replay plug in.

A transport moves whole ADB packets out (header, then payload, so USB can add its
zero-length packet) and exact byte counts in. `Transport` is what every one does; the other
protocols here are what some can do besides, which the connection checks for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from adbwire.wire.keys import AdbKey
    from adbwire.wire.timeouts import Deadline


class Transport(Protocol):
    """What the connection runtime needs from a byte link to one device."""

    @property
    def kind(self) -> str:
        """'tcp', 'usb', 'replay', ... (shown to users and written into recordings)."""
        ...

    @property
    def address(self) -> str:
        """The serial adb would show for this link, e.g. '192.168.1.20:5555'."""
        ...

    def connect(self, timeout: float) -> None: ...

    def read_exactly(self, size: int) -> bytes | bytearray:
        """Block until `size` bytes arrived; raise DisconnectedError on end of stream."""
        ...

    def write_packet(self, header: bytes, payload: bytes | bytearray | memoryview) -> None:
        """Send one packet; blocks until the bytes are handed to the OS (or raises)."""
        ...

    def close(self) -> None:
        """Close the link; a blocked `read_exactly` in another thread then raises."""
        ...


PacketBytes = tuple[bytes, "bytes | bytearray | memoryview"]


@runtime_checkable
class BatchWriter(Protocol):
    """A transport that sends several packets in one system call (TCP, plain or TLS)."""

    def write_packets(self, packets: Sequence[PacketBytes]) -> None:
        """Send (header, payload) pairs in order, as `write_packet` would one by one."""
        ...


@runtime_checkable
class CallerReadable(Protocol):
    """A transport any thread may read, one thread at a time, within a time limit.

    The connection then lets a caller that waits for a packet read the link itself instead
    of waiting for the reader thread to hand the packet over (wire/reading.py)."""

    @property
    def caller_readable(self) -> bool:
        """Whether `read_within` works now (a TLS link, for one, says no)."""
        ...

    def read_within(self, size: int, timeout: float | None) -> bytes | bytearray | None:
        """Exactly `size` bytes, or None once `timeout` seconds passed or `interrupt_read` was
        called first (None: no limit and no interruption; math.inf: no limit but
        interruptible). Bytes that arrived meanwhile are
        kept: the next call, which must ask for the same size, goes on from them."""
        ...

    @property
    def read_ahead(self) -> int:
        """Bytes already received and not yet read: reading them needs no system call."""
        ...

    def interrupt_read(self) -> None:
        """Make a `read_within` with a timeout, blocked in another thread, return None now
        (or the next one, if none is blocked)."""
        ...


@runtime_checkable
class TlsCapable(Protocol):
    """A transport that can continue over TLS (the STLS step of wireless debugging)."""

    def start_tls(self, keys: Sequence[AdbKey], deadline: Deadline) -> None:
        """Run the TLS 1.3 client handshake on the link, then carry packets inside it.

        Called while nothing else reads or writes the link."""
        ...
