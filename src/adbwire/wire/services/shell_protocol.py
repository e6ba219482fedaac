"""The shell v2 packet format: id (1 byte), little-endian u32 length, data.

Used inside the byte stream of a `shell,v2,…:` service to keep stdin, stdout, stderr and
the exit status apart. adbd writes each packet from one buffer of at most MAX_PAYLOAD bytes,
so a longer length is a broken or hostile device: the decoder raises RemoteProtocolError
instead of buffering up to 4 GiB for it.
"""

from __future__ import annotations

import struct
from enum import IntEnum
from typing import Final

from adbwire.errors import RemoteProtocolError
from adbwire.wire.packets import MAX_PAYLOAD

_HEADER = struct.Struct("<BI")
HEADER_SIZE = _HEADER.size
MAX_PACKET_DATA: Final = MAX_PAYLOAD
"""The longest packet data accepted from a device."""


class ShellPacketId(IntEnum):
    STDIN = 0
    STDOUT = 1
    STDERR = 2
    EXIT = 3
    CLOSE_STDIN = 4
    WINDOW_SIZE_CHANGE = 5


_BY_VALUE = {int(packet_id): packet_id for packet_id in ShellPacketId}


def encode(packet_id: ShellPacketId, data: bytes = b"") -> bytes:
    return _HEADER.pack(packet_id, len(data)) + data


class ShellPacketDecoder:
    """Feed stream bytes in any split; take out whole (id, data) packets."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[tuple[ShellPacketId, bytes]]:
        self._buffer += data
        packets: list[tuple[ShellPacketId, bytes]] = []
        offset = 0
        buffer = self._buffer
        while len(buffer) - offset >= HEADER_SIZE:
            raw_id, length = _HEADER.unpack_from(buffer, offset)
            if length > MAX_PACKET_DATA:
                raise RemoteProtocolError(
                    f"shell protocol packet of {length} bytes (at most {MAX_PACKET_DATA})"
                )
            end = offset + HEADER_SIZE + length
            if end > len(buffer):
                break
            packet_id = _BY_VALUE.get(raw_id)
            if packet_id is not None:  # newer ids are skipped, as adb does
                packets.append((packet_id, bytes(buffer[offset + HEADER_SIZE : end])))
            offset = end
        del buffer[:offset]
        return packets

    @property
    def pending(self) -> int:
        """Bytes of an incomplete packet still buffered."""
        return len(self._buffer)

    @property
    def pending_output(self) -> int:
        """The data length an incomplete stdout/stderr packet announced (0 for other packets,
        or while its header is still incomplete): output already on its way."""
        if len(self._buffer) < HEADER_SIZE:
            return 0
        raw_id, length = _HEADER.unpack_from(self._buffer)
        return length if raw_id in (ShellPacketId.STDOUT, ShellPacketId.STDERR) else 0
