"""A scripted device that answers `shell echo` at once: the clients' own floor per call.

It does only what an echo needs (CNXN without AUTH, OPEN of a shell service, the reply, CLSE),
with the reply's packets prepared once and sent in one system call where flow control
allows, so nearly all of a measured round trip is the client's. Under delayed_ack (adbwire)
OKAY, output, exit status and CLSE go out together; with classic flow control (Google's adb,
adb_shell) each WRTE waits for the host's OKAY, as the protocol requires.

Runs in a child process (`InstantPeerProcess`), one thread per connection.
"""

from __future__ import annotations

import multiprocessing
import socket
import struct
import threading
from collections import deque
from types import TracebackType

from adbwire.wire import packets as P
from adbwire.wire.banner import parse_banner

ECHO_OUTPUT = b"benchmark\n"
_BANNER = (
    b"device::ro.product.name=instant;ro.product.model=Instant;features=shell_v2,delayed_ack\0"
)
_WINDOW = struct.Struct("<i")


def _packet(command: int, arg0: int, arg1: int, payload: bytes = b"") -> bytes:
    # Checksums always: adb_shell verifies them whatever the version; the others ignore them.
    return P.Packet(command, arg0, arg1, payload).encode(with_checksum=True)


def _shell_v2(packet_id: int, data: bytes) -> bytes:
    return struct.pack("<BI", packet_id, len(data)) + data


class _PeerConnection:
    def __init__(self, sock: socket.socket) -> None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sock = sock
        self._buffer = bytearray()
        self._delayed_ack = False
        self._next_id = 1
        self._pending: dict[int, tuple[int, deque[bytes]]] = {}

    def _packet_in(self) -> tuple[int, int, int, bytes] | None:
        while True:
            if len(self._buffer) >= P.HEADER_SIZE:
                command, arg0, arg1, length, _check, _magic = P.HEADER.unpack_from(self._buffer)
                end = P.HEADER_SIZE + length
                if len(self._buffer) >= end:
                    payload = bytes(self._buffer[P.HEADER_SIZE : end])
                    del self._buffer[:end]
                    return command, arg0, arg1, payload
            chunk = self._sock.recv(1 << 20)
            if not chunk:
                return None
            self._buffer += chunk

    def serve(self) -> None:
        with self._sock:
            while (packet := self._packet_in()) is not None:
                self._handle(*packet)

    def _handle(self, command: int, arg0: int, arg1: int, payload: bytes) -> None:
        if command == P.A_CNXN:
            self._delayed_ack = parse_banner(payload).has("delayed_ack")
            self._sock.sendall(_packet(P.A_CNXN, P.VERSION_SKIP_CHECKSUM, P.MAX_PAYLOAD, _BANNER))
        elif command == P.A_OPEN:
            self._open(arg0, payload.rstrip(b"\0").decode())
        elif command == P.A_OKAY and not self._delayed_ack:
            self._send_next(arg1)
        elif command == P.A_WRTE and not self._delayed_ack and arg1 in self._pending:
            self._sock.sendall(_packet(P.A_OKAY, arg1, arg0))
        elif command == P.A_CLSE:
            self._pending.pop(arg1, None)

    def _open(self, remote_id: int, service: str) -> None:
        local_id, self._next_id = self._next_id, self._next_id + 1
        if service.startswith("shell,v2"):
            writes = [_shell_v2(1, ECHO_OUTPUT), _shell_v2(3, b"\0")]
        elif service.startswith("shell:"):
            writes = [ECHO_OUTPUT]
        else:
            self._sock.sendall(_packet(P.A_CLSE, 0, remote_id))
            return
        if self._delayed_ack:
            burst = [_packet(P.A_OKAY, local_id, remote_id, _WINDOW.pack(P.MAX_PAYLOAD))]
            burst += [_packet(P.A_WRTE, local_id, remote_id, data) for data in writes]
            burst.append(_packet(P.A_CLSE, local_id, remote_id))
            self._sock.sendall(b"".join(burst))
            return
        self._pending[local_id] = (remote_id, deque(writes))
        okay = _packet(P.A_OKAY, local_id, remote_id)
        first = _packet(P.A_WRTE, local_id, remote_id, self._pending[local_id][1].popleft())
        self._sock.sendall(okay + first)

    def _send_next(self, local_id: int) -> None:
        pending = self._pending.get(local_id)
        if pending is None:
            return
        remote_id, writes = pending
        if writes:
            self._sock.sendall(_packet(P.A_WRTE, local_id, remote_id, writes.popleft()))
        else:
            del self._pending[local_id]
            self._sock.sendall(_packet(P.A_CLSE, local_id, remote_id))


def _serve_forever(listener: socket.socket) -> None:
    while True:
        sock, _address = listener.accept()
        threading.Thread(target=_PeerConnection(sock).serve, daemon=True).start()


def _child(ready: multiprocessing.connection.Connection) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    ready.send(listener.getsockname()[1])
    _serve_forever(listener)


class InstantPeerProcess:
    """The instant peer in a child process; `serial` is its HOST:PORT."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        receiver, sender = context.Pipe(duplex=False)
        self._process = context.Process(target=_child, args=(sender,), daemon=True)
        self._process.start()
        if not receiver.poll(30):
            self._process.kill()
            raise RuntimeError("the instant peer did not start")
        self.serial = f"127.0.0.1:{receiver.recv()}"

    def close(self) -> None:
        self._process.kill()
        self._process.join(10)

    def __enter__(self) -> InstantPeerProcess:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
