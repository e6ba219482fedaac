"""ADB packets cut out of a byte stream, whatever sizes the bytes arrive in.

Used on the bytes that pass through a recording transport and on the TCP streams
reassembled from a packet capture.
"""

from __future__ import annotations

from typing import Final

from adbwire.wire import packets as P

LARGEST_PAYLOAD: Final = 16 * 1024 * 1024
"""Generous bound: no ADB implementation sends more than 1 MiB, so more means garbage."""


class PacketStreamError(ValueError):
    """The bytes are not a sequence of ADB packets (names the offset)."""


class PacketSplitter:
    """Feed bytes, get complete packets back; keeps the remainder for the next feed."""

    def __init__(self, direction: str) -> None:
        self.direction = direction
        self.offset = 0
        """Stream offset of the first byte not yet returned as part of a packet."""
        self._buffer = bytearray()

    @property
    def pending(self) -> int:
        return len(self._buffer)

    def feed(self, data: bytes | bytearray | memoryview) -> list[P.Packet]:
        self._buffer += data
        packets: list[P.Packet] = []
        while len(self._buffer) >= P.HEADER_SIZE:
            command, arg0, arg1, length, _check, magic = P.HEADER.unpack_from(self._buffer)
            # A command we do not know, with its magic right, is kept (whoever reads the
            # packets notes it); the first packet must be a known one.
            known = command in P.COMMAND_NAMES or self.offset > 0
            if magic != command ^ 0xFFFFFFFF or not known:
                raise PacketStreamError(
                    f"{self.direction}: no ADB packet header at byte {self.offset} "
                    f"(command {command:#010x}, magic {magic:#010x})"
                )
            if length > LARGEST_PAYLOAD:
                raise PacketStreamError(
                    f"{self.direction}: packet at byte {self.offset} announces {length} bytes"
                )
            end = P.HEADER_SIZE + length
            if len(self._buffer) < end:
                break
            payload = bytes(self._buffer[P.HEADER_SIZE : end])
            del self._buffer[:end]
            self.offset += end
            packets.append(P.Packet(command, arg0, arg1, payload))
        return packets
