"""A hand-driven ADB host for protocol tests: every packet is built and checked by the test.

Deliberately independent of adbwire.wire's client, so the simulator is checked against the
protocol as written down, not against our own client's reading of it.
"""

from __future__ import annotations

import contextlib
import socket
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field

from adbwire.wire import packets as P

TIMEOUT = 10.0
LE32 = struct.Struct("<I")
HOST_BANNER = b"host::features=shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,abb_exec,sendrecv_v2"
DELAYED_BANNER = HOST_BANNER + b",delayed_ack"


@dataclass(frozen=True)
class Received:
    command: int
    arg0: int
    arg1: int
    payload: bytes
    check: int

    @property
    def name(self) -> str:
        return P.COMMAND_NAMES.get(self.command, hex(self.command))


class HostPeer:
    def __init__(self, address: tuple[str, int], *, timeout: float = TIMEOUT) -> None:
        self.sock = socket.create_connection(address, timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.checksums = True
        self.max_payload = P.MAX_PAYLOAD
        self._next_id = 100

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> HostPeer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- packets --------------------------------------------------------------------

    def send(
        self,
        command: int,
        arg0: int,
        arg1: int,
        payload: bytes = b"",
        *,
        checksum: bool | None = None,
    ) -> None:
        with_checksum = self.checksums if checksum is None else checksum
        self.sock.sendall(
            P.Packet(command, arg0, arg1, payload).encode(with_checksum=with_checksum)
        )

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def _recv_exactly(self, size: int) -> bytes:
        data = bytearray()
        while len(data) < size:
            chunk = self.sock.recv(size - len(data))
            if not chunk:
                raise EOFError("the device closed the connection")
            data += chunk
        return bytes(data)

    def recv(self, timeout: float = TIMEOUT) -> Received:
        self.sock.settimeout(timeout)
        raw = self._recv_exactly(P.HEADER_SIZE)
        command, arg0, arg1, length, check, magic = P.HEADER.unpack(raw)
        assert magic == command ^ 0xFFFFFFFF, f"bad magic from the device: {raw!r}"
        payload = self._recv_exactly(length) if length else b""
        return Received(command, arg0, arg1, payload, check)

    def expect(self, command: int, timeout: float = TIMEOUT) -> Received:
        packet = self.recv(timeout)
        assert packet.command == command, (
            f"expected {P.COMMAND_NAMES[command]}, got {packet.name} {packet.payload[:80]!r}"
        )
        return packet

    def nothing_within(self, seconds: float) -> bool:
        """True when the device sends nothing for `seconds` (bounded negative check)."""
        self.sock.settimeout(seconds)
        try:
            self.sock.recv(1, socket.MSG_PEEK)
        except TimeoutError:
            return True
        return False

    def closed_by_device(self, timeout: float = TIMEOUT) -> bool:
        """Read until the device closes the connection; True if it did within `timeout`."""
        self.sock.settimeout(timeout)
        try:
            while self.sock.recv(65536):
                pass
        except TimeoutError:
            return False
        except ConnectionResetError:
            return True
        return True

    # ---- handshake --------------------------------------------------------------------

    def connect(
        self,
        *,
        version: int = P.VERSION_SKIP_CHECKSUM,
        max_payload: int = P.MAX_PAYLOAD,
        banner: bytes = HOST_BANNER,
    ) -> Received:
        """CNXN and read the first answer (AUTH TOKEN, or CNXN if auth is off)."""
        self.send(P.A_CNXN, version, max_payload, banner, checksum=True)
        return self.recv()

    def handshake(
        self,
        *,
        version: int = P.VERSION_SKIP_CHECKSUM,
        max_payload: int = P.MAX_PAYLOAD,
        banner: bytes = HOST_BANNER,
    ) -> Received:
        """Connect to a device that accepts any key; returns the device's CNXN."""
        answer = self.connect(version=version, max_payload=max_payload, banner=banner)
        if answer.command == P.A_AUTH:
            self.send(P.A_AUTH, P.AUTH_SIGNATURE, 0, b"\x00" * 256)
            answer = self.expect(P.A_CNXN)
        assert answer.command == P.A_CNXN, answer
        self.checksums = min(version, answer.arg0) < P.VERSION_SKIP_CHECKSUM
        self.max_payload = answer.arg1
        return answer

    # ---- streams ----------------------------------------------------------------------

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def open(self, service: str | bytes, *, window: int = 0) -> tuple[int, Received]:
        """OPEN a service; returns (our id, the device's answer: OKAY or CLSE)."""
        local = self.new_id()
        name = service.encode() if isinstance(service, str) else service
        self.send(P.A_OPEN, local, window, name + b"\0")
        while True:
            answer = self.recv()
            # Skip CLSEs that answer our late OKAYs to streams the device already closed.
            if not (answer.command == P.A_CLSE and answer.arg0 != 0 and answer.arg1 != local):
                return local, answer

    def open_ok(self, service: str | bytes, *, window: int = 0) -> Stream:
        local, answer = self.open(service, window=window)
        assert answer.command == P.A_OKAY, f"{service!r} refused: {answer.name}"
        assert answer.arg1 == local
        return Stream(self, local, answer.arg0, delayed=bool(window), open_reply=answer)


@dataclass
class Stream:
    peer: HostPeer
    local: int
    remote: int
    delayed: bool
    open_reply: Received
    stashed: list[Received] = field(default_factory=list)
    buffer: bytes = b""

    def write(self, data: bytes, *, wait_okay: bool = True) -> None:
        """WRTE in max_payload pieces; without delayed ack, wait for each OKAY (output that
        arrives meanwhile is acknowledged and kept for packets()/read_all())."""
        for start in range(0, len(data), self.peer.max_payload) or [0]:
            piece = data[start : start + self.peer.max_payload]
            self.peer.send(P.A_WRTE, self.local, self.remote, piece)
            if wait_okay and not self.delayed:
                self._wait_okay()

    def _wait_okay(self) -> None:
        while True:
            packet = self.peer.recv()
            if packet.command == P.A_OKAY:
                assert (packet.arg0, packet.arg1) == (self.remote, self.local)
                return
            self.stashed.append(packet)
            if packet.command == P.A_WRTE:
                self.okay(len(packet.payload) if self.delayed else None)
            elif packet.command == P.A_CLSE:
                return

    def okay(self, acked: int | None = None) -> None:
        payload = b"" if acked is None else LE32.pack(acked)
        self.peer.send(P.A_OKAY, self.local, self.remote, payload)

    def close(self) -> None:
        self.peer.send(P.A_CLSE, self.local, self.remote)

    def next_packet(self, timeout: float = TIMEOUT) -> Received | None:
        """The next WRTE for this stream (acknowledged), or None once the device closed it."""
        while True:
            if self.stashed:
                packet = self.stashed.pop(0)
            else:
                packet = self.peer.recv(timeout)
                if packet.command == P.A_WRTE:
                    self.okay(len(packet.payload) if self.delayed else None)
            if packet.command == P.A_WRTE:
                assert (packet.arg0, packet.arg1) == (self.remote, self.local), packet
                return packet
            if packet.command == P.A_CLSE:
                if packet.arg1 != self.local:
                    continue  # answers a late OKAY of ours to a stream already closed
                return None
            if packet.command != P.A_OKAY:  # OKAYs acknowledge what we wrote
                raise AssertionError(f"unexpected {packet.name} on a stream")

    def packets(self, timeout: float = TIMEOUT) -> Iterator[Received]:
        """Packets for this stream until CLSE (acknowledging each WRTE)."""
        while (packet := self.next_packet(timeout)) is not None:
            yield packet

    def read_all(self, timeout: float = TIMEOUT) -> bytes:
        data, self.buffer = self.buffer, b""
        return data + b"".join(packet.payload for packet in self.packets(timeout))

    def read_exactly(self, size: int, timeout: float = TIMEOUT) -> bytes:
        """Exactly `size` bytes of the stream (keeps the rest for the next read)."""
        while len(self.buffer) < size:
            packet = self.next_packet(timeout)
            if packet is None:
                raise EOFError(f"stream closed with {len(self.buffer)} of {size} bytes")
            self.buffer += packet.payload
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data


def shell_packets(data: bytes) -> list[tuple[int, bytes]]:
    """Split shell-protocol output into (id, data) packets."""
    out: list[tuple[int, bytes]] = []
    while data:
        packet_id, length = struct.unpack("<BI", data[:5])
        out.append((packet_id, data[5 : 5 + length]))
        data = data[5 + length :]
    return out


def shell_packet(packet_id: int, data: bytes = b"") -> bytes:
    return struct.pack("<BI", packet_id, len(data)) + data


@contextlib.contextmanager
def online_peer(address: tuple[str, int], **kwargs: object) -> Iterator[HostPeer]:
    with HostPeer(address) as peer:
        peer.handshake(**kwargs)  # type: ignore[arg-type]
        yield peer
