"""PNG encoding built for screenshots: fast, lossless, and able to take rows as they come.

Every row is written unfiltered (filter type 0) and deflated at zlib level 1 with the
default strategy. Measured on 540x1200 halves of phone screens (docs/performance.md):
Pillow's encoder tries five filters on every row and, at level 1, took 10-30 ms where
this takes 6-14, and its output was no smaller (a text-heavy screen: 196 KB against
193 KB); Pillow with run-length matching (``Z_RLE``) was smaller only on screens of flat
rectangles and 40 % larger on text, because RGB's 3-byte period defeats matches at
distance 1. Photos compress poorly either way; the budget sends them on to JPEG.

``PngWriter`` takes an RGB image in horizontal stripes, so a screenshot can deflate the
rows of a frame while the rest of it is still arriving (``stream_reduce``).
"""

from __future__ import annotations

import struct
import zlib

from PIL import Image

from adbwire.errors import UsageError

SIGNATURE = b"\x89PNG\r\n\x1a\n"
LEVEL = 1
_RGB_8BIT = struct.pack(">BBBBB", 8, 2, 0, 0, 0)  # depth, colour type RGB, deflate, no filter
_FILTER_NONE = b"\x00"


class PngWriter:
    """One RGB PNG of ``width`` x ``height``, its rows added top to bottom."""

    def __init__(self, width: int, height: int) -> None:
        if width < 1 or height < 1:
            raise UsageError(f"a PNG needs pixels, not {width}x{height}")
        self.width = width
        self.height = height
        self.rows = 0
        self._compressor = zlib.compressobj(LEVEL)
        self._deflated: list[bytes] = []

    def add(self, stripe: Image.Image) -> None:
        """The next rows: an RGB or RGBX image (the padding is left out) as wide as the PNG."""
        if stripe.mode not in ("RGB", "RGBX") or stripe.width != self.width:
            raise UsageError(
                f"rows must be RGB and {self.width} wide, not {stripe.mode} {stripe.width}"
            )
        if self.rows + stripe.height > self.height:
            raise UsageError(f"more than the PNG's {self.height} rows")
        stride = self.width * 3
        pixels = memoryview(stripe.tobytes("raw", "RGB"))
        lines = _FILTER_NONE.join(
            pixels[start : start + stride] for start in range(0, len(pixels), stride)
        )
        self._deflated.append(self._compressor.compress(_FILTER_NONE + lines))
        self.rows += stripe.height

    def finish(self) -> bytes:
        """The whole PNG; every row must have been added."""
        if self.rows != self.height:
            raise UsageError(f"{self.rows} of the PNG's {self.height} rows were added")
        self._deflated.append(self._compressor.flush())
        header = struct.pack(">II", self.width, self.height) + _RGB_8BIT
        idat = b"".join(self._deflated)
        self._deflated = []
        return b"".join(
            (SIGNATURE, _chunk(b"IHDR", header), _chunk(b"IDAT", idat), _chunk(b"IEND", b""))
        )


def encode_png(image: Image.Image) -> bytes:
    """``image`` (converted to RGB unless it is RGB or RGBX) as a PNG."""
    rgb = image if image.mode in ("RGB", "RGBX") else image.convert("RGB")
    writer = PngWriter(rgb.width, rgb.height)
    writer.add(rgb)
    return writer.finish()


def _chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(body, zlib.crc32(kind))
    return b"".join((struct.pack(">I", len(body)), kind, body, struct.pack(">I", crc)))
