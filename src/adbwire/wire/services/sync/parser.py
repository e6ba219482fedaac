"""Bytes from the `sync:` stream in, reply events out: sans-IO, never blocks, never reads.

File data streams through without being gathered: `DataChunk` events are slices of the
bytes fed in, as they arrive, so a 64 KiB DATA message split over two stream packets
becomes two events and never a 64 KiB copy.
"""

from __future__ import annotations

import struct
from collections import deque
from typing import Final

from adbwire.errors import RemoteProtocolError
from adbwire.wire.services.sync.codec import (
    DATA,
    DATA_MAX,
    DENT,
    DNT2,
    DONE,
    FAIL,
    HEADER,
    HEADER_SIZE,
    LST2,
    MAX_FAIL_MESSAGE,
    MAX_NAME,
    NEED_DATA,
    OKAY,
    STA2,
    STAT,
    DataChunk,
    DataDone,
    DirEntry,
    EntryReply,
    Expect,
    Fail,
    ListDone,
    NeedData,
    Okay,
    RemoteStat,
    StatReply,
    SyncEvent,
    decode_name,
)

_STAT_V1: Final = struct.Struct("<4sIII")
_STAT_V2: Final = struct.Struct("<4sIQQIIIIQqqq")
_DENT_V1: Final = struct.Struct("<4sIIII")
_DENT_V2: Final = struct.Struct("<4sIQQIIIIQqqqI")

_FIXED_SIZE: Final = {
    Expect.STAT_V1: _STAT_V1.size,
    Expect.STAT_V2: _STAT_V2.size,
    Expect.DENT_V1: _DENT_V1.size,
    Expect.DENT_V2: _DENT_V2.size,
    Expect.STATUS: HEADER_SIZE,
    Expect.DATA: HEADER_SIZE,
}


def record_size(expect: Expect) -> int:
    """Bytes of a reply's fixed part (for a DENT/DNT2: the record before the name)."""
    return _FIXED_SIZE[expect]


