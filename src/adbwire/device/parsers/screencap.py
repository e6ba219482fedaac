"""Raw ``screencap`` frames and ``screencap -p`` PNG headers, and all-black detection.

Raw output (``screencap`` with no ``-p``) is a little-endian header then rows of pixels:
width, height and pixel format as u32 each, and since Android 8.0 (API 26) a fourth u32 with
the colour space (0 unknown, 1 sRGB, 2 Display P3): 16 bytes instead of 12.

A frame is the device's word about its own size, so every size is checked against
``MAX_SCREEN_PIXELS`` from the header alone, before anything is decoded or allocated: a
164 KB PNG can claim 13000x13000 pixels (a decompression bomb), a 16-byte raw header can
claim gigabytes. ``raw_frame_limit`` and ``png_frame_limit`` turn a header into the most
bytes a well-formed frame of that size can take, so a reader can stop there.

Output may be given as ``bytes`` or as a ``memoryview`` of the buffer it arrived in; a raw
frame parsed from a view keeps its pixels as a view of that buffer (no copy).
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from typing import Final

from adbwire.device.errors import ScreenTooLargeError
from adbwire.device.parsers._text import output_error
from adbwire.errors import UsageError

MAX_SCREEN_PIXELS: Final = 1 << 24
"""16,777,216 pixels (4096x4096): above every phone and tablet screen, 4K (8.3 MP) and
5K (14.7 MP) displays; an 8K frame (33 MP) is refused. At most 64 MiB as RGBA_8888."""
RAW_HEADER_BYTES: Final = 12
"""What a raw frame's size can be read from (the colour space word is not needed)."""
PNG_HEADER_BYTES: Final = 33
"""Signature and IHDR chunk: what a PNG's size can be read from."""

_RAW_COMMAND = "screencap"
_PNG_COMMAND = "screencap -p"
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLORSPACE_HEADER_SDK = 26

# HAL pixel formats screencap can report: name and bytes per pixel.
PIXEL_FORMATS: dict[int, tuple[str, int]] = {
    1: ("RGBA_8888", 4),
    2: ("RGBX_8888", 4),
    3: ("RGB_888", 3),
    4: ("RGB_565", 2),
    5: ("BGRA_8888", 4),
    0x16: ("RGBA_FP16", 8),
    0x2B: ("RGBA_1010102", 4),
}
COLORSPACES = {0: "unknown", 1: "sRGB", 2: "Display P3"}
# Byte offsets of the colour channels inside one pixel (alpha/padding left out), for the
# formats whose black is "every colour byte is zero".
_COLOR_BYTES = {1: (0, 1, 2), 2: (0, 1, 2), 3: (0, 1, 2), 4: (0, 1), 5: (0, 1, 2)}


@dataclass(frozen=True)
class RawFrame:
    """A decoded raw ``screencap`` frame; ``pixels`` holds ``height`` tightly packed rows."""

    width: int
    height: int
    pixel_format: int
    format_name: str
    bytes_per_pixel: int
    colorspace: str | None
    header_size: int
    pixels: bytes | memoryview


def check_screen_size(
    what: str, width: int, height: int, max_pixels: int = MAX_SCREEN_PIXELS
) -> None:
    """Refuse a frame with no pixels (not a frame) or more than ``max_pixels``."""
    if width * height > max_pixels:
        raise ScreenTooLargeError(what, width, height, max_pixels)
    if width == 0 or height == 0:
        raise output_error(what, f"a {width}x{height} frame has no pixels")


def raw_frame_limit(header: bytes | memoryview, max_pixels: int = MAX_SCREEN_PIXELS) -> int:
    """The most bytes raw output starting with ``header`` (at least 12 bytes) may have.

    Raises :class:`~adbwire.device.errors.ScreenTooLargeError` past ``max_pixels`` and
    :class:`~adbwire.errors.DeviceCommandError` when the header is not a frame's.
    """
    width, height, pixel_format = struct.unpack_from("<III", header)
    if pixel_format not in PIXEL_FORMATS:
        raise output_error(
            _RAW_COMMAND, f"unknown pixel format {pixel_format:#x}", _printable(header[:80])
        )
    check_screen_size(_RAW_COMMAND, width, height, max_pixels)
    pixel_bytes: int = width * height * PIXEL_FORMATS[pixel_format][1]
    return 16 + pixel_bytes


