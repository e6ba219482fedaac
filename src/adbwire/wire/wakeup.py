"""A wake-up call for one waiting thread, cheaper than `threading.Condition`.

A thread that waits for a packet someone else reads (the reader thread, or another caller
reading for the connection: wire/reading.py) is woken with one of these. `Condition.wait`
allocates a lock per wait and, once woken, must take the shared lock back from the thread
that woke it; measured on a shell `echo`, that was about 40 µs of a round trip against
about 12 µs for handing over a bare lock. Callers keep their state under their
own lock, check it, and only then wait: a `set` that came in between is not lost, because
the wake-up stays set until a wait consumes it (a wait may therefore return without news,
and callers re-check their state in a loop).
"""

from __future__ import annotations

import threading


class Wakeup:
    __slots__ = ("_released",)

    def __init__(self) -> None:
        self._released = threading.Lock()
        self._released.acquire()

    def set(self) -> None:
        """Wake the waiter, or the next wait if nobody waits now (setting twice is one call)."""
        if not self._released.locked():
            return  # already set (most stream events find nobody waiting)
        try:  # noqa: SIM105 - on the hot path; contextlib.suppress costs more than the call
            self._released.release()
        except RuntimeError:
            pass  # set by another thread in between

    def wait(self, timeout: float | None = None) -> bool:
        """Block until set or `timeout` seconds passed (None: no limit); True when set."""
        return self._released.acquire(True, -1 if timeout is None else timeout)
