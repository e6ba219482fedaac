"""A pull's minimum rate (`min_rate`): each file must arrive within `grace` seconds plus
one second per `min_rate` bytes received, so a device sending a byte now and then cannot
hold a pull for ever. Bytes past the size the device announced earn no more time."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from adbwire.errors import UsageError
from adbwire.wire.services.sync.options import DEFAULT_RATE_GRACE
from adbwire.wire.timeouts import Deadline

__all__ = ["DEFAULT_RATE_GRACE", "MinRate", "Pace", "min_rate_of"]


@dataclass(frozen=True)
class MinRate:
    """The slowest pull accepted: `bytes_per_second` on average, after `grace` seconds."""

    bytes_per_second: float
    grace: float = DEFAULT_RATE_GRACE

    def __post_init__(self) -> None:
        if not self.bytes_per_second > 0 or math.isinf(self.bytes_per_second):
            raise UsageError(f"min_rate must be a positive number, got {self.bytes_per_second!r}")
        if not self.grace > 0 or math.isinf(self.grace):
            raise UsageError(f"rate_grace must be a positive number of seconds, got {self.grace!r}")


def min_rate_of(min_rate: float | None, rate_grace: float) -> MinRate | None:
    return None if min_rate is None else MinRate(min_rate, rate_grace)


class Pace:
    """One file's overall deadline under a MinRate, moving later as bytes arrive."""

    def __init__(self, rate: MinRate, remote: str, size: int | None) -> None:
        self.rate = rate
        self.remote = remote
        self.size = size
        self.started = time.monotonic()

    def deadline(self, moved: int) -> Deadline:
        credited = moved if self.size is None else min(moved, self.size)
        allowed = self.rate.grace + credited / self.rate.bytes_per_second
        of_size = "" if self.size is None else f" of {self.size}"
        what = (
            f"pull of '{self.remote}' (slower than the minimum rate of "
            f"{self.rate.bytes_per_second:g} bytes/s: {moved}{of_size} bytes in the "
            f"{allowed:.1f} s allowed)"
        )
        return Deadline(self.started + allowed - time.monotonic(), what)
