"""The file-sync wire format, sans-IO: constants, request bytes, and the reply events that
`parser.ResponseParser` makes of the bytes coming back.

Every sync message starts with a four-letter id and a little-endian u32 (AOSP
`file_sync_protocol.h`). Requests carry a path of at most 1024 bytes. What follows a reply
id depends on what was asked, so the caller names the reply it expects (`Expect`). A FAIL
(id + length + message) may answer any request.
"""

from __future__ import annotations

import stat as stat_module
import struct
from dataclasses import dataclass
from enum import Enum
from typing import Final

from adbwire.errors import UsageError

MAX_PATH: Final = 1024
"""The longest path (bytes) adbd accepts in a request."""
DATA_MAX: Final = 64 * 1024
"""The largest DATA payload either side may send."""
MAX_NAME: Final = 255
"""NAME_MAX on Linux: a longer directory entry name is a broken device."""
MAX_FAIL_MESSAGE: Final = DATA_MAX

STAT: Final = b"STAT"
STA2: Final = b"STA2"
LST2: Final = b"LST2"
LIST: Final = b"LIST"
LIS2: Final = b"LIS2"
DENT: Final = b"DENT"
DNT2: Final = b"DNT2"
SEND: Final = b"SEND"
SND2: Final = b"SND2"
RECV: Final = b"RECV"
RCV2: Final = b"RCV2"
DONE: Final = b"DONE"
DATA: Final = b"DATA"
OKAY: Final = b"OKAY"
FAIL: Final = b"FAIL"

HEADER: Final = struct.Struct("<4sI")
HEADER_SIZE: Final = HEADER.size
_SEND_V2_SETUP: Final = struct.Struct("<4sII")
_RECV_V2_SETUP: Final = struct.Struct("<4sI")

# Linux errno numbers as adbd puts them on the wire (sysdeps/errno.cpp), with their text.
WIRE_ERRNO_TEXT: Final = {
    1: "Operation not permitted",
    2: "No such file or directory",
    4: "Interrupted system call",
    5: "I/O error",
    12: "Out of memory",
    13: "Permission denied",
    14: "Bad address",
    17: "File exists",
    20: "Not a directory",
    21: "Is a directory",
    22: "Invalid argument",
    23: "Too many open files in system",
    24: "Too many open files",
    26: "Text file busy",
    27: "File too large",
    28: "No space left on device",
    30: "Read-only file system",
    36: "File name too long",
    40: "Too many symbolic links encountered",
    75: "Value too large for defined data type",
}
ENOENT: Final = 2
ENOTDIR: Final = 20


def errno_text(number: int) -> str:
    return WIRE_ERRNO_TEXT.get(number, f"error {number}")


# ------------------------------------------------------------------ paths and requests


def encode_path(path: str) -> bytes:
    """The bytes of a device path; undecodable names from a listing round-trip unchanged."""
    return path.encode("utf-8", "surrogateescape")


def decode_name(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def check_path(raw: bytes, path: str) -> None:
    if len(raw) > MAX_PATH:
        raise UsageError(
            f"remote path too long: {len(raw)} bytes, the device accepts at most "
            f"{MAX_PATH}: {path[:60]}..."
        )
    if b"\0" in raw:
        raise UsageError(f"a remote path cannot contain a NUL character: {path!r}")


def encode_request(request_id: bytes, path: str) -> bytes:
    """STAT/STA2/LST2/LIST/LIS2/RECV: id, path length, path."""
    raw = encode_path(path)
    check_path(raw, path)
    return HEADER.pack(request_id, len(raw)) + raw


def encode_send_v1(path: str, mode: int) -> bytes:
    """SEND "path,mode" (the mode in decimal, type bits included, as adb sends it)."""
    raw = encode_path(path) + b"," + str(mode).encode()
    check_path(raw, path)
    return HEADER.pack(SEND, len(raw)) + raw


def encode_send_v2(path: str, mode: int, flags: int = 0) -> bytes:
    """SND2 path, then a second SND2 message with the mode and flags."""
    return encode_request(SND2, path) + _SEND_V2_SETUP.pack(SND2, mode, flags)


def encode_recv_v2(path: str, flags: int = 0) -> bytes:
    return encode_request(RCV2, path) + _RECV_V2_SETUP.pack(RCV2, flags)


def encode_done(mtime: int) -> bytes:
    """DONE ends a SEND; its length field carries the file's mtime (u32 seconds)."""
    return HEADER.pack(DONE, mtime & 0xFFFFFFFF)


def pack_data_header(buffer: bytearray | memoryview, offset: int, size: int) -> None:
    """Write a DATA header in place, in front of a payload read straight into the buffer."""
    HEADER.pack_into(buffer, offset, DATA, size)


# ------------------------------------------------------------------ what comes back


@dataclass(frozen=True)
class RemoteStat:
    """A device file's metadata. v1 devices give only mode, size and mtime (32-bit)."""

    mode: int
    size: int
    mtime: int
    atime: int | None = None
    ctime: int | None = None
    uid: int | None = None
    gid: int | None = None
    dev: int | None = None
    ino: int | None = None
    nlink: int | None = None

    @property
    def is_dir(self) -> bool:
        return stat_module.S_ISDIR(self.mode)

    @property
    def is_file(self) -> bool:
        return stat_module.S_ISREG(self.mode)

    @property
    def is_symlink(self) -> bool:
        return stat_module.S_ISLNK(self.mode)

    @property
    def permissions(self) -> int:
        return stat_module.S_IMODE(self.mode)


@dataclass(frozen=True)
class DirEntry:
    name: str
    stat: RemoteStat
    error: int = 0
    """v2 only: the errno of the device's lstat of this entry (0 when it worked)."""


class Expect(Enum):
    """The reply a request gets; the parser decodes the next message as this."""

    STAT_V1 = "stat_v1"
    STAT_V2 = "stat_v2"
    DENT_V1 = "dent_v1"
    DENT_V2 = "dent_v2"
    STATUS = "status"
    """OKAY or FAIL: the answer to DONE at the end of a SEND."""
    DATA = "data"
    """DATA… DONE: the answer to RECV."""


@dataclass(frozen=True)
class StatReply:
    stat: RemoteStat
    error: int = 0
    """stat_v2's errno (0: no error). v1 has no errno: a failed lstat is all zeros."""


@dataclass(frozen=True)
class EntryReply:
    entry: DirEntry


@dataclass(frozen=True)
class ListDone:
    pass


@dataclass(frozen=True)
class Okay:
    pass


@dataclass(frozen=True)
class Fail:
    message: str


@dataclass(frozen=True)
class DataChunk:
    data: memoryview
    """A slice of bytes fed to the parser: use it before feeding more."""


@dataclass(frozen=True)
class DataDone:
    pass


SyncEvent = StatReply | EntryReply | ListDone | Okay | Fail | DataChunk | DataDone


class NeedData(Enum):
    NEED_DATA = "need data"


NEED_DATA: Final = NeedData.NEED_DATA
