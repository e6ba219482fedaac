"""The simulated link's rate (`adbwire simulate --link-mbps N`): each direction of a
connection carries at most N megabits per second, like a phone on a USB 2 cable (~40).

A `LinkPacer` is one direction. Every transfer of n bytes occupies the link for n / rate
seconds after the previous transfer's end; the caller sleeps until its bytes have "arrived".
Sleeping waits on the connection's stop event, so stopping the device is never held up.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Final

__all__ = ["LinkPacer", "paced_reader"]

BITS_PER_MEGABIT: Final = 1_000_000


class LinkPacer:
    """One direction of a link limited to `mbps` megabits per second."""

    def __init__(self, mbps: float, stopped: threading.Event) -> None:
        if not mbps > 0:
            raise ValueError("the link rate must be positive")
        self._bytes_per_second = mbps * BITS_PER_MEGABIT / 8
        self._stopped = stopped
        self._lock = threading.Lock()
        self._free_at = 0.0

    @property
    def bytes_per_second(self) -> float:
        return self._bytes_per_second

    def pace(self, size: int) -> None:
        """Block until `size` more bytes have crossed the link."""
        if size <= 0:
            return
        with self._lock:
            now = time.monotonic()
            self._free_at = max(now, self._free_at) + size / self._bytes_per_second
            wait = self._free_at - now
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
