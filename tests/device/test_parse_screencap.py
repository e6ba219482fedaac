"""Raw screencap frames, PNG headers and black-frame detection."""

from __future__ import annotations

import struct
import zlib

import pytest

from adbwire.device.parsers.screencap import (
    parse_png_header,
    parse_raw_screencap,
    png_is_black,
    raw_frame_is_black,
)
from adbwire.errors import DeviceCommandError, UsageError
from tests.device_outputs import device_output_bytes


def raw_frame(width: int, height: int, fmt: int, pixel: bytes, colorspace: int | None = 1) -> bytes:
    header = struct.pack("<III", width, height, fmt)
    if colorspace is not None:
        header += struct.pack("<I", colorspace)
    return header + pixel * (width * height)


def test_real_screencap_png_is_a_black_1080x2424_frame() -> None:
    data = device_output_bytes("screencap_png/emulator_1080x2424_quietlog.png")
    info = parse_png_header(data)
    assert (info.width, info.height, info.bit_depth, info.color_type) == (1080, 2424, 8, 6)
    assert info.interlaced is False
    assert png_is_black(data) is True  # the screen behind the ANR dialog dump: all black


def test_raw_frame_with_colorspace_header() -> None:
    frame = parse_raw_screencap(raw_frame(4, 3, 1, b"\x00\x00\x00\xff"))
    assert (frame.width, frame.height, frame.format_name, frame.bytes_per_pixel) == (
        4,
        3,
        "RGBA_8888",
        4,
    )
    assert (frame.header_size, frame.colorspace) == (16, "sRGB")
    assert len(frame.pixels) == 4 * 3 * 4
    assert raw_frame_is_black(frame) is True


def test_raw_frame_of_old_devices_has_a_12_byte_header() -> None:
    frame = parse_raw_screencap(raw_frame(2, 2, 2, b"\x10\x20\x30\x00", colorspace=None))
    assert (frame.header_size, frame.colorspace, frame.format_name) == (12, None, "RGBX_8888")
    assert raw_frame_is_black(frame) is False
    assert raw_frame_is_black(frame, threshold=0x30) is True


def test_sdk_decides_the_header_when_given() -> None:
    data = raw_frame(2, 2, 1, b"\x00\x00\x00\xff")
    assert parse_raw_screencap(data, sdk=30).header_size == 16
    with pytest.raises(DeviceCommandError, match="cut short or not a raw frame"):
        parse_raw_screencap(data, sdk=23)  # a 12-byte header would leave 4 bytes too many


def test_one_lit_pixel_is_not_black() -> None:
    pixels = b"\x00\x00\x00\xff" * 8 + b"\x00\x00\x07\xff"
    frame = parse_raw_screencap(struct.pack("<IIII", 3, 3, 1, 2) + pixels)
    assert frame.colorspace == "Display P3"
    assert raw_frame_is_black(frame) is False
    assert raw_frame_is_black(frame, threshold=7) is True


def test_rgb565_and_unsupported_formats() -> None:
    assert raw_frame_is_black(parse_raw_screencap(raw_frame(2, 2, 4, b"\x00\x00"))) is True
    lit565 = parse_raw_screencap(raw_frame(2, 2, 4, b"\x01\x00"))
    assert raw_frame_is_black(lit565) is False
    assert raw_frame_is_black(lit565, threshold=8) is False  # 565: only exact black
    fp16 = parse_raw_screencap(raw_frame(1, 1, 0x16, bytes(8)))
    assert fp16.format_name == "RGBA_FP16"
    assert raw_frame_is_black(fp16) is None
    with pytest.raises(UsageError):
        raw_frame_is_black(fp16, threshold=256)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "not a frame"),
        (b"Capturing failed.\n", "unknown pixel format"),
        (raw_frame(10, 10, 1, b"\x00\x00\x00\xff")[:-7], "cut short"),
    ],
)
def test_raw_errors(data: bytes, message: str) -> None:
    with pytest.raises(DeviceCommandError, match=message):
        parse_raw_screencap(data)


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png(
    rows: list[bytes], width: int, color_type: int = 6, depth: int = 8, interlace: int = 0
) -> bytes:
    """A PNG whose rows are already filtered (each starts with its filter byte)."""
    ihdr = struct.pack(">IIBBBBB", width, len(rows), depth, color_type, 0, 0, interlace)
    data = zlib.compress(b"".join(rows))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", data[:5])
        + chunk(b"IDAT", data[5:])
        + chunk(b"IEND", b"")
    )


def sub_filtered(pixels: bytes, pixel_size: int) -> bytes:
    return b"\x01" + bytes(
        (pixels[i] - (pixels[i - pixel_size] if i >= pixel_size else 0)) % 256
        for i in range(len(pixels))
    )


def test_png_black_whatever_the_row_filters() -> None:
    black_row = b"\x00\x00\x00\xff" * 3
    image = png([b"\x00" + black_row, sub_filtered(black_row, 4), b"\x02" + bytes(12)], width=3)
    assert parse_png_header(image).height == 3
    assert png_is_black(image) is True


def test_png_with_one_grey_pixel_is_not_black() -> None:
    lit_row = b"\x00\x00\x00\xff" * 2 + b"\x05\x05\x05\xff"
    image = png([b"\x00" + b"\x00\x00\x00\xff" * 3, sub_filtered(lit_row, 4)], width=3)
    assert png_is_black(image) is False
    rgb = png([b"\x00" + b"\x00\x00\x00" + b"\x00\x00\x01"], width=2, color_type=2)
    assert png_is_black(rgb) is False
    grey16 = png([b"\x00" + b"\x00\x00\x00\x00"], width=2, color_type=0, depth=16)
    assert png_is_black(grey16) is True


def test_png_layouts_not_covered() -> None:
    assert png_is_black(png([b"\x00\x00"], width=1, color_type=3)) is None  # palette
    assert png_is_black(png([b"\x00" + bytes(4)], width=1, interlace=1)) is None


def test_png_errors() -> None:
    good = png([b"\x00" + b"\x00\x00\x00\xff"], width=1)
    with pytest.raises(DeviceCommandError, match="not a PNG"):
        parse_png_header(b"Capturing failed.\n")
    with pytest.raises(DeviceCommandError, match="cut short"):
        parse_png_header(good[:20])
    corrupt = bytearray(good)
    corrupt[20] ^= 0xFF  # inside IHDR: the checksum no longer matches
    with pytest.raises(DeviceCommandError, match="checksum"):
        parse_png_header(bytes(corrupt))
    with pytest.raises(DeviceCommandError, match="cut short"):
        png_is_black(good[:-14])
    short_data = png([b"\x00" + b"\x00\x00\x00\xff"], width=2)  # one pixel short per row
    with pytest.raises(DeviceCommandError, match="not 9"):
        png_is_black(short_data)
