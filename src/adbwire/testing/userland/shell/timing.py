"""mksh's `time` keyword: a pipeline's real, user and system times on stderr once it ran.

Real time is measured; the simulated device runs no code of its own, so user and system
times are 0. `time` alone reports the shell's (user and system only), `time -p` prints
POSIX's three lines.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from adbwire.testing.userland.process import Streams

__all__ = ["timed"]


def _clock(seconds: float) -> str:
    minutes, rest = divmod(seconds, 60)
    return f"{int(minutes):5d}m{rest:05.2f}s"


def timed(run: Callable[[], int] | None, streams: Streams, *, posix: bool = False) -> int:
    """Run the pipeline (`run`; None for `time` alone) and report how long it took."""
    started = time.monotonic()
    status = run() if run is not None else 0
    real = time.monotonic() - started
    if posix:
        report = f"real {real:.2f}\nuser 0.00\nsys 0.00\n"
    elif run is None:
        report = f"{_clock(0)} user {_clock(0)} system\n"
    else:
        report = f"{_clock(real)} real {_clock(0)} user {_clock(0)} system\n"
    streams.stderr.write(report.encode())
    return status
