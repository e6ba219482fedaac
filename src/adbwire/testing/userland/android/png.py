"""Screen images: a tiny PNG writer/reader (zlib only) and screencap's raw frame format.

The writer lays chunks out as Android's `screencap -p` does (IHDR, sBIT, sRGB, IDAT split
into 8 KiB chunks, IEND). Screens are drawn as flat rectangles, so rows repeat and the
images compress to a few KB.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
IDAT_CHUNK = 8192
RGBA = tuple[int, int, int, int]
PIXEL_FORMAT_RGBA_8888 = 1
COLORSPACE_SRGB = 1


@dataclass(frozen=True)
class Rect:
    left: int
    top: int
    right: int
    bottom: int
    color: RGBA


@dataclass
class Canvas:
    """An image made of a background and flat rectangles painted in order."""

    width: int
    height: int
    background: RGBA
    rects: list[Rect]

    def rows(self) -> list[bytes]:
        cache: dict[tuple[int, ...], bytes] = {}
        rows: list[bytes] = []
        base = bytes(self.background) * self.width
        for y in range(self.height):
            covering = tuple(i for i, r in enumerate(self.rects) if r.top <= y < r.bottom)
            row = cache.get(covering)
            if row is None:
                buf = bytearray(base)
                for i in covering:
                    rect = self.rects[i]
                    left, right = max(rect.left, 0), min(rect.right, self.width)
                    if right > left:
                        buf[left * 4 : right * 4] = bytes(rect.color) * (right - left)
                row = cache[covering] = bytes(buf)
            rows.append(row)
        return rows

    def rgba(self) -> bytes:
        return b"".join(self.rows())

    def png(self) -> bytes:
        return encode_png(self.width, self.height, self.rows())


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode_png(width: int, height: int, rows: Sequence[bytes]) -> bytes:
    """RGBA rows to a PNG; a row equal to the one above is written with the Up filter."""
    raw = bytearray()
    zero_row = bytes(width * 4)
    previous: bytes | None = None
    for row in rows:
        if row == previous:
            raw += b"\x02" + zero_row
        else:
            raw += b"\x00" + row
        previous = row
    compressed = zlib.compress(bytes(raw), 6)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    chunks = [
        PNG_SIGNATURE,
        _chunk(b"IHDR", header),
        _chunk(b"sBIT", b"\x08\x08\x08\x08"),
        _chunk(b"sRGB", b"\x00"),
    ]
    for start in range(0, len(compressed), IDAT_CHUNK):
        chunks.append(_chunk(b"IDAT", compressed[start : start + IDAT_CHUNK]))
    chunks.append(_chunk(b"IEND", b""))
    return b"".join(chunks)


class PngError(ValueError):
    """The bytes are not a PNG this reader understands (8-bit RGB/RGBA, not interlaced)."""


def png_size(data: bytes) -> tuple[int, int]:
    if not data.startswith(PNG_SIGNATURE) or data[12:16] != b"IHDR":
        raise PngError("not a PNG")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def decode_png(data: bytes) -> tuple[int, int, bytes]:
    """PNG to (width, height, RGBA bytes)."""
    width, height = png_size(data)
    depth, color_type, _, _, interlace = data[24:29]
    if depth != 8 or color_type not in (2, 6) or interlace:
        raise PngError("only 8-bit RGB/RGBA non-interlaced PNGs are supported")
    idat = bytearray()
    pos = 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        if kind == b"IDAT":
            idat += data[pos + 8 : pos + 8 + length]
        pos += 12 + length
    raw = zlib.decompress(bytes(idat))
    bpp = 4 if color_type == 6 else 3
    stride = width * bpp
    previous = bytes(stride)
    out = bytearray()
    for y in range(height):
        start = y * (stride + 1)
        line = _unfilter(raw[start], raw[start + 1 : start + 1 + stride], previous, bpp)
        out += line if bpp == 4 else _rgb_to_rgba(line)
        previous = line
    return width, height, bytes(out)


def _add_bytes(a: bytes, b: bytes) -> bytes:
    """Bytewise (a + b) mod 256 on whole rows, without a per-byte Python loop."""
    n = len(a)
    x, y = int.from_bytes(a, "big"), int.from_bytes(b, "big")
    high = int.from_bytes(b"\x80" * n, "big")
    low = high ^ int.from_bytes(b"\xff" * n, "big")
    return (((x & low) + (y & low)) ^ ((x ^ y) & high)).to_bytes(n, "big")


def _unfilter(kind: int, line: bytes, prev: bytes, bpp: int) -> bytes:
    if kind == 0:
        return bytes(line)
    if kind == 2:
        return _add_bytes(line, prev)
    out = bytearray(line)
    for i in range(len(out)):
        left = out[i - bpp] if i >= bpp else 0
        up = prev[i]
        if kind == 1:
            out[i] = (out[i] + left) & 0xFF
        elif kind == 3:
            out[i] = (out[i] + ((left + up) >> 1)) & 0xFF
        elif kind == 4:
            up_left = prev[i - bpp] if i >= bpp else 0
            p = left + up - up_left
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
            predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else up_left)
            out[i] = (out[i] + predictor) & 0xFF
        else:
            raise PngError(f"unknown PNG filter {kind}")
    return bytes(out)


def _rgb_to_rgba(line: bytes) -> bytes:
    out = bytearray(len(line) // 3 * 4)
    out[0::4], out[1::4], out[2::4] = line[0::3], line[1::3], line[2::3]
    out[3::4] = b"\xff" * (len(line) // 3)
    return bytes(out)


def raw_frame(width: int, height: int, rgba: bytes, *, sdk: int) -> bytes:
    """`screencap` without -p: width, height, format (and colour space from Android 8.1 on)."""
    header = struct.pack("<III", width, height, PIXEL_FORMAT_RGBA_8888)
    if sdk >= 27:
        header += struct.pack("<I", COLORSPACE_SRGB)
    return header + rgba
