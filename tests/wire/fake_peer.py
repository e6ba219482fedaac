"""A scripted device peer on loopback for fault tests: each test says packet by packet
what the "device" does, so faults that a well-behaved simulator never shows can be made.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from adbwire.wire import packets as P
from adbwire.wire.banner import Banner

DEVICE_BANNER = Banner(
    "device",
    "",
    {"ro.product.name": "fake", "ro.product.model": "Fake Phone", "ro.product.device": "fk"},
    frozenset({"shell_v2", "cmd"}),
)


class PeerSocket:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.sock.settimeout(10)

    def recv_exactly(self, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = self.sock.recv(size - len(data))
            if not chunk:
                raise EOFError("host closed the connection")
            data += chunk
        return data

    def recv_packet(self) -> P.Packet:
        header = P.decode_header(self.recv_exactly(P.HEADER_SIZE), max_payload=P.MAX_PAYLOAD)
        payload = self.recv_exactly(header.length) if header.length else b""
        return P.Packet(header.command, header.arg0, header.arg1, payload)

    def send(self, packet: P.Packet, *, with_checksum: bool = False) -> None:
        self.sock.sendall(packet.encode(with_checksum=with_checksum))

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def accept_cnxn(
        self,
        banner: Banner = DEVICE_BANNER,
        *,
        version: int = P.VERSION_SKIP_CHECKSUM,
        max_payload: int = P.MAX_PAYLOAD,
    ) -> P.Packet:
        """Read the host's CNXN and answer with ours (no auth)."""
        hello = self.recv_packet()
        assert hello.command == P.A_CNXN, hello
        self.send(P.Packet(P.A_CNXN, version, max_payload, banner.encode()))
        return hello


Script = Callable[[PeerSocket], None]


@contextmanager
def fake_device(script: Script) -> Iterator[tuple[str, threading.Event]]:
    """Run `script` against the first connection; yields ('127.0.0.1:PORT', done event)."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    done = threading.Event()
    errors: list[BaseException] = []

    def serve() -> None:
        try:
            listener.settimeout(10)
            conn, _ = listener.accept()
            with conn, contextlib.suppress(EOFError, ConnectionError, OSError):
                script(PeerSocket(conn))
        except BaseException as exc:  # surfaced to the test below
            errors.append(exc)
        finally:
            done.set()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{port}", done
    finally:
        listener.close()
        thread.join(timeout=10)
    if errors:
        raise errors[0]
