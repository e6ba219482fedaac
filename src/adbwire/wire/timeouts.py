"""The one timeout model: a connect timeout, an auth wait, and a per-operation deadline.

* ``connect`` bounds opening the byte link and the CNXN/AUTH exchange with a device that
  already trusts our key.
* ``auth`` bounds waiting for a person to press "Allow" on the device's USB-debugging prompt.
* ``operation`` is the default deadline of one call (open a stream, run a command). Every
  blocking call also takes an explicit ``timeout`` that overrides it: ``None`` means "the
  default", ``math.inf`` means no deadline. File transfers read it as an idle timeout.

Below these, the TCP transport declares a link dead when one send stays blocked for
``max(60 s, operation)`` (the device stopped reading); with ``operation=math.inf`` it never
does.
"""

from __future__ import annotations

import math
import threading
import time

from adbwire.errors import AdbTimeoutError, UsageError
from adbwire.wire.values import FrozenValue

LONGEST_WAIT = threading.TIMEOUT_MAX
"""About 292 years: a timeout longer than this is taken as no timeout (no lock can wait so long)."""


class Timeouts(FrozenValue):
    """Immutable, compared and hashed by value (as the frozen dataclass it was)."""

    __match_args__ = ("connect", "auth", "operation")
    __slots__ = __match_args__
    connect: float
    auth: float
    operation: float

    def __init__(self, connect: float = 10.0, auth: float = 60.0, operation: float = 30.0) -> None:
        for name, seconds in (("connect", connect), ("auth", auth), ("operation", operation)):
            check_seconds(seconds, name)
            object.__setattr__(self, name, seconds)


def check_seconds(value: float, name: str) -> None:
    """A timeout is a positive number of seconds, or math.inf for none; NaN is refused."""
    if math.isnan(value) or value <= 0:
        raise UsageError(f"{name} timeout must be a positive number of seconds, got {value!r}")


class Deadline:
    """A point in monotonic time after which an operation gives up."""

    __slots__ = ("_at", "_what")

    def __init__(self, seconds: float | None, what: str) -> None:
        """`seconds` of None or math.inf means no deadline."""
        if seconds is not None and math.isnan(seconds):
            raise UsageError(f"{what}: the timeout cannot be NaN")
        if seconds is None or seconds >= LONGEST_WAIT:
            self._at: float | None = None
        else:
            self._at = time.monotonic() + seconds
        self._what = what

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None when there is no deadline."""
        if self._at is None:
            return None
        return max(0.0, self._at - time.monotonic())

    def expired(self) -> bool:
        return self._at is not None and time.monotonic() >= self._at

    def error(self) -> AdbTimeoutError:
        return AdbTimeoutError(f"{self._what} timed out")
