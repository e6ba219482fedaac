"""Which way to capture one device's screen: the raw frame, or the device's own PNG.

A raw frame costs the device almost nothing and the host nothing to decode, but it is 4
bytes a pixel (10 MB for a 1080x2424 phone: 0.25 s over USB 2, 2 s over a slow link). The
device's PNG (``screencap -p``) is a fraction of that on the wire, but a phone takes hundreds
of milliseconds to encode it and the host tens to decode it. Which wins depends on the
device and the link, so it is measured, per device:

- each capture records its path, its seconds (fetch and decode: what the choice changes),
  the bytes transferred and how long they took to arrive;
- the link rate is learnt from raw frames large enough to time (``RATE_MIN_BYTES``): the
  device writes those as fast as the link takes them, where a PNG may come out only as fast
  as the device encodes it;
- a path's cost is split into a fixed part (device encode, host decode, round trips) and
  its bytes over the link rate, so when the rate changes both predictions follow at once;
- the cheaper prediction is taken; each path is tried ``MIN_SAMPLES`` times first (raw,
  PNG, raw, PNG, raw, PNG: a device's first captures are often slow, and with two samples
  a path whose first two were slow stayed unused for ``RECHECK_EVERY`` captures), and the
  other path is tried again every ``RECHECK_EVERY`` captures or ``RECHECK_SECONDS``.

A path's fixed part is the least of its last ``KEPT`` samples: what it costs when nothing
else gets in the way, so one slow capture on a busy machine does not flip the choice. The
link rate and the bytes are running averages (``WEIGHT`` for the newest sample).
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

CapturePath = Literal["raw", "png"]
RECHECK_EVERY = 25
RECHECK_SECONDS = 300.0
RATE_MIN_BYTES = 256 * 1024
MIN_SAMPLES = 3
KEPT = 5
WEIGHT = 0.5


@dataclass
class _Cost:
    transferred: float
    measured_at: float
    fixed: deque[float] = field(default_factory=lambda: deque(maxlen=KEPT))
    captures_since: int = 0


@dataclass
class CapturePaths:
    """Per device: what each capture path cost lately, and which to take next."""

    clock: Callable[[], float] = time.monotonic
    _costs: dict[CapturePath, _Cost] = field(default_factory=dict)
    _link_rate: float | None = None
    _raw_unreadable: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def link_rate(self) -> float | None:
        """Bytes per second the link carried in recent large transfers (None: none yet)."""
        return self._link_rate

    def choose(self) -> CapturePath:
        """The path to capture with next."""
        with self._lock:
            if self._raw_unreadable:
                return "png"
            raw, png = self._costs.get("raw"), self._costs.get("png")
            raw_samples = len(raw.fixed) if raw is not None else 0
            png_samples = len(png.fixed) if png is not None else 0
            if raw is None or png is None or min(raw_samples, png_samples) < MIN_SAMPLES:
                return "raw" if raw_samples <= png_samples else "png"  # alternate, raw first
            best: CapturePath = "raw" if self._predict(raw) <= self._predict(png) else "png"
            other = png if best == "raw" else raw
            stale = self.clock() - other.measured_at >= RECHECK_SECONDS
            if stale or other.captures_since >= RECHECK_EVERY:
                return "png" if best == "raw" else "raw"
            return best

    def predicted(self, path: CapturePath) -> float | None:
        """Seconds a capture over ``path`` is expected to take now (None: not measured)."""
        with self._lock:
            cost = self._costs.get(path)
            return None if cost is None else self._predict(cost)

    def record(
        self, path: CapturePath, seconds: float, transferred: int, transfer_seconds: float
    ) -> None:
        """One capture: its total seconds, bytes, and the seconds those bytes took."""
        with self._lock:
            if path == "raw" and transferred >= RATE_MIN_BYTES and transfer_seconds > 0:
                self._link_rate = _blend(self._link_rate, transferred / transfer_seconds)
            on_link = transferred / self._link_rate if self._link_rate else transfer_seconds
            fixed = max(0.0, seconds - on_link)
            now = self.clock()
            cost = self._costs.get(path)
            if cost is None:
                cost = self._costs[path] = _Cost(transferred, now)
            else:
                cost.transferred = _blend(cost.transferred, transferred)
                cost.measured_at = now
                cost.captures_since = 0
            cost.fixed.append(fixed)
            for other, cost in self._costs.items():
                if other != path:
                    cost.captures_since += 1

    def failed(self, path: CapturePath) -> None:
        """``path`` gave no usable frame (the other one did): not taken again until its
        next re-check, so a broken path costs one extra round trip now and then, not each
        capture."""
        with self._lock:
            cost = self._costs.get(path)
            if cost is None:
                cost = self._costs[path] = _Cost(0.0, self.clock())
            cost.fixed.extend([math.inf] * MIN_SAMPLES)
            cost.measured_at = self.clock()
            cost.captures_since = 0

    def raw_unreadable(self) -> None:
        """The device's raw frames cannot be decoded here (FP16, 10-bit): PNG from now on."""
        with self._lock:
            self._raw_unreadable = True

    def _predict(self, cost: _Cost) -> float:
        rate = self._link_rate
        return min(cost.fixed) + (cost.transferred / rate if rate else 0.0)


def _blend(old: float | None, new: float) -> float:
    return new if old is None else old + WEIGHT * (new - old)
