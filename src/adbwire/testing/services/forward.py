"""tcp:PORT — connect to a loopback port on "the device" and relay bytes both ways.

Only loopback targets are allowed (`tcp:PORT`, `tcp:localhost:PORT`, `tcp:127.0.0.1:PORT`):
the simulator never reaches off the machine. The connection is made before the OPEN is
answered, so a closed port is refused with CLSE at once, as adbd does.
"""

from __future__ import annotations

import socket
from typing import Final

from adbwire.testing.services.base import ServiceHandler
from adbwire.testing.socket_relay import relay
from adbwire.testing.stream import DeviceStream

__all__ = ["open_tcp"]

CONNECT_TIMEOUT: Final = 5.0
LOOPBACK_NAMES: Final = ("localhost", "127.0.0.1")


def _target_port(spec: str) -> int | None:
    host, _sep, port_text = spec.rpartition(":")
    if host and host not in LOOPBACK_NAMES:
        return None
    try:
        port = int(port_text)
    except ValueError:
        return None
    return port if 0 < port < 65536 else None


def open_tcp(spec: str) -> ServiceHandler | None:
    port = _target_port(spec)
    if port is None:
        return None
    try:
        target = socket.create_connection(("127.0.0.1", port), timeout=CONNECT_TIMEOUT)
    except OSError:
        return None
    target.settimeout(None)
    target.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def serve(stream: DeviceStream) -> None:
        relay(stream, target, f"adbd-sim tcp:{port}")

    return serve
