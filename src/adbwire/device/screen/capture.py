"""Capturing the screen binary-safe over ``exec:`` into a host-side image.

Raw ``screencap`` frames are preferred: the device only copies pixels, and the host (Pillow)
does the encoding, which is faster than the device's PNG encoder. Formats Pillow cannot
take raw (FP16, 10-bit), or a frame that does not parse, fall back to ``screencap -p``.
Devices without ``exec:`` are captured over shell v2 (also binary-safe) where offered.

An all-black frame is flagged: that is what a window with FLAG_SECURE (passwords, banking,
DRM video) gives, and it must not be passed off as the screen.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from typing import Literal

from PIL import Image

from adbwire.device import commands
from adbwire.device.parsers import (
    RawFrame,
    parse_raw_screencap,
    png_is_black,
    raw_frame_is_black,
)
from adbwire.errors import CommandFailedError, DeviceCommandError, StreamRefusedError
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


def capture(client: AdbClient, source: Source = "auto") -> Frame:
    """Capture the screen; ``source`` forces raw frames or the device's PNG."""
    if source != "png":
        data = _screencap(client, [])
        try:
            frame = parse_raw_screencap(data)
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
    png = _screencap(client, ["-p"])
    try:
        image = Image.open(io.BytesIO(png))
        image.load()
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        said = png[:120].decode("ascii", errors="replace").strip()
        raise DeviceCommandError(f"screencap -p: not a readable image ({exc}); {said}") from None
    return _frame(image, "png", _png_black(png))


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


def _png_black(png: bytes) -> bool | None:
    try:
        return png_is_black(png)
    except DeviceCommandError:
        return None


def _screencap(client: AdbClient, flags: list[str]) -> bytes:
    command = " ".join(["screencap", *flags])
    try:
        data = client.exec_out(command, timeout=CAPTURE_TIMEOUT)
    except StreamRefusedError:
        if "shell_v2" not in client.features:
            raise
        result = client.shell_argv(["screencap", *flags], timeout=CAPTURE_TIMEOUT)
        if result.exit_code != 0:
            raise CommandFailedError(
                command, result.exit_code, commands.decode(result.stderr)
            ) from None
        data = result.stdout
    if not data:
        raise DeviceCommandError(f"{command}: no output (is the display on?)")
    return data
