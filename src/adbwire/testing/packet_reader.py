"""Whole packets out of a byte stream, with as few recv calls and copies as possible.

One recv into a reusable buffer usually brings several packets at once (a shell round trip's
OKAY and WRTE arrive together), and `read_packet` hands them out one by one without another
system call. A payload that arrived whole is copied out of the buffer once; the part of a large
payload that has not arrived yet is received straight into its place, so no payload byte is
copied more than once after the kernel's copy.

Large payloads (a push sends up to 1 MiB each) are placed one after another in chunks of the
negotiated maximum payload size that are recycled, not allocated afresh: fresh memory costs a
page fault per 4 KiB. A payload is handed out as a memoryview of its chunk and the services
that consume it may hold slices of it for a while (the stream's inbox), so a chunk is reused
only once no memoryview of it is left: a bytearray with a live export cannot be resized
(BufferError), and `_unreferenced` tries exactly that. The bytearray itself never leaves this
module, so a memoryview is the only way anyone else can refer to it (the reader's own view of
the chunk it is filling counts too, and is dropped before it asks for the next chunk).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Final, NamedTuple

from adbwire.errors import RemoteProtocolError
from adbwire.wire import packets as P

__all__ = [
    "RECV_BUFFER_SIZE",
    "ChunkStore",
    "PacketReader",
    "Payload",
    "RawPacket",
    "chunks_for_window",
]

RECV_BUFFER_SIZE: Final = 64 * 1024
CHUNKED_MIN: Final = 64 * 1024
"""Payloads at least this long go into recycled chunks; shorter ones are copied into bytes."""
DEFAULT_CHUNKS: Final = 4
"""Chunks a `ChunkStore` keeps for reuse unless told otherwise."""

Payload = bytes | memoryview
_HEADER_SIZE: Final = P.HEADER_SIZE
_unpack_header = P.HEADER.unpack_from
_KNOWN_COMMANDS: Final = frozenset(P.COMMAND_NAMES)


class RawPacket(NamedTuple):
    """A packet whose header passed decode_header's checks (the payload checksum is unchecked)."""

    command: int
    arg0: int
    arg1: int
    check: int
    payload: Payload


class ChunkStore:
    """Chunks for large payloads, shared by the readers of one device (thread-safe).

    Every chunk stays listed here; one is free when no memoryview of it is alive, which
    `take` checks and ends (by returning a new view) under one lock."""

    def __init__(self, limit: int = DEFAULT_CHUNKS) -> None:
        self.limit = limit
        """How many chunks to keep for reuse; more are allocated when needed, then dropped."""
        self.allocated = 0
        """Chunks allocated so far (every other `take` reused a chunk)."""
        self._chunks: list[bytearray] = []
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._chunks)

    def take(self, size: int) -> memoryview:
        """A view of a whole chunk of at least `size` bytes that nobody else references."""
        with self._lock:
            for chunk in self._chunks:
                if len(chunk) >= size and _unreferenced(chunk):
                    return memoryview(chunk)
            fresh = _growable_bytearray(size)
            self.allocated += 1
            if len(self._chunks) < self.limit:
                self._chunks.append(fresh)
            else:
                self._drop_one_smaller(size)
            return memoryview(fresh)

    def clear(self) -> None:
        """Let go of every chunk (a payload still referenced keeps its own chunk alive)."""
        with self._lock:
            self._chunks.clear()

    def _drop_one_smaller(self, size: int) -> None:
        """Let go of a chunk too small for today's payloads (a smaller one was negotiated)."""
        for index, chunk in enumerate(self._chunks):
            if len(chunk) < size:
                del self._chunks[index]
                return


