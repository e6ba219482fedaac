"""Screenshots that attack the host: a decompression-bomb PNG and a raw frame whose header
claims a huge screen.

- `png_bomb_screencap(width=13000, height=13000)`: `screencap -p` answers a valid 8-bit
  greyscale PNG of that size, all black: about 164 KB on the wire for 13000x13000, 169 MB
  of pixels once decoded (and three or four times that as RGB/RGBA).
- `huge_raw_screencap(width, height, body_bytes=None)`: `screencap` (raw) answers a 16-byte
  header (width, height, RGBA_8888, sRGB) and then `body_bytes` of pixels — None sends as
  many as the header claims (streamed, zeros), 0 only the header.

Both are rules for `hostile_userland`; `screencap` with a file argument still runs normally.
"""

from __future__ import annotations

import functools
import shlex
import struct
import zlib
from typing import Final

from adbwire.testing.hostile.userland import Invocation, Rule

__all__ = ["bomb_png", "huge_raw_screencap", "png_bomb_screencap"]

PNG_SIGNATURE: Final = b"\x89PNG\r\n\x1a\n"
RGBA_8888: Final = 1
SRGB: Final = 1
_ZEROS: Final = bytes(64 * 1024)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


@functools.lru_cache(maxsize=4)
def bomb_png(width: int = 13000, height: int = 13000) -> bytes:
    """A valid all-black 8-bit greyscale PNG (filter 0 rows), compressed as hard as zlib
    can: 13000x13000 is about 164 KB and takes about a second to build (cached)."""
    compressor = zlib.compressobj(9)
    row = bytes(width + 1)  # filter byte 0, then one zero byte per pixel
    parts = [compressor.compress(row) for _ in range(height)]
    parts.append(compressor.flush())
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit greyscale
    return (
        PNG_SIGNATURE
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", b"".join(parts))
        + _chunk(b"IEND", b"")
    )


def _screencap_argv(command: str) -> list[str] | None:
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    if argv[:1] == ["exec"]:
        argv = argv[1:]
    if not argv or argv[0] not in ("screencap", "/system/bin/screencap"):
        return None
    return argv[1:]


def png_bomb_screencap(width: int = 13000, height: int = 13000) -> Rule:
    """`screencap -p` (to stdout) answers `bomb_png(width, height)`."""

    def matches(command: str) -> bool:
        return _screencap_argv(command) == ["-p"]

    def respond(call: Invocation) -> int:
        call.io.write_stdout(bomb_png(width, height))
        return 0

    return Rule(matches, respond)


def huge_raw_screencap(
    width: int = 13000, height: int = 13000, *, body_bytes: int | None = None
) -> Rule:
    """`screencap` (raw, to stdout) answers a header claiming widthxheight RGBA_8888, then
    `body_bytes` zero bytes (None: all width*height*4 the header promises)."""
    total = width * height * 4 if body_bytes is None else body_bytes

    def matches(command: str) -> bool:
        return _screencap_argv(command) == []

    def respond(call: Invocation) -> int:
        call.io.write_stdout(struct.pack("<IIII", width, height, RGBA_8888, SRGB))
        remaining = total
        while remaining > 0 and not call.io.cancelled:
            piece = _ZEROS[: min(remaining, len(_ZEROS))]
            call.io.write_stdout(piece)
            remaining -= len(piece)
        return 0

    return Rule(matches, respond)
