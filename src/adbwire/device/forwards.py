"""Port forwards of every device this process talks to: one `PortForwarder` per device
connection (a reconnection gets a fresh one; the old forwards died with the old link)."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from adbwire.device.errors import NotFoundError
from adbwire.wire.client import AdbClient
from adbwire.wire.services.forward import PortForwarder


@dataclass(frozen=True)
class ForwardEntry:
    serial: str
    port: int
    local: str
    remote: str
    connections: int


class ForwardTable:
    def __init__(self) -> None:
        self._by_serial: dict[str, tuple[AdbClient, PortForwarder]] = {}
        self._lock = threading.Lock()

    def _forwarder(self, serial: str, client: AdbClient) -> PortForwarder:
        with self._lock:
            known = self._by_serial.get(serial)
            if known is not None and known[0] is client and known[1].alive:
                return known[1]
            if known is not None:
                known[1].close()
            forwarder = client.port_forwarder()
            self._by_serial[serial] = (client, forwarder)
            return forwarder

    def add(self, serial: str, client: AdbClient, local_port: int, remote: str) -> ForwardEntry:
        """Listen on 127.0.0.1:local_port (0: any free port) and relay to `remote`."""
        made = self._forwarder(serial, client).forward(f"tcp:{local_port}", remote)
        return ForwardEntry(serial, made.port, made.local, made.remote, made.active_connections)

    def entries(self) -> list[ForwardEntry]:
        with self._lock:
            forwarders = sorted(self._by_serial.items())
        return [
            ForwardEntry(serial, f.port, f.local, f.remote, f.active_connections)
            for serial, (_, forwarder) in forwarders
            for f in forwarder.list_forwards()
        ]

    def remove(self, local_port: int) -> None:
        with self._lock:
            forwarders = list(self._by_serial.values())
        for _, forwarder in forwarders:
            if any(f.port == local_port for f in forwarder.list_forwards()):
                forwarder.remove(f"tcp:{local_port}")
                return
        raise NotFoundError(f"no forward on local port {local_port}")

    def close(self) -> None:
        with self._lock:
            forwarders, self._by_serial = list(self._by_serial.values()), {}
        for _, forwarder in forwarders:
            forwarder.close()