class PacketReader:
    def __init__(
        self,
        recv_into: Callable[[memoryview], int],
        *,
        chunks: ChunkStore | None = None,
        buffer_size: int = RECV_BUFFER_SIZE,
    ) -> None:
        """`recv_into(view)` fills the front of `view` and returns the count, 0 at the end."""
        self._recv_into = recv_into
        self._buffer = bytearray(buffer_size)
        self._view = memoryview(self._buffer)
        self._start = 0
        self._end = 0
        self._chunks = chunks if chunks is not None else ChunkStore()
        self._chunk: memoryview | None = None
        self._chunk_used = 0

    def switch_source(self, recv_into: Callable[[memoryview], int]) -> bytes:
        """Read from `recv_into` from now on (the link became TLS); returns the bytes already
        received past the last packet, which belong to the new layer."""
        early = bytes(self._view[self._start : self._end])
        self._start = self._end = 0
        self._recv_into = recv_into
        return early

    def read_packet(self, max_payload: int) -> RawPacket | None:
        """The next whole packet; None at the end of the stream (even mid-packet).

        RemoteProtocolError for a header that decode_header rejects."""
        if self._end - self._start < _HEADER_SIZE and not self._fill(_HEADER_SIZE):
            return None
        start = self._start
        command, arg0, arg1, length, check, magic = _unpack_header(self._buffer, start)
        if magic != command ^ 0xFFFFFFFF or command not in _KNOWN_COMMANDS or length > max_payload:
            raw = bytes(self._view[start : start + _HEADER_SIZE])
            P.decode_header(raw, max_payload=max_payload)
            raise RemoteProtocolError("invalid packet header")  # decode_header raised already
        start += _HEADER_SIZE
        available = self._end - start
        payload: Payload
        if not length:
            payload = b""
        elif length <= available and length < CHUNKED_MIN:
            payload = bytes(self._view[start : start + length])
            start += length
        else:
            target = self._place(length, max_payload)
            if length <= available:
                target[:] = self._view[start : start + length]
                start += length
            else:
                target[:available] = self._view[start : self._end]
                if not self._receive_rest(target[available:]):
                    return None
                start = self._end = 0
            payload = target
        if start == self._end:
            start = self._end = 0
        self._start = start
        return RawPacket(command, arg0, arg1, check, payload)

    def _fill(self, need: int) -> bool:
        """Receive until `need` bytes are buffered; False if the stream ends first."""
        if self._start:
            kept = self._end - self._start
            self._view[:kept] = self._view[self._start : self._end]
            self._start, self._end = 0, kept
        while self._end < need:
            count = self._recv_into(self._view[self._end :])
            if not count:
                return False
            self._end += count
        return True

    def _receive_rest(self, view: memoryview) -> bool:
        got = 0
        size = len(view)
        while got < size:
            count = self._recv_into(view[got:])
            if not count:
                return False
            got += count
        return True

    def _place(self, length: int, max_payload: int) -> memoryview:
        """A writable view of `length` bytes that nobody else references."""
        if length < CHUNKED_MIN:
            return memoryview(bytearray(length))
        chunk = self._chunk
        used = self._chunk_used
        if chunk is not None and used + length <= len(chunk):
            self._chunk_used = used + length
            return chunk[used : used + length]
        self._chunk = chunk = None  # drop our own export, or the chunk never looks free
        chunk = self._chunks.take(max(length, max_payload))
        self._chunk = chunk
        self._chunk_used = length
        return chunk[:length]


def chunks_for_window(window: int, max_payload: int) -> int:
    """Chunks worth keeping when a host may send `window` bytes beyond what the services
    consumed: enough for one connection pushing full payloads, and a few spare."""
    return -(-window // max_payload) + DEFAULT_CHUNKS


def _growable_bytearray(size: int) -> bytearray:
    """A bytearray with room for one more byte, so `_unreferenced` never reallocates it."""
    buffer = bytearray(size + 1)
    del buffer[-1]
    return buffer


def _unreferenced(buffer: bytearray) -> bool:
    """True if no memoryview of `buffer` is alive (resizing fails while one is)."""
    try:
        buffer.append(0)
    except BufferError:
        return False
    del buffer[-1]
    return True
