"""A scripted hostile adbd: raw packets on loopback, for misbehaviour below the services.

The simulated device (`SimulatedDevice`) always frames its packets correctly; a broken or
malicious adbd does not. `HostileAdbd(script)` listens on loopback and runs `script(peer)`
in a thread for each connection, where `peer` is a `DevicePeer`: the device end of the
connection with helpers to do things right (`handshake`, `accept_open`, `write`, `read`)
and the means to do them wrong (`send(..., length=N)`, `send_raw`). A script that returns
leaves the connection open and silent until the host closes it or the adbd stops; socket
errors end it quietly. `stop()` closes every socket and joins every thread (bounded).

    with HostileAdbd(protocol.lying_length()) as adbd:
        AdbClient.connect_tcp(adbd.serial, [])   # ... and see adbwire fail cleanly
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Final

from adbwire.wire import packets as P

__all__ = [
    "DEVICE_BANNER",
    "V1_BANNER",
    "DevicePeer",
    "HostileAdbd",
    "OpenStream",
    "Packet",
    "Script",
]

log = logging.getLogger("adbwire.testing")

DEVICE_BANNER: Final = (
    b"device::ro.product.name=hostile;ro.product.model=Hostile;ro.product.device=hostile;"
    b"features=shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,sendrecv_v2"
)
"""No delayed_ack: one WRTE in flight per direction, which keeps scripts simple."""
V1_BANNER: Final = (
    b"device::ro.product.name=hostile;ro.product.model=Hostile;ro.product.device=hostile;"
    b"features=shell_v2,cmd"
)
"""An older adbd: sync v1 only (STAT, LIST/DENT, RECV), no stat_v2/ls_v2/sendrecv_v2."""
PEER_TIMEOUT: Final = 30.0
"""The longest a script waits for the host; far beyond any test's own deadline."""
MAX_READ: Final = P.MAX_PAYLOAD
JOIN_TIMEOUT: Final = 10.0

Script = Callable[["DevicePeer"], None]


@dataclass(frozen=True)
class Packet:
    command: int
    arg0: int
    arg1: int
    payload: bytes

    @property
    def name(self) -> str:
        return P.COMMAND_NAMES.get(self.command, hex(self.command))


@dataclass(frozen=True)
class OpenStream:
    """A stream the host opened and the device accepted: ids and service name."""

    local: int
    remote: int
    service: str


