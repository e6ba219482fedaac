"""Buffers for frames, kept for the next capture.

A fresh anonymous mapping costs a page fault per 4 KiB page the first time it is written:
about 13 ms of CPU for a 10 MB frame here, as much as all the rest of a screenshot's host
work. A mapping already written costs nothing. So the mappings a screenshot read its frame
into go back to a small pool once nothing refers to them any more, and the next frame of
that size is read into one of them. The pool keeps at most ``KEEP`` idle mapping (sizes
rounded up to ``SIZE_CLASS``, so a device's raw frame and its PNG share one): the memory of
one frame, steady, where freed 10 MB blocks would pile up in the allocator's arenas.

A mapping goes back only when no view of it is left (CPython's reference count says so):
an image still mapped over it, e.g. a ``Frame`` a caller kept, is never written over.

What a screenshot allocates in passing (Pillow's stripes, the PNG's pieces; under 1 MB at
a time) comes from the heap of the thread it ran on, and glibc keeps a heap's freed top
and any free pages below a live block: an MCP server whose screenshots ran on several
threads grew by 25-30 MB that way and stayed there. ``trim_heaps`` gives those pages back
(glibc's ``malloc_trim``; about 0.3 ms), and does nothing elsewhere.
"""

from __future__ import annotations

import mmap
import sys
import threading
from collections.abc import Callable

SIZE_CLASS = 4 << 20
KEEP = 1
_ALONE = 3
"""A mapping's references when nothing else holds it: ``give_back``'s name for it, ``_alone``'s
parameter and ``getrefcount``'s argument."""


class FramePool:
    """Idle mappings, thread-safe."""

    def __init__(self, keep: int = KEEP) -> None:
        self._keep = keep
        self._idle: list[mmap.mmap] = []
        self._lock = threading.Lock()

    @property
    def idle(self) -> int:
        with self._lock:
            return len(self._idle)

    @property
    def idle_bytes(self) -> int:
        """The size of the idle mappings (what the pool can hold resident)."""
        with self._lock:
            return sum(len(mapping) for mapping in self._idle)

    def take(self, size: int) -> mmap.mmap:
        """A mapping of at least ``size`` bytes: an idle one if it is large enough."""
        with self._lock:
            for index, mapping in enumerate(self._idle):
                if len(mapping) >= size:
                    return self._idle.pop(index)
        rounded = max(SIZE_CLASS, -(-size // SIZE_CLASS) * SIZE_CLASS)
        return mmap.mmap(-1, rounded)

    def keep(self, mapping: mmap.mmap) -> None:
        with self._lock:
            if len(self._idle) < self._keep:
                self._idle.append(mapping)
                return
        mapping.close()  # nothing refers to it: its memory goes back at once


POOL = FramePool()


class Lease:
    """The mappings one screenshot reads into; ``give_back`` when its images are gone."""

    def __init__(self, pool: FramePool = POOL) -> None:
        self._pool = pool
        self._taken: list[mmap.mmap] = []

    def take(self, size: int) -> mmap.mmap:
        mapping = self._pool.take(size)
        self._taken.append(mapping)
        return mapping

    def give_back(self) -> None:
        """Return each mapping nothing else refers to; the others are left to the GC."""
        taken, self._taken = self._taken, []
        while taken:
            mapping = taken.pop()
            if _alone(mapping):
                self._pool.keep(mapping)


def _alone(mapping: mmap.mmap) -> bool:
    count = getattr(sys, "getrefcount", None)  # CPython; elsewhere nothing is reused
    return count is not None and count(mapping) <= _ALONE


_trim: Callable[[int], int] | None = None
_trim_looked_up = False


def trim_heaps() -> bool:
    """Give the C heaps' free pages back to the system (glibc); whether that was possible."""
    global _trim, _trim_looked_up  # noqa: PLW0603 - looked up once, on first use
    if not _trim_looked_up:
        _trim_looked_up = True
        if sys.platform.startswith("linux"):
            import ctypes  # noqa: PLC0415 - only when a screenshot is taken, not at start-up

            try:
                _trim = ctypes.CDLL(None).malloc_trim  # absent from musl
            except (AttributeError, OSError):
                _trim = None
    if _trim is None:
        return False
    _trim(0)
    return True
