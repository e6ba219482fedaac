"""A small multi-stream adbd for these tests: real ADB packets over loopback TCP.

No auth, protocol version 0x01000001, no delayed_ack: one WRTE in flight per direction,
and the device acknowledges the host's WRTE only when its service has read the data, so
back-pressure is real. Services are plain functions chosen by name prefix; a factory that
returns None refuses the OPEN (CLSE), as adbd does for a port with nothing listening.
Stand-in until the project's simulated device (adbwire.testing) covers these services.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from adbwire.wire import packets as P
from adbwire.wire.banner import Banner

ServiceHandler = Callable[["DeviceStream"], None]
ServiceFactory = Callable[[str, "DeviceConnection"], "ServiceHandler | None"]

WAIT = 10.0


def SILENT(stream: DeviceStream) -> None:
    """A handler that marks a service whose OPEN the device never answers."""


class StreamGone(Exception):
    pass


class DeviceStream:
    def __init__(self, conn: DeviceConnection, local_id: int, remote_id: int, service: str):
        self.conn = conn
        self.local_id = local_id
        self.remote_id = remote_id
        self.service = service
        self._cond = threading.Condition()
        self._chunks: deque[bytes] = deque()
        self._can_send = True
        self._closed = False

    def read(self, wait: float | None = WAIT) -> bytes:
        """Next chunk from the host; b"" once the host closed the stream."""
        with self._cond:
            while not self._chunks and not self._closed:
                if not self._cond.wait(wait) and wait is not None:
                    raise TimeoutError(f"{self.service}: host sent nothing")
            if not self._chunks:
                return b""
            chunk = self._chunks.popleft()
        self.conn.send(P.Packet(P.A_OKAY, self.local_id, self.remote_id))
        return chunk

    def read_idle(self) -> bytes:
        """Like read, for relays that may sit idle for as long as their client does."""
        return self.read(None)

    def read_exactly(self, size: int) -> bytes:
        data = bytearray()
        pending = b""
        while len(data) < size:
            chunk = pending or self.read()
            pending = b""
            if not chunk:
                raise StreamGone(f"{self.service}: closed after {len(data)} of {size} bytes")
            need = size - len(data)
            data += chunk[:need]
            pending = chunk[need:]
        if pending:
            with self._cond:
                self._chunks.appendleft(pending)
        return bytes(data)

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        limit = self.conn.max_payload
        for start in range(0, len(view), limit):
            with self._cond:
                while not self._can_send and not self._closed:
                    if not self._cond.wait(WAIT):
                        raise TimeoutError(f"{self.service}: host never acknowledged")
                if self._closed:
                    raise StreamGone(self.service)
                self._can_send = False
            chunk = bytes(view[start : start + limit])
            self.conn.send(P.Packet(P.A_WRTE, self.local_id, self.remote_id, chunk))

    def close(self) -> None:
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
        self.conn.send(P.Packet(P.A_CLSE, self.local_id, self.remote_id))
        self.conn.forget(self.local_id)

    # called by the connection's reader
    def _on_data(self, payload: bytes) -> None:
        with self._cond:
            self._chunks.append(payload)
            self._cond.notify_all()

    def _on_okay(self) -> None:
        with self._cond:
            self._can_send = True
            self._cond.notify_all()

    def _on_close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()


class DeviceConnection:
    def __init__(self, device: FakeAdbd, sock: socket.socket) -> None:
        self.device = device
        self.sock = sock
        self.max_payload = P.MAX_PAYLOAD
        self._send_lock = threading.Lock()
        self._streams: dict[int, DeviceStream] = {}
        self._next_id = 1
        self._lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def send(self, packet: P.Packet) -> None:
        with contextlib.suppress(OSError), self._send_lock:
            self.sock.sendall(packet.encode(with_checksum=False))

    def forget(self, local_id: int) -> None:
        with self._lock:
            self._streams.pop(local_id, None)

    def drop(self) -> None:
        """Cut the link abruptly, as a restarting adbd does."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()

    def _recv_exactly(self, size: int) -> bytes:
        data = bytearray()
        while len(data) < size:
            chunk = self.sock.recv(size - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return bytes(data)

    def _run(self) -> None:
        with contextlib.suppress(EOFError, OSError):
            while True:
                header = P.decode_header(
                    self._recv_exactly(P.HEADER_SIZE), max_payload=P.MAX_PAYLOAD
                )
                payload = self._recv_exactly(header.length) if header.length else b""
                self._dispatch(header, payload)
        with self._lock:
            streams = list(self._streams.values())
        for stream in streams:
            stream._on_close()

    def _dispatch(self, header: P.Header, payload: bytes) -> None:
        if header.command == P.A_CNXN:
            self.max_payload = min(header.arg1, P.MAX_PAYLOAD)
            banner = Banner("device", "", {"ro.product.name": "fake"}, self.device.features)
            self.send(P.Packet(P.A_CNXN, P.VERSION_SKIP_CHECKSUM, P.MAX_PAYLOAD, banner.encode()))
        elif header.command == P.A_OPEN:
            self._open(header.arg0, payload.rstrip(b"\0").decode())
        elif header.command in (P.A_WRTE, P.A_OKAY, P.A_CLSE):
            with self._lock:
                stream = self._streams.get(header.arg1)
            if stream is None:
                return
            if header.command == P.A_WRTE:
                stream._on_data(payload)
            elif header.command == P.A_OKAY:
                stream._on_okay()
            else:
                self.forget(header.arg1)
                stream._on_close()

    def _open(self, remote_id: int, service: str) -> None:
        self.device.opened.append(service)
        handler = self.device.handler_for(service, self)
        if handler is SILENT:
            return
        if handler is None:
            self.send(P.Packet(P.A_CLSE, 0, remote_id))
            return
        with self._lock:
            local_id = self._next_id
            self._next_id += 1
            stream = DeviceStream(self, local_id, remote_id, service)
            self._streams[local_id] = stream
        self.send(P.Packet(P.A_OKAY, local_id, remote_id))

        def run() -> None:
            try:
                handler(stream)
            except (StreamGone, TimeoutError, OSError):
                pass
            finally:
                stream.close()

        threading.Thread(target=run, daemon=True, name=f"fake-adbd {service[:30]!r}").start()


class FakeAdbd:
    def __init__(self, features: frozenset[str]) -> None:
        self.features = features
        self.opened: list[str] = []
        self._factories: list[tuple[str, ServiceFactory]] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.connections: list[DeviceConnection] = []
        self.turned_away = 0
        self._turn_away = 0
        self._accepting = True
        self._acceptor = threading.Thread(target=self._accept, daemon=True)
        self._acceptor.start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def serve(self, prefix: str, factory: ServiceFactory) -> None:
        """Answer services starting with `prefix` (later registrations win)."""
        self._factories.insert(0, (prefix, factory))

    def handler_for(self, service: str, conn: DeviceConnection) -> ServiceHandler | None:
        for prefix, factory in self._factories:
            if service.startswith(prefix):
                return factory(service[len(prefix) :], conn)
        return None

    def turn_away(self, count: int) -> None:
        """Close the next `count` connections at once (adbd not back up yet)."""
        self._turn_away = count

    def _accept(self) -> None:
        while self._accepting:
            try:
                sock, _ = self._listener.accept()
            except OSError:
                return
            if self._turn_away > 0:
                self._turn_away -= 1
                self.turned_away += 1
                sock.close()
                continue
            conn = DeviceConnection(self, sock)
            self.connections.append(conn)
            conn.thread.start()

    def close(self) -> None:
        self._accepting = False
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        for conn in self.connections:
            conn.drop()
        self._acceptor.join(WAIT)
        for conn in self.connections:
            conn.thread.join(WAIT)


@contextmanager
def fake_adbd(features: frozenset[str]) -> Iterator[FakeAdbd]:
    device = FakeAdbd(features)
    try:
        yield device
    finally:
        device.close()
