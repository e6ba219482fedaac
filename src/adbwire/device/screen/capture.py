"""Capturing the screen binary-safe over ``exec:`` into a host-side image.

Two paths (``path_choice`` picks one per device from what each cost there): the raw frame
(``screencap``: the device only copies pixels; the host maps them into an image without a
copy or a decode) and the device's PNG (``screencap -p``: fewer bytes on the wire, but the
device encodes and the host decodes). Formats Pillow cannot take raw (FP16, 10-bit), or a
frame that does not parse, fall back to ``screencap -p``; a PNG that does not parse falls
back to the raw frame. Devices without ``exec:`` are captured over shell v2 (also
binary-safe) where offered.

The device's output is read as it arrives and its header checked first: a frame larger than
``max_pixels`` (default ``MAX_SCREEN_PIXELS``) is refused with ``ScreenTooLargeError``
before anything is decoded, and reading stops with ``OutputTooLargeError`` past the bytes a
frame of the announced size can take. Pillow only ever sees a PNG whose size passed.

Each frame comes with a thumbnail (``scaling``): its fingerprint is what change detection
compares, and it tells a lit frame from an all-black one, which is what a window with
FLAG_SECURE (passwords, banking, DRM video) gives and must not be passed off as the screen.
A raw frame's half, its thumbnail and (with ``png_factor``) the PNG of the reduction a
budget will use are made while the frame arrives (``stream_reduce``).
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass
from typing import Literal, cast

from PIL import Image

from adbwire.device.errors import ScreenTooLargeError
from adbwire.device.parsers import RawFrame, parse_png_header, parse_raw_screencap
from adbwire.device.parsers.screencap import (
    MAX_SCREEN_PIXELS,
    PNG_HEADER_BYTES,
    RAW_HEADER_BYTES,
    check_screen_size,
    png_frame_limit,
    raw_frame_limit,
)
from adbwire.device.screen.frame_pool import Lease
from adbwire.device.screen.path_choice import CapturePath, CapturePaths
from adbwire.device.screen.read_frame import FrameReader, Output
from adbwire.device.screen.scaling import Prepared, Reductions, fingerprint, is_black
from adbwire.device.screen.stream_reduce import PngFactor, StreamReduction
from adbwire.errors import DeviceCommandError
from adbwire.wire.client import AdbClient

Source = Literal["auto", "raw", "png"]
CAPTURE_TIMEOUT = 60.0
# Pillow (mode, raw mode) for each screencap pixel format it can read directly. RGBA_8888
# and RGBX_8888 are mapped over the buffer as they arrived (alpha is ignored, as it was
# when converting to RGB); the others are unpacked.
_RAW_MODES: dict[int, tuple[str, str]] = {
    1: ("RGB", "RGBX"),
    2: ("RGB", "RGBX"),
    3: ("RGB", "RGB"),
    4: ("RGB", "BGR;16"),
    5: ("RGB", "BGRX"),
}


@dataclass(frozen=True)
class Frame:
    """One capture: the picture, where it came from, a thumbnail, whether it is all black."""

    reductions: Reductions
    """The full picture (``.image``, RGB or RGBX) and the reductions made of it."""
    source: Literal["raw", "png"]
    black: bool
    thumbnail: Image.Image
    fingerprint: str
    """Hash of the thumbnail's pixels: equal for equal screens, whichever path."""

    @property
    def image(self) -> Image.Image:
        return self.reductions.image

    @property
    def width(self) -> int:
        return self.image.width

    @property
    def height(self) -> int:
        return self.image.height


class _Unreadable(Exception):
    """This path gave output the host cannot turn into a picture (the other path may)."""

    def __init__(self, error: DeviceCommandError) -> None:
        super().__init__(str(error))
        self.error = error


