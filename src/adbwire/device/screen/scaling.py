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
On the raw path the thumbnail, and the PNG of the reduction the budget uses, are made while
the frame arrives (``stream_reduce``) and handed in as ``Prepared``.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from PIL import Image

KEEP = 0.8
"""A reduction by a whole factor may leave the long edge this much below the budget's."""
THUMBNAIL_EDGE = 320
"""Long edge of the thumbnail (at most): 135x303 for a 1080x2424 phone (8x8 blocks), 120 KB
in RGB. One fully changed pixel moves its block's average by 4 levels: still noticed."""


@dataclass(frozen=True)
class Prepared:
    """What was made of a frame before it was whole (``stream_reduce``)."""

    thumbnail: Image.Image
    """RGB, as ``Reductions.thumbnail`` makes it."""
    factor: int | None = None
    """The whole factor whose reduction ``png`` holds (None: no PNG was made)."""
    size: tuple[int, int] = (0, 0)
    """That reduction's size."""
    png: bytes | None = None
    encode_seconds: float = 0.0
    """Spent making ``png``: a capture path's cost leaves it out, as the PNG path encodes
    only after its capture (``path_choice`` compares captures)."""


class Reductions:
    """One frame (mode RGB, RGBX over the buffer it arrived in, or RGBA as a PNG decodes)
    and its reductions, some perhaps ``prepared`` already."""

    def __init__(self, image: Image.Image, prepared: Prepared | None = None) -> None:
        self.image = image
        self._prepared = prepared
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
        whole = whole_factor(self.size, edge)
        if whole is not None:
            return rgb(self.reduced(whole))
        factor = math.ceil(longest / edge)
        base = self.reduced(factor - 1)
        scale = edge / longest
        size = (max(1, math.floor(width * scale)), max(1, math.floor(height * scale)))
        return rgb(base.resize(size, Image.Resampling.BICUBIC))

    def thumbnail(self) -> Image.Image:
        """A small RGB copy for change detection and the history (about THUMBNAIL_EDGE)."""
        if self._prepared is not None:
            return self._prepared.thumbnail
        half = self.half
        factor = thumbnail_factor(half.size)
        return rgb(half.reduce(factor) if factor > 1 else half)

    def ready_png(self, edge: int) -> tuple[tuple[int, int], bytes] | None:
        """The size and PNG of the reduction ``shrunk(edge)`` would give, when that PNG was
        made already (None otherwise)."""
        prepared = self._prepared
        if prepared is None or prepared.png is None:
            return None
        if whole_factor(self.size, edge) != prepared.factor:
            return None
        return prepared.size, prepared.png


def whole_factor(size: tuple[int, int], edge: int) -> int | None:
    """The whole factor that brings ``size``'s long edge within ``edge`` (1: it is), or
    None when the image is to be resampled (the factor would lose more than ``KEEP``)."""
    longest = max(size)
    if longest <= edge:
        return 1
    factor = math.ceil(longest / edge)
    return factor if longest / factor >= KEEP * edge else None


def thumbnail_factor(half: tuple[int, int]) -> int:
    """The box reduction from the frame's half to its thumbnail."""
    return max(1, math.ceil(max(half) / THUMBNAIL_EDGE))


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
