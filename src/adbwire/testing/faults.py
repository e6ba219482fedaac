"""Faults injected on purpose, so a client's error handling can be tested.

A `Faults` object belongs to a running `SimulatedDevice` (`device.faults`); tests change its
fields at any time and they apply to the next packet or write::

    device.faults.drop_after_sent_bytes = 100_000   # cut the connection mid-transfer
    device.faults.response_delay = 0.2              # every packet the device sends is late
    device.faults.stall("sync:", after_bytes=0)     # sync output stops until release_stalls()
    device.faults.trickle("shell", interval=2.0)    # shell output: one byte every 2 s
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

__all__ = ["Faults"]


@dataclass
class Faults:
    drop_after_sent_bytes: int | None = None
    """Close a connection abruptly once the device has sent this many bytes on it (the
    packet that crosses the limit is cut short)."""
    drop_after_received_bytes: int | None = None
    """Close a connection abruptly once the device has received this many bytes on it."""
    response_delay: float = 0.0
    """Seconds to wait before sending each packet."""
    refuse_services: tuple[str, ...] = ()
    """Service-name prefixes whose OPEN is answered with CLSE."""
    stalled_services: tuple[str, ...] = ()
    """Service-name prefixes whose output stops after `stall_after_bytes`."""
    stall_after_bytes: int = 0
    trickle_services: tuple[str, ...] = ()
    """Service-name prefixes whose output leaves one byte per WRTE, `trickle_interval` apart."""
    trickle_interval: float = 0.0
    unanswered_services: tuple[str, ...] = ()
    """Service-name prefixes whose OPEN gets no answer at all (neither OKAY nor CLSE)."""
    turn_away_connections: int = 0
    """Close this many of the next connections as soon as they are accepted (adbd still
    restarting); `turned_away` counts them."""
    turned_away: int = 0
    keep_link_on_restart: bool = False
    """adbd answers root:/unroot:/tcpip:/usb:/reboot: but the connection stays up (some
    builds restart late), so the client must close it itself."""
    _released: threading.Event = field(default_factory=threading.Event, repr=False)

    def stall(self, service_prefix: str, *, after_bytes: int = 0) -> None:
        self._released.clear()
        self.stall_after_bytes = after_bytes
        self.stalled_services = (*self.stalled_services, service_prefix)

    def trickle(self, service_prefix: str, *, interval: float) -> None:
        """From now on, streams of services starting with `service_prefix` ("" for every
        service) send their output one byte per WRTE, `interval` seconds apart: framing
        bytes too (sync DATA headers, shell v2 packet headers). Never idle, never done."""
        if interval < 0:
            raise ValueError("interval must not be negative")
        self.trickle_interval = interval
        self.trickle_services = (*self.trickle_services, service_prefix)

    def release_stalls(self) -> None:
        """Let every stalled stream go on, and stop stalling new ones."""
        self.stalled_services = ()
        self._released.set()

    # Both are asked for every stream or write: with no fault set they answer at once.
    def refuses(self, service: str) -> bool:
        return bool(self.refuse_services) and service.startswith(self.refuse_services)

    def stalls(self, service: str, bytes_written: int) -> bool:
        return (
            bool(self.stalled_services)
            and bytes_written >= self.stall_after_bytes
            and service.startswith(self.stalled_services)
        )

    def trickles(self, service: str) -> bool:
        return bool(self.trickle_services) and service.startswith(self.trickle_services)

    def leaves_unanswered(self, service: str) -> bool:
        return bool(self.unanswered_services) and service.startswith(self.unanswered_services)

    def turns_away(self) -> bool:
        """True (and counted) while connections are to be turned away."""
        if self.turn_away_connections <= 0:
            return False
        self.turn_away_connections -= 1
        self.turned_away += 1
        return True

    def wait_released(self, timeout: float) -> bool:
        return self._released.wait(timeout)

    def reset(self) -> None:
        self.drop_after_sent_bytes = None
        self.drop_after_received_bytes = None
        self.response_delay = 0.0
        self.refuse_services = ()
        self.trickle_services = ()
        self.trickle_interval = 0.0
        self.unanswered_services = ()
        self.turn_away_connections = 0
        self.keep_link_on_restart = False
        self.release_stalls()