def parse_raw_screencap(
    data: bytes | memoryview, sdk: int | None = None, *, max_pixels: int = MAX_SCREEN_PIXELS
) -> RawFrame:
    """Parse raw ``screencap`` output.

    The header size is taken from ``sdk`` when given, otherwise from which of 12 or 16 header
    bytes makes the length match the pixel data exactly. Raises
    :class:`~adbwire.errors.DeviceCommandError` for an unknown pixel format or output whose
    length does not fit the header (cut short, or an error message instead of a frame), and
    :class:`~adbwire.device.errors.ScreenTooLargeError` for more than ``max_pixels``.
    """
    if len(data) < RAW_HEADER_BYTES:
        raise output_error(_RAW_COMMAND, f"only {len(data)} bytes, not a frame", _printable(data))
    raw_frame_limit(data, max_pixels)
    width, height, pixel_format = struct.unpack_from("<III", data)
    format_name, bytes_per_pixel = PIXEL_FORMATS[pixel_format]
    pixel_bytes = width * height * bytes_per_pixel
    if sdk is not None:
        candidates = [16 if sdk >= _COLORSPACE_HEADER_SDK else 12]
    else:
        candidates = [size for size in (16, 12) if len(data) == size + pixel_bytes]
    if not candidates or len(data) != candidates[0] + pixel_bytes:
        expected = candidates[0] + pixel_bytes if candidates else 16 + pixel_bytes
        raise output_error(
            _RAW_COMMAND,
            f"{len(data)} bytes for a {width}x{height} {format_name} frame "
            f"(expected {expected}): output cut short or not a raw frame",
        )
    header_size = candidates[0]
    colorspace: str | None = None
    if header_size == 16:
        (code,) = struct.unpack_from("<I", data, 12)
        colorspace = COLORSPACES.get(code, f"unknown ({code})")
    return RawFrame(
        width=width,
        height=height,
        pixel_format=pixel_format,
        format_name=format_name,
        bytes_per_pixel=bytes_per_pixel,
        colorspace=colorspace,
        header_size=header_size,
        pixels=data[header_size:],
    )


def raw_frame_is_black(frame: RawFrame, threshold: int = 0) -> bool | None:
    """Whether every pixel's colour bytes are ``<= threshold`` (alpha ignored).

    A secure window (FLAG_SECURE) is captured as pure black. ``None`` for formats where a
    byte-wise test is not meaningful (FP16, 10-bit); RGB_565 packs channels across bytes, so
    there only exact black counts. Runs at C speed: no per-pixel Python.
    """
    if not 0 <= threshold <= 255:
        raise UsageError(f"threshold must be 0..255, not {threshold}")
    offsets = _COLOR_BYTES.get(frame.pixel_format)
    if offsets is None:
        return None
    dark = b"\x00" if frame.pixel_format == 4 else bytes(range(threshold + 1))
    step = frame.bytes_per_pixel
    pixels = memoryview(frame.pixels)
    return all(not bytes(pixels[offset::step]).translate(None, dark) for offset in offsets)


@dataclass(frozen=True)
class PngInfo:
    """The IHDR facts of a PNG image."""

    width: int
    height: int
    bit_depth: int
    color_type: int
    interlaced: bool


def parse_png_header(data: bytes | memoryview) -> PngInfo:
    """Read width, height and pixel layout from a PNG's IHDR chunk (CRC checked)."""
    if bytes(data[: len(_PNG_SIGNATURE)]) != _PNG_SIGNATURE:
        raise output_error(_PNG_COMMAND, "not a PNG image", _printable(data[:80]))
    if len(data) < PNG_HEADER_BYTES:
        raise output_error(_PNG_COMMAND, f"PNG cut short ({len(data)} bytes)")
    length, chunk_type = struct.unpack_from(">I4s", data, 8)
    if chunk_type != b"IHDR" or length != 13:
        raise output_error(_PNG_COMMAND, "PNG does not start with an IHDR chunk")
    body = bytes(data[16:29])
    (crc,) = struct.unpack_from(">I", data, 29)
    if zlib.crc32(b"IHDR" + body) != crc:
        raise output_error(_PNG_COMMAND, "PNG header checksum mismatch")
    width, height, depth, color_type, _, _, interlace = struct.unpack(">IIBBBBB", body)
    return PngInfo(width, height, depth, color_type, interlace == 1)


