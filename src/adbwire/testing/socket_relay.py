"""A device stream and a connected socket, relayed both ways (the tcp: service and
reverse listeners)."""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Final

from adbwire.testing.stream import DeviceStream, StreamClosed

__all__ = ["relay"]

RELAY_CHUNK: Final = 256 * 1024


def relay(stream: DeviceStream, target: socket.socket, name: str) -> None:
    """Relay a stream and a connected socket both ways until either ends; closes both."""
    pump = threading.Thread(target=_target_to_stream, args=(target, stream), name=name, daemon=True)
    pump.start()
    try:
        stream_to_target(stream, target)
    finally:
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_RDWR)
        pump.join()
        target.close()


def stream_to_target(stream: DeviceStream, target: socket.socket) -> None:
    while True:
        data = stream.read(RELAY_CHUNK)
        if not data:
            return
        try:
            target.sendall(data)
        except OSError:
            return


def _target_to_stream(target: socket.socket, stream: DeviceStream) -> None:
    while True:
        try:
            data = target.recv(RELAY_CHUNK)
        except OSError:
            data = b""
        if not data:
            break
        try:
            stream.write(data)
        except StreamClosed:
            break
    # The target reached its end: close the stream (the host gets CLSE at once, as from
    # adbd), but what the host already sent still goes to the target, which may only have
    # half-closed (toybox nc at the end of its stdin); the reader above ends after it.
    with contextlib.suppress(StreamClosed):
        stream.close(keep_input=True)
