"""A screenshot that fits: capture, optional crop, scale and encode, compare.

The host's work is kept to what the answer needs: the frame is not copied (a crop copies
its region), it is shrunk by whole-factor box reductions before any resampling, change
detection looks at a thumbnail, and only the returned image is hashed. On the raw path,
the reductions, the thumbnail and the PNG the budget's first attempt needs are made as the
frame arrives (``stream_reduce``), so most of that work overlaps the transfer. The capture path
(raw frame or the device's PNG) is the one measured fastest for this device, when a
``ScreenHistory`` remembers the device (``path_choice``).

A black frame (FLAG_SECURE window, or the display off) comes back without an image and
with ``black=True``: it is reported, never returned as if it were the screen.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

from adbwire.device.parsers import Bounds
from adbwire.device.parsers.screencap import MAX_SCREEN_PIXELS
from adbwire.device.screen.capture import Source, capture
from adbwire.device.screen.encode import Budget, Encoded, fit
from adbwire.device.screen.frame_pool import Lease, trim_heaps
from adbwire.device.screen.history import Mapping, ScreenHistory
from adbwire.device.screen.scaling import Reductions, whole_factor
from adbwire.device.screen.stream_reduce import PngFactor
from adbwire.errors import UsageError
from adbwire.wire.client import AdbClient

BLACK_NOTE = (
    "the captured frame is entirely black: a window with FLAG_SECURE (password, payment or "
    "DRM screens) is on top, or the display is off. No image is returned, as it would not "
    "show the screen; use ui_tree to see what is there."
)


@dataclass(frozen=True)
class Screenshot:
    image: Encoded | None
    """None when the frame was black."""
    black: bool
    source: Literal["raw", "png"]
    device_width: int
    device_height: int
    region: Bounds | None
    """The cropped part in device pixels; None for the whole screen."""
    mapping: Mapping | None
    changed: bool | None
    """Whether the screen differs from this device's previous screenshot (None: first one)."""
    note: str | None = None

    @property
    def sha256(self) -> str | None:
        return hashlib.sha256(self.image.data).hexdigest() if self.image else None


def take_screenshot(
    client: AdbClient,
    *,
    budget: Budget | None = None,
    region: Bounds | None = None,
    source: Source = "auto",
    history: ScreenHistory | None = None,
    max_pixels: int = MAX_SCREEN_PIXELS,
) -> Screenshot:
    """Capture the screen and encode it within ``budget`` (default: 1280 px, 800 KB).

    A frame over ``max_pixels`` is refused (``ScreenTooLargeError``) before it is decoded.
    """
    lease = Lease()
    try:
        return _take(
            client,
            budget or Budget(),
            region=region,
            source=source,
            history=history,
            max_pixels=max_pixels,
            lease=lease,
        )
    finally:
        lease.give_back()  # _take's frame and images are gone: its buffer can be reused
        trim_heaps()  # and what it allocated in passing goes back, whichever thread ran it


def _take(
    client: AdbClient,
    budget: Budget,
    *,
    region: Bounds | None,
    source: Source,
    history: ScreenHistory | None,
    max_pixels: int,
    lease: Lease,
) -> Screenshot:
    paths = history.capture_paths(client.serial) if history else None
    frame = capture(
        client,
        source,
        max_pixels=max_pixels,
        paths=paths,
        lease=lease,
        png_factor=png_ahead(budget) if region is None else None,
    )
    changed = history.record(client.serial, frame.fingerprint, frame.thumbnail) if history else None
    width, height = frame.width, frame.height
    if frame.black:
        return Screenshot(
            None, True, frame.source, width, height, region, None, changed, BLACK_NOTE
        )
    reductions = frame.reductions
    left = top = 0
    if region is not None:
        region = clip(region, width, height)
        box = (region.left, region.top, region.right, region.bottom)
        reductions = Reductions(frame.image.crop(box))
        left, top = region.left, region.top
    encoded = fit(reductions, budget)
    mapping = Mapping(
        scale=encoded.width / reductions.size[0],
        left=left,
        top=top,
        image_width=encoded.width,
        image_height=encoded.height,
        device_width=width,
        device_height=height,
    )
    if history:
        history.set_mapping(client.serial, mapping)
    return Screenshot(encoded, False, frame.source, width, height, region, mapping, changed)


def png_ahead(budget: Budget) -> PngFactor | None:
    """Which reduction of a whole frame the budget's first attempt encodes as PNG: the
    one to make while the frame arrives (none when it is resampled or not PNG)."""
    if budget.format not in ("auto", "png"):
        return None

    def factor(width: int, height: int) -> int | None:
        whole = whole_factor((width, height), budget.max_edge)
        return whole if whole is not None and whole >= 2 else None

    return factor


def clip(region: Bounds, width: int, height: int) -> Bounds:
    """The region cut to the screen; refused when nothing of it is on screen."""
    clipped = Bounds(
        max(0, region.left),
        max(0, region.top),
        min(width, region.right),
        min(height, region.bottom),
    )
    if clipped.is_empty:
        raise UsageError(
            f"the region [{region.left},{region.top}][{region.right},{region.bottom}] is not "
            f"on the {width}x{height} screen"
        )
    return clipped
