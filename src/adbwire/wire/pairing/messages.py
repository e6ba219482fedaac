"""The pairing protocol's framing and its PeerInfo record (AOSP pairing_connection/).

Every packet, inside TLS, is a 6-byte header then its payload::

    version  u8    1 (the only version)
    type     u8    0 = SPAKE2_MSG, 1 = PEER_INFO
    payload  u32   big-endian size of what follows: 1 .. 16384 (twice the PeerInfo size)

A PeerInfo is exactly 8192 bytes: a type byte (0 = the host's ADB RSA public key, 1 = the
device's GUID) and 8191 bytes of data holding a NUL-terminated string (`BASE64 user@host`,
or the GUID such as `adb-SERIAL-abc123`), zero-filled. It travels AES-GCM sealed, so its
packet carries 8192 + 16 bytes.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass
from typing import Final

from adbwire.errors import PairingError

__all__ = [
    "HEADER_SIZE",
    "MAX_PAYLOAD_SIZE",
    "PACKET_VERSION",
    "PEER_INFO_SIZE",
    "PacketType",
    "PeerInfo",
    "PeerInfoType",
    "decode_header",
    "encode_header",
]

PACKET_VERSION: Final = 1
PEER_INFO_SIZE: Final = 8192
PEER_INFO_DATA_SIZE: Final = PEER_INFO_SIZE - 1
MAX_PAYLOAD_SIZE: Final = 2 * PEER_INFO_SIZE
_HEADER: Final = struct.Struct(">BBI")
HEADER_SIZE: Final = _HEADER.size


class PacketType(enum.IntEnum):
    SPAKE2_MSG = 0
    PEER_INFO = 1


class PeerInfoType(enum.IntEnum):
    ADB_RSA_PUB_KEY = 0
    ADB_DEVICE_GUID = 1


def encode_header(packet_type: PacketType, payload_size: int) -> bytes:
    if not 0 < payload_size <= MAX_PAYLOAD_SIZE:
        raise ValueError(f"a pairing payload is 1..{MAX_PAYLOAD_SIZE} bytes, not {payload_size}")
    return _HEADER.pack(PACKET_VERSION, packet_type, payload_size)


def decode_header(header: bytes, expected: PacketType) -> int:
    """The payload size announced by `header`, which must be a packet of type `expected`."""
    version, packet_type, size = _HEADER.unpack(header)
    if version != PACKET_VERSION:
        raise PairingError(
            f"the peer speaks pairing packet version {version}; only {PACKET_VERSION} exists "
            "(is this a pairing port?)"
        )
    if packet_type != expected:
        known = {member.value: member.name for member in PacketType}
        name = known.get(packet_type, f"type-{packet_type}")
        raise PairingError(f"the peer sent a {name} packet where {expected.name} was due")
    if not 0 < size <= MAX_PAYLOAD_SIZE:
        raise PairingError(
            f"the peer announced a {size}-byte {expected.name} payload; the limit is "
            f"1..{MAX_PAYLOAD_SIZE}"
        )
    return int(size)


@dataclass(frozen=True)
class PeerInfo:
    type: int
    value: bytes
    """The string the data holds, without its NUL and padding."""

    def encode(self) -> bytes:
        if not 0 <= self.type <= 0xFF:
            raise ValueError(f"a PeerInfo type is one byte, not {self.type}")
        if len(self.value) >= PEER_INFO_DATA_SIZE or b"\0" in self.value:
            raise ValueError(
                f"a PeerInfo holds a string of at most {PEER_INFO_DATA_SIZE - 1} bytes, no NUL"
            )
        return bytes([self.type]) + self.value.ljust(PEER_INFO_DATA_SIZE, b"\0")

    @classmethod
    def decode(cls, record: bytes) -> PeerInfo:
        if len(record) != PEER_INFO_SIZE:
            raise PairingError(
                f"the peer's PeerInfo is {len(record)} bytes; it must be {PEER_INFO_SIZE}"
            )
        # AOSP reads the data as a C string: up to the first NUL (or the end).
        return cls(record[0], record[1:].split(b"\0", 1)[0])

    @property
    def text(self) -> str:
        return self.value.decode("utf-8", errors="replace")