class ResponseParser:
    """Bytes from the `sync:` stream in, `SyncEvent`s out; never blocks, never reads."""

    def __init__(self) -> None:
        self._chunks: deque[memoryview] = deque()
        self._buffered = 0
        self._data_left = 0

    @property
    def buffered(self) -> int:
        """Bytes fed but not yet turned into events."""
        return self._buffered

    def feed(self, data: bytes | bytearray | memoryview) -> None:
        if data:
            self._chunks.append(memoryview(data).cast("B"))
            self._buffered += len(data)

    def next_event(self, expect: Expect) -> SyncEvent | NeedData:
        if self._data_left:
            return self._payload_piece()
        if self._buffered < HEADER_SIZE:
            return NEED_DATA
        head = self._peek(HEADER_SIZE)
        message_id, length = HEADER.unpack(head)
        if message_id == FAIL:
            return self._fail(length)
        if expect is Expect.STATUS:
            return self._status(message_id, length)
        if expect is Expect.DATA:
            return self._data_header(message_id, length)
        size = _FIXED_SIZE[expect]
        if self._buffered < size:
            return NEED_DATA
        if expect is Expect.STAT_V1:
            return self._stat_v1(self._take(size))
        if expect is Expect.STAT_V2:
            return self._stat_v2(self._peek(size), size)
        return self._dent(expect, size)

    # ---------------------------------------------------------------- decoders

    def _fail(self, length: int) -> Fail | NeedData:
        if length > MAX_FAIL_MESSAGE:
            raise RemoteProtocolError(f"sync FAIL message of {length} bytes is too long")
        if self._buffered < HEADER_SIZE + length:
            return NEED_DATA
        raw = self._take(HEADER_SIZE + length)[HEADER_SIZE:]
        return Fail(raw.decode("utf-8", "replace"))

    def _status(self, message_id: bytes, length: int) -> Okay:
        if message_id != OKAY:
            raise RemoteProtocolError(f"sync: expected OKAY or FAIL, got {message_id!r}")
        self._take(HEADER_SIZE)
        return Okay()

    def _data_header(self, message_id: bytes, length: int) -> SyncEvent | NeedData:
        if message_id == DONE:
            self._take(HEADER_SIZE)
            return DataDone()
        if message_id != DATA:
            raise RemoteProtocolError(f"sync: expected DATA or DONE, got {message_id!r}")
        if length > DATA_MAX:
            raise RemoteProtocolError(f"sync DATA of {length} bytes exceeds {DATA_MAX}")
        self._take(HEADER_SIZE)
        self._data_left = length
        if length == 0:
            return DataChunk(memoryview(b""))
        if not self._buffered:
            return NEED_DATA
        return self._payload_piece()

    def _payload_piece(self) -> DataChunk | NeedData:
        if not self._chunks:
            return NEED_DATA
        head = self._chunks[0]
        if len(head) <= self._data_left:
            self._chunks.popleft()
            piece = head
        else:
            piece = head[: self._data_left]
            self._chunks[0] = head[self._data_left :]
        self._data_left -= len(piece)
        self._buffered -= len(piece)
        return DataChunk(piece)

    def _stat_v1(self, raw: bytes) -> StatReply:
        message_id, mode, size, mtime = _STAT_V1.unpack(raw)
        if message_id != STAT:
            raise RemoteProtocolError(f"sync: expected a STAT reply, got {message_id!r}")
        return StatReply(RemoteStat(mode, size, mtime))

    def _stat_v2(self, head: bytes, size: int) -> StatReply:
        fields = _STAT_V2.unpack(head)
        if fields[0] not in (STA2, LST2):
            raise RemoteProtocolError(f"sync: expected a STA2/LST2 reply, got {fields[0]!r}")
        self._take(size)
        return StatReply(_stat_from_v2(fields[2:]), error=fields[1])

    def _dent(self, expect: Expect, size: int) -> SyncEvent | NeedData:
        v2 = expect is Expect.DENT_V2
        fields = (_DENT_V2 if v2 else _DENT_V1).unpack(self._peek(size))
        message_id, name_length = fields[0], fields[-1]
        if message_id == DONE:
            self._take(size)
            return ListDone()
        if message_id != (DNT2 if v2 else DENT):
            raise RemoteProtocolError(f"sync: expected a directory entry, got {message_id!r}")
        if name_length > MAX_NAME:
            raise RemoteProtocolError(f"sync: directory entry name of {name_length} bytes")
        if self._buffered < size + name_length:
            return NEED_DATA
        raw_name = self._take(size + name_length)[size:]
        if b"/" in raw_name or b"\0" in raw_name or not raw_name:
            raise RemoteProtocolError(f"sync: invalid directory entry name {raw_name!r}")
        if v2:
            entry = DirEntry(decode_name(raw_name), _stat_from_v2(fields[2:-1]), fields[1])
        else:
            mode, file_size, mtime = fields[1:4]
            entry = DirEntry(decode_name(raw_name), RemoteStat(mode, file_size, mtime))
        return EntryReply(entry)

    # ---------------------------------------------------------------- buffer

    def _peek(self, size: int) -> bytes:
        head = self._chunks[0]
        if len(head) >= size:
            return bytes(head[:size])
        parts = []
        needed = size
        for chunk in self._chunks:
            parts.append(chunk[:needed])
            needed -= len(parts[-1])
            if not needed:
                break
        return b"".join(parts)

    def _take(self, size: int) -> bytes:
        taken = self._peek(size)
        self._buffered -= size
        while size:
            head = self._chunks[0]
            if len(head) <= size:
                self._chunks.popleft()
                size -= len(head)
            else:
                self._chunks[0] = head[size:]
                size = 0
        return taken


def _stat_from_v2(fields: tuple[int, ...]) -> RemoteStat:
    dev, ino, mode, nlink, uid, gid, size, atime, mtime, ctime = fields
    return RemoteStat(
        mode=mode,
        size=size,
        mtime=mtime,
        atime=atime,
        ctime=ctime,
        uid=uid,
        gid=gid,
        dev=dev,
        ino=ino,
        nlink=nlink,
    )