# PNG colour type -> (channels, indices of the colour channels); palette (3) is left out.
_PNG_CHANNELS = {0: (1, (0,)), 2: (3, (0, 1, 2)), 4: (2, (0,)), 6: (4, (0, 1, 2))}
# Samples per pixel of every colour type (palette included).
_PNG_SAMPLES = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
# Room for what a PNG carries besides its pixels (text, colour profile, chunk headers).
_PNG_SLACK = 1 << 20


def png_frame_limit(header: bytes | memoryview, max_pixels: int = MAX_SCREEN_PIXELS) -> int:
    """The most bytes a PNG starting with ``header`` (at least 33 bytes) may have.

    Its filtered rows uncompressed, plus 1/64 for zlib and chunk framing (stored deflate
    blocks add 5 bytes in 64 KiB, each IDAT chunk 12) and 1 MiB for other chunks: a PNG is
    never larger unless it is padded on purpose. Raises
    :class:`~adbwire.device.errors.ScreenTooLargeError` past ``max_pixels``.
    """
    info = parse_png_header(header)
    check_screen_size(_PNG_COMMAND, info.width, info.height, max_pixels)
    samples = _PNG_SAMPLES.get(info.color_type)
    if samples is None or info.bit_depth not in (1, 2, 4, 8, 16):
        raise output_error(
            _PNG_COMMAND, f"PNG colour type {info.color_type}, depth {info.bit_depth} is invalid"
        )
    row_bytes = 1 + (info.width * samples * info.bit_depth + 7) // 8
    passes = 7 if info.interlaced else 1  # Adam7: up to a filter byte per row of each pass
    rows = row_bytes * info.height + passes * (info.height + 1)
    return rows + rows // 64 + _PNG_SLACK


def png_is_black(data: bytes | memoryview, *, max_pixels: int = MAX_SCREEN_PIXELS) -> bool | None:
    """Whether a PNG is entirely black (colour channels all zero, alpha ignored).

    No full decode is needed: PNG filters predict a byte from its neighbours in the same
    channel, so every colour byte of the image is zero exactly when every filtered colour
    byte is zero. ``None`` for layouts this does not cover (palette, interlaced). Raises
    :class:`~adbwire.errors.DeviceCommandError` for a corrupt or truncated PNG and
    :class:`~adbwire.device.errors.ScreenTooLargeError` for more than ``max_pixels``.
    """
    info = parse_png_header(data)
    check_screen_size(_PNG_COMMAND, info.width, info.height, max_pixels)
    layout = _PNG_CHANNELS.get(info.color_type)
    if layout is None or info.interlaced or info.bit_depth not in (8, 16):
        return None
    channels, color_channels = layout
    sample_bytes = info.bit_depth // 8
    pixel_size = channels * sample_bytes
    row_size = 1 + info.width * pixel_size
    expected = row_size * info.height
    decompressor = zlib.decompressobj()
    try:
        raw = decompressor.decompress(_idat_payload(data), expected + 1)
    except zlib.error as exc:
        raise output_error(_PNG_COMMAND, f"PNG image data is corrupt ({exc})") from None
    if len(raw) != expected:
        raise output_error(_PNG_COMMAND, f"PNG image data has {len(raw)} bytes, not {expected}")
    rows = b"".join(raw[start + 1 : start + row_size] for start in range(0, expected, row_size))
    return all(
        not rows[channel * sample_bytes + part :: pixel_size].translate(None, b"\x00")
        for channel in color_channels
        for part in range(sample_bytes)
    )


def _idat_payload(data: bytes | memoryview) -> bytes:
    chunks: list[bytes | memoryview] = []
    position = len(_PNG_SIGNATURE)
    while position + 8 <= len(data):
        length, chunk_type = struct.unpack_from(">I4s", data, position)
        start, end = position + 8, position + 8 + length
        if end + 4 > len(data):
            raise output_error(_PNG_COMMAND, "PNG cut short inside a chunk")
        if chunk_type == b"IDAT":
            chunks.append(data[start:end])
        elif chunk_type == b"IEND":
            return b"".join(chunks)
        position = end + 4
    raise output_error(_PNG_COMMAND, "PNG has no IEND chunk (cut short)")


def _printable(data: bytes | memoryview) -> str:
    return bytes(data).decode("ascii", errors="replace")
