"""Cutting large outputs into pages with a cursor, so nothing is dropped silently.

The full output of a call (log entries, shell output, a listing) is kept in memory for a
while; the first page is returned with ``next_cursor``, and calling the same tool with that
cursor returns the next page without touching the device again (re-running a shell command
to page it could repeat its effects). Stored outputs are bounded in number and total size;
an evicted or unknown cursor is a ``cursor_expired`` error.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from adbwire.mcp.results.envelope import ErrorCode, ToolFailure

T = TypeVar("T")

MAX_STORED = 64
MAX_STORED_BYTES = 32 * 1024 * 1024


@dataclass
class Page(Generic[T]):
    items: list[T]
    next_cursor: str | None
    remaining: int
    """Items left after this page (0 on the last one)."""


@dataclass
class _Stored:
    tool: str
    pages: list[list[Any]]
    size: int


class Pager:
    """Thread-safe store of paged outputs, shared by every session of one server."""

    def __init__(self, max_stored: int = MAX_STORED, max_bytes: int = MAX_STORED_BYTES) -> None:
        self._max_stored = max_stored
        self._max_bytes = max_bytes
        self._stored: OrderedDict[str, _Stored] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def paginate(
        self,
        tool: str,
        items: list[T],
        page_size: int,
        *,
        newest_first: bool = False,
        size: int = 0,
        max_chars: int | None = None,
    ) -> Page[T]:
        """The first page of `items`; with newest_first the last items come first (each page
        stays in the original order), for logs where the recent end matters most. With
        `max_chars` a page also ends before its items (as text, a line each) would pass that
        many characters; a page holds at least one item."""
        if page_size <= 0:
            raise ValueError("page_size must be positive")
        if max_chars is not None:
            chunks = _chunks_within(items, page_size, max_chars, newest_first=newest_first)
        elif len(items) <= page_size:
            return Page(items, None, 0)
        elif newest_first:  # full pages counted from the end; the oldest page may be short
            ends = range(len(items), 0, -page_size)
            chunks = [items[max(0, end - page_size) : end] for end in ends]
        else:
            chunks = [items[i : i + page_size] for i in range(0, len(items), page_size)]
        if len(chunks) <= 1:
            return Page(items, None, 0)
        first, rest = chunks[0], chunks[1:]
        cursor = self._store(tool, rest, size)
        return Page(first, cursor, sum(len(c) for c in rest))

    def next_page(self, tool: str, cursor: str) -> Page[Any]:
        key, _, index_text = cursor.partition(".")
        with self._lock:
            stored = self._stored.get(key)
            if stored is None or stored.tool != tool or not index_text.isdigit():
                raise ToolFailure(
                    ErrorCode.CURSOR_EXPIRED,
                    f"cursor {cursor[:40]!r} is unknown or expired: call {tool} without a cursor",
                )
            self._stored.move_to_end(key)
            index = int(index_text)
            if index >= len(stored.pages):
                raise ToolFailure(ErrorCode.CURSOR_EXPIRED, "the cursor is past the last page")
            page = stored.pages[index]
            remaining = sum(len(p) for p in stored.pages[index + 1 :])
            has_more = index + 1 < len(stored.pages)
        return Page(page, f"{key}.{index + 1}" if has_more else None, remaining)

    def _store(self, tool: str, pages: list[list[Any]], size: int) -> str:
        key = secrets.token_urlsafe(9)
        with self._lock:
            self._stored[key] = _Stored(tool, pages, size)
            self._bytes += size
            while self._stored and (
                len(self._stored) > self._max_stored or self._bytes > self._max_bytes
            ):
                _, evicted = self._stored.popitem(last=False)
                self._bytes -= evicted.size
        return f"{key}.0"


def _chunks_within(
    items: list[T], page_size: int, max_chars: int, *, newest_first: bool
) -> list[list[T]]:
    """Pages of at most `page_size` items and `max_chars` characters (one item at least)."""
    chunks: list[list[T]] = []
    chunk: list[T] = []
    used = 0
    for item in reversed(items) if newest_first else items:
        cost = len(str(item)) + 1
        if chunk and (len(chunk) == page_size or used + cost > max_chars):
            chunks.append(chunk)
            chunk, used = [], 0
        chunk.append(item)
        used += cost
    if chunk:
        chunks.append(chunk)
    return [chunk[::-1] for chunk in chunks] if newest_first else chunks


def split_text(text: str, chunk_chars: int) -> list[str]:
    """Text cut into chunks, preferring to cut after a newline near the end of each chunk."""
    chunks: list[str] = []
    start = 0
    while start < len(text):
        end = min(start + chunk_chars, len(text))
        if end < len(text):
            newline = text.rfind("\n", start + chunk_chars // 2, end)
            if newline >= 0:
                end = newline + 1
        chunks.append(text[start:end])
        start = end
    return chunks
