"""Small numeric helpers: percentiles, rates, timing."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (fraction in 0..1) of a non-empty sequence."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    rank = max(1, round(fraction * len(ordered) + 0.4999))
    return ordered[min(rank, len(ordered)) - 1]


def summary_ms(seconds: Sequence[float]) -> dict[str, float | int]:
    """Median, p95, mean, min and max in milliseconds, and the count."""
    return {
        "count": len(seconds),
        "median_ms": statistics.median(seconds) * 1000,
        "mean_ms": statistics.fmean(seconds) * 1000,
        "p95_ms": percentile(seconds, 0.95) * 1000,
        "min_ms": min(seconds) * 1000,
        "max_ms": max(seconds) * 1000,
    }


def megabytes_per_second(size: int, seconds: float) -> float:
    """Decimal MB/s (10^6 bytes), as adb prints."""
    return size / 1e6 / seconds


def timed(action: Callable[[], T]) -> tuple[float, T]:
    started = time.perf_counter()
    result = action()
    return time.perf_counter() - started, result


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or denominator is None or denominator == 0:
        return None
    return numerator / denominator
