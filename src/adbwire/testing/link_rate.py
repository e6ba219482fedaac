"""The simulated link's rate (`adbwire simulate --link-mbps N`): each direction of a
connection carries at most N megabits per second, like a phone on a USB 2 cable (~40).

A `LinkPacer` is one direction. Every transfer of n bytes occupies the link for n / rate
seconds after the previous transfer's end. Like a real link (USB request queues, socket
buffers) it holds `buffer` bytes: a sender waits only while more than that is still queued,
so its own work between writes (reading a file, compressing) overlaps the transfer and a
late wake-up from a sleep costs no link time. Sleeping waits on the connection's stop
event, so stopping the device is never held up.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Final

__all__ = ["LinkPacer", "paced_reader"]

BITS_PER_MEGABIT: Final = 1_000_000
LINK_BUFFER: Final = 256 * 1024
"""Bytes a link holds in flight (a few USB requests or a modest socket buffer)."""


class LinkPacer:
    """One direction of a link limited to `mbps` megabits per second."""

    def __init__(self, mbps: float, stopped: threading.Event, *, buffer: int = LINK_BUFFER) -> None:
        if not mbps > 0:
            raise ValueError("the link rate must be positive")
        self._bytes_per_second = mbps * BITS_PER_MEGABIT / 8
        self._slack = buffer / self._bytes_per_second
        self._stopped = stopped
        self._lock = threading.Lock()
        self._free_at = 0.0

    @property
    def bytes_per_second(self) -> float:
        return self._bytes_per_second

    def pace(self, size: int) -> None:
        """Queue `size` more bytes; block while more than the link's buffer is queued."""
        if size <= 0:
            return
        with self._lock:
            now = time.monotonic()
            self._free_at = max(now, self._free_at) + size / self._bytes_per_second
            wait = self._free_at - self._slack - now
        if wait > 0:
            self._stopped.wait(wait)


def paced_reader(
    recv_into: Callable[[memoryview], int], pacer: LinkPacer | None
) -> Callable[[memoryview], int]:
    """`recv_into` whose bytes are delivered at the pacer's rate (unchanged without one)."""
    if pacer is None:
        return recv_into

    def read(view: memoryview) -> int:
        count = recv_into(view)
        pacer.pace(count)
        return count

    return read
