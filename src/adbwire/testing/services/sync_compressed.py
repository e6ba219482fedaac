"""The device side of a compressed RCV2 (adbd's recv_impl with an encoder): the file is read
in 64 KiB blocks, compressed as one stream, and sent as DATA messages of at most 64 KiB,
then DONE. (A compressed SND2 is decoded in sync_transfer.py.)"""

from __future__ import annotations

import struct
from typing import BinaryIO, Final

from adbwire.testing.stream import DeviceStream
from adbwire.wire.services.sync.compression import Compression, Encoder

__all__ = ["send_compressed"]

SYNC_DATA_MAX: Final = 64 * 1024
BATCH: Final = 256 * 1024
"""Bytes of DATA messages gathered before one stream write."""
MESSAGE = struct.Struct("<4sI")


def send_compressed(stream: DeviceStream, source: BinaryIO, compression: Compression) -> bool:
    encoder = Encoder(compression)
    block = bytearray(SYNC_DATA_MAX)
    view = memoryview(block)
    pending: list[bytes] = []
    pending_size = 0
    while True:
        try:
            count = source.readinto(view)  # type: ignore[attr-defined]
        except OSError as error:
            _fail(stream, pending, f"read failed: {error.strerror}")
            return False
        output = encoder.compress(view[:count]) if count else encoder.finish()
        for start in range(0, len(output), SYNC_DATA_MAX):
            piece = output[start : start + SYNC_DATA_MAX]
            pending += (MESSAGE.pack(b"DATA", len(piece)), piece)
            pending_size += len(piece) + MESSAGE.size
        if not count:
            pending.append(MESSAGE.pack(b"DONE", 0))
            stream.write(b"".join(pending))
            return True
        if pending_size >= BATCH:
            stream.write(b"".join(pending))
            pending.clear()
            pending_size = 0


def _fail(stream: DeviceStream, pending: list[bytes], reason: str) -> None:
    """What was compressed so far, then FAIL (adbd sends each DATA as it is made)."""
    encoded = reason.encode("utf-8", errors="replace")
    stream.write(b"".join([*pending, MESSAGE.pack(b"FAIL", len(encoded)), encoded]))
