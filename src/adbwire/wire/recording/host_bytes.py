"""What "the same bytes from the host" means on a stream, whatever their framing.

On most streams the host's bytes are compared as they are. Two services frame the host's
data in messages whose size is the client's choice (the max payload, a buffer size:
Google's adb and adbwire differ), so the bytes differ while the meaning does not:

- shell v2: stdin content is compared as one byte string; other shell packets
  (close-stdin, window size) as markers in their place;
- sync: DATA content as one byte string; requests as they are; DONE without its mtime
  (the pushed file's mtime, often "now": it differs on every run).

The canonical forms are streamable (bytes come out as soon as they are known): content
bytes as they are with 0x00 doubled; anything else as 0x00, a non-zero tag, the message.
"""

from __future__ import annotations

import struct
from typing import Final, Protocol

from adbwire.wire.recording.payload import is_shell_v2_service

_HEADER: Final = struct.Struct("<BI")
_STDIN: Final = 0


class HostCanon(Protocol):
    def feed(self, data: bytes) -> bytes:
        """Raw host bytes in, the canonical bytes they complete out (maybe none yet)."""
        ...


class RawCanon:
    def feed(self, data: bytes) -> bytes:
        return data


class ShellV2Canon:
    def __init__(self) -> None:
        self._pending = bytearray()
        self._stdin_left = 0

    def feed(self, data: bytes) -> bytes:
        self._pending += data
        out = bytearray()
        while self._pending:
            if self._stdin_left:
                take = bytes(self._pending[: self._stdin_left])
                del self._pending[: len(take)]
                self._stdin_left -= len(take)
                out += take.replace(b"\0", b"\0\0")
                continue
            if len(self._pending) < _HEADER.size:
                break
            channel, length = _HEADER.unpack_from(self._pending)
            if channel == _STDIN:
                del self._pending[: _HEADER.size]
                self._stdin_left = length
                continue
            end = _HEADER.size + length
            if len(self._pending) < end:
                break
            out += b"\0" + bytes([min(channel + 1, 255)]) + bytes(self._pending[1:end])
            del self._pending[:end]
        return bytes(out)


_SYNC_HEADER: Final = struct.Struct("<4sI")
_SYNC_WITH_PATH: Final = frozenset(
    {b"STAT", b"STA2", b"LST2", b"LIST", b"LIS2", b"RECV", b"SEND", b"SND2", b"RCV2"}
)
_SYNC_SETUP_SIZE: Final = {b"SND2": 12, b"RCV2": 8}
"""v2 transfers follow the path with a setup message (mode and flags)."""


class SyncCanon:
    def __init__(self) -> None:
        self._pending = bytearray()
        self._data_left = 0
        self._raw = False  # an unknown message: compare the rest as it is

    def feed(self, data: bytes) -> bytes:
        if self._raw:
            return data
        self._pending += data
        out = bytearray()
        while self._pending:
            if self._data_left:
                take = bytes(self._pending[: self._data_left])
                del self._pending[: len(take)]
                self._data_left -= len(take)
                out += take.replace(b"\0", b"\0\0")
                continue
            if len(self._pending) < _SYNC_HEADER.size:
                break
            request, length = _SYNC_HEADER.unpack_from(self._pending)
            if request == b"DATA":
                del self._pending[: _SYNC_HEADER.size]
                self._data_left = length
                continue
            if request == b"DONE":
                size = _SYNC_HEADER.size
                out += b"\0\1DONE"
            elif request in _SYNC_WITH_PATH:
                size = _SYNC_HEADER.size + length + _SYNC_SETUP_SIZE.get(request, 0)
            elif request == b"QUIT":
                size = _SYNC_HEADER.size
            else:
                self._raw = True
                out += b"\0\2" + bytes(self._pending)
                self._pending.clear()
                break
            if len(self._pending) < size:
                break
            if request != b"DONE":
                out += b"\0\1" + bytes(self._pending[:size])
            del self._pending[:size]
        return bytes(out)


def canon_for(service: str) -> HostCanon:
    if is_shell_v2_service(service):
        return ShellV2Canon()
    if service == "sync:":
        return SyncCanon()
    return RawCanon()
