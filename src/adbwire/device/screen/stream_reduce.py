"""Reducing a raw frame while it arrives, so that little is left to do after its last byte.

A raw frame comes in row by row, and a box reduction of a stripe of rows needs nothing
below it. So as each chunk of a frame lands in its buffer, the complete rows not yet seen
are halved and reduced on into the thumbnail and, when the budget will use a whole-factor
reduction of the whole frame, reduced to that and deflated into its PNG (``png``). The host
work then overlaps the transfer instead of following it: after the last byte only its last
stripe, the end of the deflate stream and the fingerprint remain. Nothing of frame size is
kept: a stripe's reductions are freed once they are in the thumbnail and the PNG (a
budget the PNG does not fit reduces the frame again, whole).

Stripes start at multiples of every reduction's block height, so each block is averaged
from the same pixels as a reduction of the whole frame: the results are the same bytes
(the tests compare them). Only RGBA_8888 and RGBX_8888 frames (what phones send) are
reduced this way, and only under the header Android 8 and later write (16 bytes): whether
the header had the colour-space word is known only from the frame's final length, so a
frame that turns out to have a 12-byte header has its early work dropped and is reduced
whole, as are all other formats.
"""

from __future__ import annotations

import math
import mmap
import struct
import time
from collections.abc import Callable
from typing import cast

from PIL import Image

from adbwire.device.parsers import RawFrame
from adbwire.device.screen.png import PngWriter
from adbwire.device.screen.scaling import Prepared, thumbnail_factor

HEADER_BYTES = 16
"""The raw header Android 8.0 (API 26) and later write: width, height, format, colour space."""
FORMATS = (1, 2)
"""RGBA_8888 and RGBX_8888: 4 bytes a pixel, read as RGBX (alpha ignored)."""
MIN_STRIPE_ROWS = 64
"""Rows gathered before they are reduced: fewer would cost more in calls than in pixels."""
MAX_STRIPE_ROWS = 256
"""Rows reduced at once (about one 1 MiB packet of a 1080-wide frame). A stripe's images
and bytes are freed before the next, so what a screenshot allocates in passing stays under
1 MB; fewer rows measured no smaller in RSS and cost more calls."""

PngFactor = Callable[[int, int], "int | None"]
"""A frame's width and height -> the whole factor whose reduction will be encoded as PNG
(at least 2), or None when no PNG is wanted."""


class StreamReduction:
    """Watches one raw frame arrive (``arrived``) and reduces its complete rows."""

    def __init__(self, png_factor: PngFactor | None = None) -> None:
        self._png_factor = png_factor
        self._started = False
        self._off = False
        self._width = self._height = self._row_bytes = 0
        self._unit = self._stripe_rows = 2
        self._done = 0
        self._thumbnail_factor = 1
        self._thumbnail: Image.Image | None = None
        self._factor: int | None = None
        self._png: PngWriter | None = None
        self._encode_seconds = 0.0

    @property
    def rows_done(self) -> int:
        """The frame's rows reduced so far."""
        return self._done

    def arrived(self, buffer: mmap.mmap, length: int) -> None:
        """``length`` bytes of the frame are in ``buffer``: reduce the rows now complete."""
        if self._off:
            return
        if not self._started:
            self._start(buffer)
            if self._off:
                return
        ready = min(self._height, max(0, length - HEADER_BYTES) // self._row_bytes)
        end = ready - ready % self._unit
        if end - self._done >= MIN_STRIPE_ROWS:
            self._reduce_to(memoryview(buffer)[HEADER_BYTES:], end)

    def result(self, frame: RawFrame) -> Prepared | None:
        """What was made of ``frame`` (the output whose arrival this watched), or None when
        the frame is not one this reduces (format, 12-byte header)."""
        if self._off or not self._started:
            return None
        same = (frame.width, frame.height) == (self._width, self._height)
        if not same or frame.header_size != HEADER_BYTES or frame.pixel_format not in FORMATS:
            return None
        self._reduce_to(memoryview(frame.pixels), self._height)
        assert self._thumbnail is not None
        if self._png is None:
            return Prepared(self._thumbnail)
        started = time.monotonic()
        png = self._png.finish()
        encoding = self._encode_seconds + time.monotonic() - started
        size = (self._png.width, self._png.height)
        return Prepared(self._thumbnail, self._factor, size, png, encoding)

    def _start(self, buffer: mmap.mmap) -> None:
        self._started = True
        width, height, pixel_format = struct.unpack_from("<III", buffer)
        if pixel_format not in FORMATS or width < 1 or height < 1:
            self._off = True
            return
        self._width, self._height, self._row_bytes = width, height, width * 4
        half = _reduced_size((width, height), 2)
        self._thumbnail_factor = thumbnail_factor(half)
        self._thumbnail = Image.new("RGB", _reduced_size(half, self._thumbnail_factor))
        unit = 2 * self._thumbnail_factor
        factor = self._png_factor(width, height) if self._png_factor is not None else None
        if factor is not None and factor >= 2:
            self._factor = factor
            self._png = PngWriter(*_reduced_size((width, height), factor))
            unit = math.lcm(unit, factor)
        self._unit = unit
        self._stripe_rows = max(unit, MAX_STRIPE_ROWS // unit * unit)

    def _reduce_to(self, pixels: memoryview, end: int) -> None:
        """Rows ``_done`` to ``end`` (a multiple of every block height, or the last row)."""
        while self._done < end:
            self._reduce(pixels, min(end, self._done + self._stripe_rows))

    def _reduce(self, pixels: memoryview, end: int) -> None:
        top, rows = self._done, end - self._done
        view = cast(bytes, pixels[top * self._row_bytes : end * self._row_bytes])  # Pillow stubs
        stripe = Image.frombuffer("RGBX", (self._width, rows), view, "raw", "RGBX", 0, 1)
        half = stripe.reduce(2)
        assert self._thumbnail is not None
        small = half.reduce(self._thumbnail_factor) if self._thumbnail_factor > 1 else half
        self._thumbnail.paste(small, (0, top // (2 * self._thumbnail_factor)))
        factor = self._factor
        if factor is not None and self._png is not None:
            started = time.monotonic()
            if factor == 2:
                self._png.add(half)
            elif factor % 2 == 0:
                self._png.add(half.reduce(factor // 2))
            else:
                self._png.add(stripe.reduce(factor))
            self._encode_seconds += time.monotonic() - started
        self._done = end


def _reduced_size(size: tuple[int, int], factor: int) -> tuple[int, int]:
    """A box reduction's size: a partial block at the edge still makes a pixel."""
    return -(-size[0] // factor), -(-size[1] // factor)
