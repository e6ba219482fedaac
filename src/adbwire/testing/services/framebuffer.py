"""framebuffer: — the screen as adbd's framebuffer_service sends it (for ddmlib and friends).

adbd runs `screencap` and reads its raw output (width, height, pixel format and, from
Android 8.1, the colour space), then sends a version-2 header of fourteen little-endian
u32s — version, bpp, colorSpace, size, width, height, then offset and length of red, blue,
green and alpha — followed by the pixels. The simulated device does the same through its
userland, so the picture is the one `screencap` gives.
"""

from __future__ import annotations

import struct
from typing import Final

from adbwire.testing.device_state import UserlandLike
from adbwire.testing.services.base import ServiceContext, ServiceHandler
from adbwire.testing.services.shell import run_command
from adbwire.testing.stream import DeviceStream

__all__ = ["framebuffer_header", "open_framebuffer"]

RAW_IMAGE_VERSION: Final = 2
PIXEL_FORMAT_RGBA_8888: Final = 1
_SCREENCAP_HEADER = struct.Struct("<III")
_FB_HEADER = struct.Struct("<14I")
MAX_SCREEN_BYTES: Final = 64 << 20


class _Capture:
    """A ProcessIO that keeps what `screencap` writes (capped) and offers no input."""

    def __init__(self, stream: DeviceStream) -> None:
        self._stream = stream
        self.stdout = bytearray()

    def read_stdin(self, max_bytes: int = 65536) -> bytes:
        return b""

    def write_stdout(self, data: bytes) -> None:
        if len(self.stdout) + len(data) <= MAX_SCREEN_BYTES:
            self.stdout += data

    def write_stderr(self, data: bytes) -> None:
        pass

    @property
    def cancelled(self) -> bool:
        return self._stream.cancelled


def framebuffer_header(width: int, height: int, size: int, color_space: int) -> bytes:
    """The version-2 fbinfo for RGBA_8888 pixels."""
    return _FB_HEADER.pack(
        RAW_IMAGE_VERSION, 32, color_space, size, width, height, 0, 8, 16, 8, 8, 8, 24, 8
    )


def _screen(userland: UserlandLike, stream: DeviceStream) -> bytes | None:
    capture = _Capture(stream)
    if run_command(userland, "screencap", capture, pty=False) != 0:
        return None
    raw = bytes(capture.stdout)
    if len(raw) < _SCREENCAP_HEADER.size:
        return None
    width, height, pixel_format = _SCREENCAP_HEADER.unpack_from(raw)
    if pixel_format != PIXEL_FORMAT_RGBA_8888:
        return None
    size = width * height * 4
    offset = len(raw) - size
    if offset not in (12, 16):
        return None
    color_space = struct.unpack_from("<I", raw, 12)[0] if offset == 16 else 0
    return framebuffer_header(width, height, size, color_space) + raw[offset:]


def open_framebuffer(context: ServiceContext) -> ServiceHandler:
    userland = context.state.userland

    def serve(stream: DeviceStream) -> None:
        frame = _screen(userland, stream)
        if frame is not None:  # adbd closes without a word when screencap fails
            stream.write(frame)

    return serve
