"""Bytes queued in one direction of a device stream: the pieces as they were written, their
byte count, and taking them back out by a byte limit (what a service asked to read, or one
WRTE's payload). Not thread-safe: the stream's lock guards it."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["ByteQueue"]


class ByteQueue:
    __slots__ = ("_pieces", "size")

    def __init__(self) -> None:
        self._pieces: deque[memoryview] = deque()
        self.size = 0
        """Bytes queued."""

    def __bool__(self) -> bool:
        return bool(self._pieces)

    def append(self, piece: memoryview) -> None:
        """Queue a non-empty piece, kept by reference until taken."""
        self._pieces.append(piece)
        self.size += len(piece)

    def clear(self) -> None:
        self._pieces.clear()
        self.size = 0

    def take(self, limit: int) -> list[memoryview]:
        """The oldest pieces, up to `limit` bytes in all (the last one cut to fit)."""
        pieces = self._pieces
        taken: list[memoryview] = []
        while pieces and limit > 0:
            head = pieces[0]
            if len(head) <= limit:
                pieces.popleft()
            else:
                pieces[0] = head[limit:]
                head = head[:limit]
            taken.append(head)
            limit -= len(head)
            self.size -= len(head)
        return taken

    def take_payload(self, limit: int) -> tuple[ReadableBuffer, int]:
        """Up to `limit` of the oldest bytes as one buffer, and its size: a piece at least
        that long is cut, not copied; smaller pieces are joined. The queue must not be empty."""
        pieces = self._pieces
        head = pieces[0]
        if len(head) < limit:
            parts = self.take(limit)
            if len(parts) == 1:
                return parts[0], len(parts[0])
            joined = b"".join(parts)
            return joined, len(joined)
        if len(head) > limit:
            pieces[0] = head[limit:]
        else:
            pieces.popleft()
        self.size -= limit
        return head[:limit], limit
