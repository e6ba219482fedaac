"""ADB packets: the 24-byte header and its payload, encoded and checked without any I/O.

Framing constants and the checksum come from adb_shell; what it lacks (version-dependent
checksum checks, length limits, clear errors) is here.
"""

from __future__ import annotations

import struct
from typing import Final

from adb_shell import constants as _adb

from adbwire.errors import RemoteProtocolError
from adbwire.wire.values import FrozenValue

HEADER = struct.Struct("<6I")
HEADER_SIZE: Final = HEADER.size

VERSION_CHECKSUMMED: Final = 0x01000000
"""Protocol version in which every payload carries a verified byte-sum checksum."""
VERSION_SKIP_CHECKSUM: Final = 0x01000001
"""Protocol version (Android 9+) in which the checksum field is zero and not verified."""

MAX_PAYLOAD: Final = _adb.MAX_ADB_DATA  # 1 MiB, what current adbd offers

AUTH_TOKEN: Final = _adb.AUTH_TOKEN
AUTH_SIGNATURE: Final = _adb.AUTH_SIGNATURE
AUTH_RSAPUBLICKEY: Final = _adb.AUTH_RSAPUBLICKEY


def _wire_id(name: bytes) -> int:
    value: int = struct.unpack("<I", name)[0]
    return value


A_SYNC: Final = _wire_id(b"SYNC")
A_CNXN: Final = _wire_id(b"CNXN")
A_AUTH: Final = _wire_id(b"AUTH")
A_OPEN: Final = _wire_id(b"OPEN")
A_OKAY: Final = _wire_id(b"OKAY")
A_CLSE: Final = _wire_id(b"CLSE")
A_WRTE: Final = _wire_id(b"WRTE")
A_STLS: Final = _wire_id(b"STLS")

COMMAND_NAMES: Final = {
    A_SYNC: "SYNC",
    A_CNXN: "CNXN",
    A_AUTH: "AUTH",
    A_OPEN: "OPEN",
    A_OKAY: "OKAY",
    A_CLSE: "CLSE",
    A_WRTE: "WRTE",
    A_STLS: "STLS",
}


def checksum(payload: bytes | bytearray | memoryview) -> int:
    """The byte-sum checksum of protocol version 0x01000000."""
    # sum() over a bytes object runs in C; adb_shell's helper does the same.
    return sum(payload) & 0xFFFFFFFF


_set = object.__setattr__


class Packet(FrozenValue):
    """One ADB message. `payload` may be any bytes-like object; it is never copied here."""

    __match_args__ = ("command", "arg0", "arg1", "payload")
    __slots__ = __match_args__
    command: int
    arg0: int
    arg1: int
    payload: bytes | bytearray | memoryview

    def __init__(
        self, command: int, arg0: int, arg1: int, payload: bytes | bytearray | memoryview = b""
    ) -> None:
        _set(self, "command", command)
        _set(self, "arg0", arg0)
        _set(self, "arg1", arg1)
        _set(self, "payload", payload)

    @property
    def name(self) -> str:
        return COMMAND_NAMES.get(self.command, f"0x{self.command:08x}")

    def header(self, *, with_checksum: bool) -> bytes:
        check = checksum(self.payload) if with_checksum and self.payload else 0
        return HEADER.pack(
            self.command,
            self.arg0,
            self.arg1,
            len(self.payload),
            check,
            self.command ^ 0xFFFFFFFF,
        )

    def encode(self, *, with_checksum: bool) -> bytes:
        """Header and payload as one bytes object (convenient for small packets and tests)."""
        return self.header(with_checksum=with_checksum) + bytes(self.payload)

    def __repr__(self) -> str:
        shown = bytes(self.payload[:32])
        more = "…" if len(self.payload) > 32 else ""
        return f"Packet({self.name}, {self.arg0:#x}, {self.arg1:#x}, {shown!r}{more})"


class Header(FrozenValue):
    """A decoded, validated header whose payload has not been read yet."""

    __match_args__ = ("command", "arg0", "arg1", "length", "check")
    __slots__ = __match_args__
    command: int
    arg0: int
    arg1: int
    length: int
    check: int

    def __init__(self, command: int, arg0: int, arg1: int, length: int, check: int) -> None:
        _set(self, "command", command)
        _set(self, "arg0", arg0)
        _set(self, "arg1", arg1)
        _set(self, "length", length)
        _set(self, "check", check)

    @property
    def name(self) -> str:
        return COMMAND_NAMES.get(self.command, f"0x{self.command:08x}")


def decode_header(raw: bytes | bytearray | memoryview, *, max_payload: int) -> Header:
    """Validate a 24-byte header: known command, matching magic, length within the limit."""
    if len(raw) != HEADER_SIZE:
        raise RemoteProtocolError(f"short packet header: {len(raw)} of {HEADER_SIZE} bytes")
    command, arg0, arg1, length, check, magic = HEADER.unpack(raw)
    if magic != command ^ 0xFFFFFFFF:
        raise RemoteProtocolError(
            f"bad packet magic {magic:#010x} for command {command:#010x}: "
            "the peer does not speak ADB (or the stream lost sync)"
        )
    if command not in COMMAND_NAMES:
        raise RemoteProtocolError(f"unknown ADB command {command:#010x}")
    if length > max_payload:
        raise RemoteProtocolError(
            f"{COMMAND_NAMES[command]} packet announces {length} payload bytes, "
            f"more than the negotiated maximum of {max_payload}"
        )
    return Header(command, arg0, arg1, length, check)


def verify_payload(header: Header, payload: bytes | bytearray | memoryview) -> None:
    """Check the byte-sum of a payload (only called under protocol version 0x01000000)."""
    actual = checksum(payload)
    if actual != header.check:
        raise RemoteProtocolError(
            f"{header.name} payload checksum mismatch: header says {header.check:#x}, "
            f"payload sums to {actual:#x}"
        )
