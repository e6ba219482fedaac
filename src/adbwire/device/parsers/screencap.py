"""Raw ``screencap`` frames and ``screencap -p`` PNG headers, and all-black detection.

Raw output (``screencap`` with no ``-p``) is a little-endian header then rows of pixels:
width, height and pixel format as u32 each, and since Android 8.0 (API 26) a fourth u32 with
the colour space (0 unknown, 1 sRGB, 2 Display P3): 16 bytes instead of 12.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

from adbwire.device.parsers._text import output_error
from adbwire.errors import UsageError

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
    pixels: bytes


def parse_raw_screencap(data: bytes, sdk: int | None = None) -> RawFrame:
    """Parse raw ``screencap`` output.

    The header size is taken from ``sdk`` when given, otherwise from which of 12 or 16 header
    bytes makes the length match the pixel data exactly. Raises
    :class:`~adbwire.errors.DeviceCommandError` for an unknown pixel format or output whose
    length does not fit the header (cut short, or an error message instead of a frame).
    """
    if len(data) < 12:
        raise output_error(_RAW_COMMAND, f"only {len(data)} bytes, not a frame", _printable(data))
    width, height, pixel_format = struct.unpack_from("<III", data)
    if pixel_format not in PIXEL_FORMATS:
        raise output_error(
            _RAW_COMMAND, f"unknown pixel format {pixel_format:#x}", _printable(data[:80])
        )
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
        pixels=bytes(data[header_size:]),
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
    return all(not frame.pixels[offset::step].translate(None, dark) for offset in offsets)


@dataclass(frozen=True)
class PngInfo:
    """The IHDR facts of a PNG image."""

    width: int
    height: int
    bit_depth: int
    color_type: int
    interlaced: bool


def parse_png_header(data: bytes) -> PngInfo:
    """Read width, height and pixel layout from a PNG's IHDR chunk (CRC checked)."""
    if not data.startswith(_PNG_SIGNATURE):
        raise output_error(_PNG_COMMAND, "not a PNG image", _printable(data[:80]))
    if len(data) < 33:
        raise output_error(_PNG_COMMAND, f"PNG cut short ({len(data)} bytes)")
    length, chunk_type = struct.unpack_from(">I4s", data, 8)
    if chunk_type != b"IHDR" or length != 13:
        raise output_error(_PNG_COMMAND, "PNG does not start with an IHDR chunk")
    body = data[16:29]
    (crc,) = struct.unpack_from(">I", data, 29)
    if zlib.crc32(b"IHDR" + body) != crc:
        raise output_error(_PNG_COMMAND, "PNG header checksum mismatch")
    width, height, depth, color_type, _, _, interlace = struct.unpack(">IIBBBBB", body)
    return PngInfo(width, height, depth, color_type, interlace == 1)


# PNG colour type -> (channels, indices of the colour channels); palette (3) is left out.
_PNG_CHANNELS = {0: (1, (0,)), 2: (3, (0, 1, 2)), 4: (2, (0,)), 6: (4, (0, 1, 2))}


def png_is_black(data: bytes) -> bool | None:
    """Whether a PNG is entirely black (colour channels all zero, alpha ignored).

    No full decode is needed: PNG filters predict a byte from its neighbours in the same
    channel, so every colour byte of the image is zero exactly when every filtered colour
    byte is zero. ``None`` for layouts this does not cover (palette, interlaced). Raises
    :class:`~adbwire.errors.DeviceCommandError` for a corrupt or truncated PNG.
    """
    info = parse_png_header(data)
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


def _idat_payload(data: bytes) -> bytes:
    chunks: list[bytes] = []
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


def _printable(data: bytes) -> str:
    return data.decode("ascii", errors="replace")
