"""The project's simulated adbd (adbwire.testing) behind the fake USB endpoints.

Two threads carry packets between the fake device's bulk endpoints and a loopback TCP
connection to a `SimulatedDevice`. Host-to-device packets are taken as USB transfers and
must be framed as on a real gadget (a 24-byte header transfer, then a payload transfer of
exactly the announced length), so the simulator only sees what a real adbd could read.
Device-to-host packets go out as two transfers, header then payload, with no zero-length
packet, as adbd sends them. Bytes are forwarded unchanged (checksums included).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from adbwire.wire import packets as P

from .fake_usb import FakeDevice

POLL = 0.1


def _recv_exactly(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise EOFError("the simulator closed the connection")
        data += chunk
    return data


@contextmanager
def usb_bridge(device: FakeDevice, address: tuple[str, int]) -> Iterator[list[BaseException]]:
    """Yields the list of framing errors seen (the test asserts it stays empty)."""
    sock = socket.create_connection(address, timeout=10)
    stop = threading.Event()
    errors: list[BaseException] = []

    def host_to_device() -> None:
        try:
            while not stop.is_set():
                try:
                    header = device.read_transfer(POLL)
                except TimeoutError:
                    continue
                if len(header) != P.HEADER_SIZE:
                    raise AssertionError(f"header transfer of {len(header)} bytes")
                length = P.decode_header(header, max_payload=P.MAX_PAYLOAD).length
                payload = device.read_transfer(5.0) if length else b""
                if len(payload) != length:
                    raise AssertionError(f"payload transfer of {len(payload)}, not {length}")
                sock.sendall(header + payload)
        except EOFError:
            pass
        except BaseException as exc:
            if not stop.is_set():  # once stopping, the socket closes under a late sendall
                errors.append(exc)
        finally:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_WR)

    def device_to_host() -> None:
        with contextlib.suppress(EOFError, OSError):
            while not stop.is_set():
                header = _recv_exactly(sock, P.HEADER_SIZE)
                length = P.decode_header(header, max_payload=P.MAX_PAYLOAD).length
                device.send_transfer(header)
                if length:
                    device.send_transfer(_recv_exactly(sock, length))

    threads = [
        threading.Thread(target=host_to_device, daemon=True),
        threading.Thread(target=device_to_host, daemon=True),
    ]
    for thread in threads:
        thread.start()
    try:
        yield errors
    finally:
        stop.set()
        threads[0].join(timeout=5)  # polls `stop`: done before the socket goes away
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in recv
        sock.close()
        for thread in threads:
            thread.join(timeout=5)
