"""Cancellation of blocking work from another thread.

A blocking call runs inside an `Operation` bound to its thread; every stream the call opens
is adopted by the operation. `cancel()` (from any thread, e.g. the async facade when its
task is cancelled) closes those streams, so the blocked call wakes at once and unwinds.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from adbwire.errors import OperationCancelledError

if TYPE_CHECKING:
    from adbwire.wire.stream import Stream

_current = threading.local()


class Operation:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._streams: list[Stream] = []
        self._cancelled = False
        self._result: object = None

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def adopt(self, stream: Stream) -> None:
        with self._lock:
            if not self._cancelled:
                self._streams.append(stream)
                return
        stream.close()
        raise OperationCancelledError("the operation was cancelled")

    def deliver(self, result: object) -> bool:
        """Hand over the call's result; False when the call was cancelled first."""
        with self._lock:
            if self._cancelled:
                return False
            self._result = result
            return True

    def cancel(self) -> object:
        """Close the operation's streams; return a result delivered too late to be used."""
        with self._lock:
            self._cancelled = True
            streams, self._streams = self._streams, []
            orphan, self._result = self._result, None
        for stream in streams:
            stream.close()
        return orphan

    @contextmanager
    def bound(self) -> Iterator[Operation]:
        """Make this the current thread's operation for the duration of the block."""
        previous = getattr(_current, "operation", None)
        _current.operation = self
        try:
            yield self
        finally:
            _current.operation = previous


def current_operation() -> Operation | None:
    operation: Operation | None = getattr(_current, "operation", None)
    return operation