class DevicePeer:
    """The device end of one connection (see the module docstring)."""

    def __init__(self, sock: socket.socket, stopping: threading.Event) -> None:
        self.sock = sock
        self.stopping = stopping
        self.host_banner = b""
        self._next_local = 1

    # ---- packets, right and wrong ------------------------------------------------------

    def send(
        self,
        command: int,
        arg0: int,
        arg1: int,
        payload: bytes = b"",
        *,
        length: int | None = None,
        magic: int | None = None,
    ) -> None:
        """A packet whose header may lie: `length` (default: the payload's) and `magic`
        (default: command ^ 0xFFFFFFFF) are sent as given; no checksum (version 0x01000001)."""
        header = P.HEADER.pack(
            command,
            arg0,
            arg1,
            len(payload) if length is None else length,
            0,
            command ^ 0xFFFFFFFF if magic is None else magic,
        )
        self.sock.sendall(header + payload)

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv(self) -> Packet:
        """The host's next packet (EOFError when it closed the connection)."""
        header = self._recv_exactly(P.HEADER_SIZE)
        command, arg0, arg1, length, _check, _magic = P.HEADER.unpack(header)
        if length > MAX_READ:
            raise EOFError(f"the host sent a {length}-byte payload")
        payload = self._recv_exactly(length) if length else b""
        return Packet(command, arg0, arg1, payload)

    def _recv_exactly(self, size: int) -> bytes:
        self.sock.settimeout(PEER_TIMEOUT)
        data = bytearray()
        while len(data) < size:
            chunk = self.sock.recv(size - len(data))
            if not chunk:
                raise EOFError("the host closed the connection")
            data += chunk
        return bytes(data)

    # ---- doing things right --------------------------------------------------------------

    def read_cnxn(self) -> Packet:
        while (packet := self.recv()).command != P.A_CNXN:
            pass
        self.host_banner = packet.payload
        return packet

    def handshake(self, banner: bytes = DEVICE_BANNER) -> None:
        """Wait for the host's CNXN and answer it: online, no AUTH."""
        self.read_cnxn()
        self.handshake_answer(banner)

    def handshake_answer(self, banner: bytes = DEVICE_BANNER) -> None:
        """The device's CNXN (once more, if the script wants it again)."""
        self.send(P.A_CNXN, P.VERSION_SKIP_CHECKSUM, P.MAX_PAYLOAD, banner)

    def accept_open(self, prefix: str = "") -> OpenStream:
        """Wait for an OPEN (of a service starting with `prefix`; others are refused) and
        answer OKAY."""
        while True:
            packet = self.recv()
            if packet.command != P.A_OPEN:
                continue
            service = packet.payload.rstrip(b"\0").decode("utf-8", errors="replace")
            if not service.startswith(prefix):
                self.send(P.A_CLSE, 0, packet.arg0)
                continue
            local = self._next_local
            self._next_local += 1
            self.send(P.A_OKAY, local, packet.arg0)
            return OpenStream(local, packet.arg0, service)

    def write(self, stream: OpenStream, data: bytes) -> None:
        """WRTE `data` and wait for the host's OKAY (the host's own WRTEs are acknowledged
        and dropped meanwhile)."""
        self.send(P.A_WRTE, stream.local, stream.remote, data)
        while True:
            packet = self.recv()
            if packet.command == P.A_OKAY:
                return
            if packet.command == P.A_WRTE:
                self.send(P.A_OKAY, stream.local, stream.remote)
            elif packet.command == P.A_CLSE:
                raise EOFError("the host closed the stream")

    def read(self, stream: OpenStream) -> bytes:
        """The payload of the host's next WRTE on any stream, acknowledged."""
        while True:
            packet = self.recv()
            if packet.command == P.A_WRTE:
                self.send(P.A_OKAY, stream.local, stream.remote)
                return packet.payload
            if packet.command == P.A_CLSE:
                raise EOFError("the host closed the stream")

    def close(self, stream: OpenStream) -> None:
        self.send(P.A_CLSE, stream.local, stream.remote)

    def hold(self) -> None:
        """Stay silent until the host closes the connection (its packets are read and
        dropped) or the adbd stops."""
        with contextlib.suppress(EOFError, OSError):
            while not self.stopping.is_set():
                self.recv()


class HostileAdbd:
    """A loopback listener running `script` for each connection (see the module docstring)."""

    def __init__(self, script: Script, *, host: str = "127.0.0.1") -> None:
        self.script = script
        self._listener = socket.create_server((host, 0))
        self.port: int = self._listener.getsockname()[1]
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self.connections = 0
        self.errors: list[BaseException] = []
        """Unexpected exceptions raised by the script (socket errors are expected)."""
        self._acceptor = threading.Thread(
            target=self._accept_loop, name=f"hostile-adbd accept :{self.port}", daemon=True
        )

    @property
    def serial(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> HostileAdbd:
        self._acceptor.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        self._acceptor.join(JOIN_TIMEOUT)
        with self._lock:
            sockets, threads = list(self._sockets), list(self._threads)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        for thread in threads:
            thread.join(JOIN_TIMEOUT)
            if thread.is_alive():
                log.warning("a hostile adbd script did not stop")
        for sock in sockets:
            sock.close()

    def __enter__(self) -> HostileAdbd:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _accept_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                sock, _peer = self._listener.accept()
            except OSError:
                return
            with self._lock:
                if self._stopping.is_set():
                    sock.close()
                    return
                self.connections += 1
                thread = threading.Thread(
                    target=self._serve, args=(sock,), name="hostile-adbd script", daemon=True
                )
                self._sockets.append(sock)
                self._threads.append(thread)
            thread.start()

    def _serve(self, sock: socket.socket) -> None:
        peer = DevicePeer(sock, self._stopping)
        try:
            self.script(peer)
            peer.hold()
        except (EOFError, OSError):
            pass
        except BaseException as error:  # kept for the test to see, never swallowed silently
            log.exception("hostile adbd script failed")
            self.errors.append(error)