def capture(
    client: AdbClient,
    source: Source = "auto",
    *,
    max_pixels: int = MAX_SCREEN_PIXELS,
    paths: CapturePaths | None = None,
    lease: Lease | None = None,
    timeout: float = CAPTURE_TIMEOUT,
    png_factor: PngFactor | None = None,
) -> Frame:
    """Capture the screen; ``source`` forces raw frames or the device's PNG, ``auto`` takes
    the path ``paths`` chose for this device (raw without one), the other as fallback.
    With a ``lease`` the frame is read into a pooled buffer: give it back only once the
    frame and every image over it are gone. ``timeout`` bounds each path's read.
    ``png_factor`` names the whole-factor reduction of a raw frame to encode as PNG while
    it arrives (``Frame.reductions.ready_png``)."""
    reader = FrameReader(client, timeout, lease)
    if source != "auto":
        order: list[CapturePath] = [source]
    else:
        chosen = paths.choose() if paths is not None else "raw"
        order = [chosen, _other(chosen)]
    for path in order:
        started = time.monotonic()
        try:
            image, output, prepared = _read(reader, path, max_pixels, paths, png_factor)
        except _Unreadable as unreadable:
            if path == order[-1]:
                raise unreadable.error from None
            if paths is not None:
                paths.failed(path)
            continue
        frame = _frame(Reductions(image, prepared), path)
        if paths is not None:  # the first reduction is counted: RGBA from a PNG takes longer
            encoded = prepared.encode_seconds if prepared is not None else 0.0
            seconds = time.monotonic() - started - encoded
            paths.record(path, seconds, len(output.data), output.transfer_seconds)
        return frame
    raise AssertionError("unreachable: the last path raises")


def _other(path: CapturePath) -> CapturePath:
    return "png" if path == "raw" else "raw"


def _read(
    reader: FrameReader,
    path: CapturePath,
    max_pixels: int,
    paths: CapturePaths | None,
    png_factor: PngFactor | None,
) -> tuple[Image.Image, Output, Prepared | None]:
    """The frame over one path as an image (RGB, RGBX or RGBA), the output it came from,
    and what was made of it as it arrived."""
    prepared: Prepared | None = None
    try:
        if path == "raw":
            early = StreamReduction(png_factor)
            output = reader.read(
                [],
                RAW_HEADER_BYTES,
                lambda header: raw_frame_limit(header, max_pixels),
                early.arrived,
            )
            frame = parse_raw_screencap(output.data, max_pixels=max_pixels)
            image = frame_image(frame)
            if image is None:
                if paths is not None:
                    paths.raw_unreadable()
                raise _Unreadable(
                    DeviceCommandError(
                        f"screencap: pixel format {frame.format_name} cannot be read raw; use png"
                    )
                )
            prepared = early.result(frame)
        else:
            output = reader.read(
                ["-p"], PNG_HEADER_BYTES, lambda header: png_frame_limit(header, max_pixels)
            )
            image = _reducible(decode_png(output.data, max_pixels))
    except ScreenTooLargeError:
        raise  # the other path's frame of the same screen is just as large
    except DeviceCommandError as exc:
        raise _Unreadable(exc) from None
    return image, output, prepared


def decode_png(png: bytes | memoryview, max_pixels: int = MAX_SCREEN_PIXELS) -> Image.Image:
    """The PNG as a Pillow image, its size checked from the IHDR before Pillow sees it, and
    again (as Pillow reads it) before Pillow decodes a pixel.

    Only the PNG decoder is offered: output that is some other format (which Pillow would
    otherwise sniff and open) is refused, not decoded.
    """
    header = parse_png_header(png)
    check_screen_size("screencap -p", header.width, header.height, max_pixels)
    try:
        image = Image.open(io.BytesIO(png), formats=["PNG"])
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        said = bytes(png[:120]).decode("ascii", errors="replace").strip()
        raise DeviceCommandError(f"screencap -p: not a readable image ({exc}); {said}") from None
    check_screen_size("screencap -p", image.width, image.height, max_pixels)
    try:
        image.load()
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise DeviceCommandError(f"screencap -p: not a readable image ({exc})") from None
    return image


def frame_image(frame: RawFrame) -> Image.Image | None:
    """The frame as a Pillow image (RGB, or RGBX over the frame's own buffer), or None for
    formats Pillow cannot take raw."""
    modes = _RAW_MODES.get(frame.pixel_format)
    if modes is None:
        return None
    mode, raw_mode = modes
    size = (frame.width, frame.height)
    pixels = cast(bytes, frame.pixels)  # any buffer will do; Pillow's stubs name a few
    return Image.frombuffer(mode, size, pixels, "raw", raw_mode, 0, 1)


def _reducible(image: Image.Image) -> Image.Image:
    """RGB(A) as decoded (converting a full frame would cost another 10 MB and 5 ms; only
    the reduced image is converted); other PNG layouts (grey, palette) as RGB."""
    return image if image.mode in ("RGB", "RGBA") else image.convert("RGB")


def _frame(reductions: Reductions, source: CapturePath) -> Frame:
    thumbnail = reductions.thumbnail()
    black = is_black(reductions, thumbnail)
    return Frame(reductions, source, black, thumbnail, fingerprint(thumbnail))
