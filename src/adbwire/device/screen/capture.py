"""Capturing the screen binary-safe over ``exec:`` into a host-side image.

Raw ``screencap`` frames are preferred: the device only copies pixels, and the host (Pillow)
does the encoding, which is faster than the device's PNG encoder. Formats Pillow cannot
take raw (FP16, 10-bit), or a frame that does not parse, fall back to ``screencap -p``.
Devices without ``exec:`` are captured over shell v2 (also binary-safe) where offered.

The device's output is read as it arrives and its header checked first: a frame larger than
``max_pixels`` (default ``MAX_SCREEN_PIXELS``) is refused with ``ScreenTooLargeError``
before anything is decoded, and reading stops with ``OutputTooLargeError`` past the bytes a
frame of the announced size can take. Pillow only ever sees a PNG whose size passed.

An all-black frame is flagged: that is what a window with FLAG_SECURE (passwords, banking,
DRM video) gives, and it must not be passed off as the screen.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from typing import Literal

from PIL import Image

from adbwire.device.errors import ScreenTooLargeError
from adbwire.device.parsers import (
    RawFrame,
    parse_png_header,
    parse_raw_screencap,
    png_is_black,
    raw_frame_is_black,
)
from adbwire.device.parsers.screencap import (
    MAX_SCREEN_PIXELS,
    PNG_HEADER_BYTES,
    RAW_HEADER_BYTES,
    check_screen_size,
    png_frame_limit,
    raw_frame_limit,
)
from adbwire.device.screen.read_frame import FrameReader
from adbwire.errors import DeviceCommandError
from adbwire.wire.client import AdbClient

Source = Literal["auto", "raw", "png"]
CAPTURE_TIMEOUT = 60.0
# Pillow (mode, raw mode) for each screencap pixel format it can read directly.
_RAW_MODES: dict[int, tuple[str, str]] = {
    1: ("RGBA", "RGBA"),
    2: ("RGB", "RGBX"),
    3: ("RGB", "RGB"),
    4: ("RGB", "BGR;16"),
    5: ("RGBA", "BGRA"),
}


@dataclass(frozen=True)
class Frame:
    """One capture: the picture in RGB, where it came from, and whether it is all black."""

    image: Image.Image
    source: Literal["raw", "png"]
    black: bool
    pixels_sha256: str

    @property
    def width(self) -> int:
        return self.image.width

    @property
    def height(self) -> int:
        return self.image.height


def capture(
    client: AdbClient, source: Source = "auto", *, max_pixels: int = MAX_SCREEN_PIXELS
) -> Frame:
    """Capture the screen; ``source`` forces raw frames or the device's PNG."""
    reader = FrameReader(client, CAPTURE_TIMEOUT)
    if source != "png":
        try:
            data = reader.read(
                [], RAW_HEADER_BYTES, lambda header: raw_frame_limit(header, max_pixels)
            )
            frame = parse_raw_screencap(data, max_pixels=max_pixels)
        except ScreenTooLargeError:
            raise  # the PNG of the same screen is just as large
        except DeviceCommandError:
            if source == "raw":
                raise
        else:
            image = frame_image(frame)
            if image is not None:
                return _frame(image, "raw", raw_frame_is_black(frame))
            if source == "raw":
                raise DeviceCommandError(
                    f"screencap: pixel format {frame.format_name} cannot be read raw; use png"
                )
    png = reader.read(["-p"], PNG_HEADER_BYTES, lambda header: png_frame_limit(header, max_pixels))
    return _frame(decode_png(png, max_pixels), "png", _png_black(png, max_pixels))


def decode_png(png: bytes, max_pixels: int = MAX_SCREEN_PIXELS) -> Image.Image:
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
        said = png[:120].decode("ascii", errors="replace").strip()
        raise DeviceCommandError(f"screencap -p: not a readable image ({exc}); {said}") from None
    check_screen_size("screencap -p", image.width, image.height, max_pixels)
    try:
        image.load()
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise DeviceCommandError(f"screencap -p: not a readable image ({exc})") from None
    return image


def frame_image(frame: RawFrame) -> Image.Image | None:
    """The frame as a Pillow image, or None for formats Pillow cannot take raw."""
    modes = _RAW_MODES.get(frame.pixel_format)
    if modes is None:
        return None
    mode, raw_mode = modes
    size = (frame.width, frame.height)
    return Image.frombuffer(mode, size, frame.pixels, "raw", raw_mode, 0, 1)


def _frame(image: Image.Image, source: Literal["raw", "png"], black: bool | None) -> Frame:
    rgb = image.convert("RGB")
    if black is None:  # the parsers could not tell for this layout: look at the pixels
        extrema = rgb.getextrema()  # one (low, high) pair per band for an RGB image
        black = all(band[1] == 0 for band in extrema if isinstance(band, tuple))
    sha = hashlib.sha256(rgb.tobytes()).hexdigest()
    return Frame(rgb, source, black, sha)


def _png_black(png: bytes, max_pixels: int) -> bool | None:
    try:
        return png_is_black(png, max_pixels=max_pixels)
    except DeviceCommandError:
        return None
