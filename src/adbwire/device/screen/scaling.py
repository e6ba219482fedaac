"""Shrinking a frame cheaply: integer box reductions first, resampling only what is left.

A box reduction by k averages k x k blocks of pixels (Pillow's ``reduce``): one pass over
the frame at C speed, and for screen text it reads as well as any filter at that ratio. When
the budget's edge falls between two integer factors, the larger factor is taken if it keeps
at least ``KEEP`` of the allowed edge; otherwise the image is reduced by the smaller factor
and resampled the rest of the way (less than 2x), from an image already a fraction of the
frame's size.

The thumbnail behind change detection is reduced from the frame's half, the same way for
every budget and crop, so two captures of the same pixels always have the same fingerprint;
the default budget (1280 px for a 1080x2400 phone) is that half too, made once for both.
"""

from __future__ import annotations

import hashlib
import math

from PIL import Image

KEEP = 0.8
"""A reduction by a whole factor may leave the long edge this much below the budget's."""
THUMBNAIL_EDGE = 320
"""Long edge of the thumbnail (at most): 135x303 for a 1080x2424 phone (8x8 blocks), 120 KB
in RGB. One fully changed pixel moves its block's average by 4 levels: still noticed."""


class Reductions:
    """One frame (mode RGB, RGBX over the buffer it arrived in, or RGBA as a PNG decodes)
    and its reductions."""

    def __init__(self, image: Image.Image) -> None:
        self.image = image
        self._half: Image.Image | None = None

    @property
    def size(self) -> tuple[int, int]:
        return self.image.size

    @property
    def half(self) -> Image.Image:
        if self._half is None:
            self._half = self.image.reduce(2)
        return self._half

    def reduced(self, factor: int) -> Image.Image:
        """The frame with each ``factor`` x ``factor`` block averaged into one pixel."""
        if factor <= 1:
            return self.image
        if factor % 2 == 0:
            return self.half if factor == 2 else self.half.reduce(factor // 2)
        return self.image.reduce(factor)

    def shrunk(self, edge: int) -> Image.Image:
        """The frame in RGB with its long edge at most ``edge`` (never enlarged)."""
        width, height = self.size
        longest = max(width, height)
        if longest <= edge:
            return rgb(self.image)
        factor = math.ceil(longest / edge)
        if factor == 1 or longest / factor >= KEEP * edge:
            return rgb(self.reduced(factor))
        base = self.reduced(factor - 1)
        scale = edge / longest
        size = (max(1, math.floor(width * scale)), max(1, math.floor(height * scale)))
        return rgb(base.resize(size, Image.Resampling.BICUBIC))

    def thumbnail(self) -> Image.Image:
        """A small RGB copy for change detection and the history (about THUMBNAIL_EDGE)."""
        half = self.half
        factor = math.ceil(max(half.size) / THUMBNAIL_EDGE)
        return rgb(half.reduce(factor) if factor > 1 else half)


def rgb(image: Image.Image) -> Image.Image:
    return image if image.mode == "RGB" else image.convert("RGB")


def fingerprint(thumbnail: Image.Image) -> str:
    """What change detection compares: the thumbnail's pixels, hashed."""
    return hashlib.sha256(thumbnail.tobytes()).hexdigest()


def is_black(reductions: Reductions, thumbnail: Image.Image) -> bool:
    """Whether every colour byte of the frame is zero (a FLAG_SECURE window, a dark
    display). A lit thumbnail pixel proves a lit frame pixel, so the whole frame is only
    looked at when the thumbnail is black too."""
    if any(high for _low, high in _colour_extrema(thumbnail)):
        return False
    return not any(high for _low, high in _colour_extrema(reductions.image))


def _colour_extrema(image: Image.Image) -> list[tuple[int, int]]:
    extrema = image.getextrema()  # one (low, high) pair per band for these modes
    return [band for band in extrema[:3] if isinstance(band, tuple)]  # no alpha or padding
