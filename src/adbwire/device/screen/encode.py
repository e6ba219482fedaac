"""Scaling and encoding a screenshot on the host to fit a pixel and a byte budget.

The image is first shrunk so its long edge fits ``max_edge`` (never enlarged; by whole
factors where that keeps most of the edge, see ``scaling``). Then, by format: ``png`` is
lossless and only gets smaller by scaling down further; ``jpeg`` and ``webp`` step their
quality down first; ``auto`` keeps PNG when it fits (UI screens are flat and compress well)
and otherwise switches to JPEG. When nothing fits, the image is scaled down again, in
bounded steps, until it does or it would get unreadably small.

Encoder settings are chosen for speed: PNG unfiltered at zlib level 1 (``png``: faster
than Pillow's encoder and no larger on screens), JPEG without the extra Huffman pass, WebP
at its fastest method. A PNG made while the frame arrived (``stream_reduce``) is used as
it is.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from PIL import Image

from adbwire.device.screen.png import encode_png
from adbwire.device.screen.scaling import Reductions
from adbwire.errors import UsageError

ImageFormat = Literal["auto", "png", "jpeg", "webp"]
MIME = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}
DEFAULT_MAX_EDGE = 1280
DEFAULT_MAX_BYTES = 800_000
MIN_EDGE = 64
MAX_EDGE = 8192
MIN_BYTES = 10_000
MAX_BYTES = 20_000_000
QUALITY_STEPS = (85, 70, 55, 40)
_MAX_ROUNDS = 12


@dataclass(frozen=True)
class Budget:
    """Long edge in pixels, size in bytes (of the image itself; base64 adds a third)."""

    max_edge: int = DEFAULT_MAX_EDGE
    max_bytes: int = DEFAULT_MAX_BYTES
    format: ImageFormat = "auto"

    def __post_init__(self) -> None:
        if not MIN_EDGE <= self.max_edge <= MAX_EDGE:
            raise UsageError(f"max_edge must be within {MIN_EDGE}..{MAX_EDGE} pixels")
        if not MIN_BYTES <= self.max_bytes <= MAX_BYTES:
            raise UsageError(f"max_bytes must be within {MIN_BYTES}..{MAX_BYTES}")
        if self.format not in ("auto", *MIME):
            raise UsageError(f"unknown image format {self.format!r}; use auto, png, jpeg, webp")


@dataclass(frozen=True)
class Encoded:
    data: bytes
    format: Literal["png", "jpeg", "webp"]
    width: int
    height: int
    quality: int | None
    """None for PNG."""

    @property
    def mime_type(self) -> str:
        return MIME[self.format]


def fit(image: Image.Image | Reductions, budget: Budget) -> Encoded:
    """Encode ``image`` within the budget; see the module docstring for the order."""
    reductions = image if isinstance(image, Reductions) else Reductions(image)
    width, height = reductions.size
    longest = max(width, height, 1)
    edge = min(budget.max_edge, longest)
    for _ in range(_MAX_ROUNDS):
        ready = reductions.ready_png(edge) if budget.format in ("auto", "png") else None
        if ready is not None:
            (made_width, made_height), png = ready
            if len(png) <= budget.max_bytes:
                return Encoded(png, "png", made_width, made_height, None)
        scaled = reductions.shrunk(edge)
        smallest: int | None = len(ready[1]) if ready is not None else None
        for encoded in _attempts(scaled, budget.format, tried_png=ready is not None):
            if len(encoded.data) <= budget.max_bytes:
                return encoded
            smallest = len(encoded.data) if smallest is None else min(smallest, len(encoded.data))
        assert smallest is not None
        # Bytes grow about with the pixel count: shrink both edges by the square root.
        shrink = max(0.5, min(0.9, math.sqrt(budget.max_bytes / smallest) * 0.95))
        edge = math.floor(max(scaled.size) * shrink)
        if edge < MIN_EDGE:
            break
    raise UsageError(
        f"the screenshot cannot be made to fit {budget.max_bytes} bytes above {MIN_EDGE} px; "
        "raise max_bytes, crop to a region, or use jpeg/webp"
    )


def _attempts(image: Image.Image, wanted: ImageFormat, *, tried_png: bool) -> Iterator[Encoded]:
    """Encodings in the order to try them, made one at a time (the first fit ends it);
    ``tried_png``: the image's PNG was made already, and did not fit."""
    if wanted in ("auto", "png"):
        if not tried_png:
            yield _encode(image, "png", None)
        if wanted == "png":
            return
    lossy: Literal["jpeg", "webp"] = "webp" if wanted == "webp" else "jpeg"
    for quality in QUALITY_STEPS:
        yield _encode(image, lossy, quality)


def _encode(
    image: Image.Image, kind: Literal["png", "jpeg", "webp"], quality: int | None
) -> Encoded:
    if kind == "png":
        return Encoded(encode_png(image), kind, image.width, image.height, None)
    buffer = io.BytesIO()
    if kind == "jpeg":
        image.save(buffer, "JPEG", quality=quality)
    else:
        image.save(buffer, "WEBP", quality=quality, method=0)
    return Encoded(buffer.getvalue(), kind, image.width, image.height, quality)
