"""Fuzz the screenshot decoders: raw frame headers, PNG headers and the all-black check.

Every input is small; the pixel cap is kept low so that no input can make the decoders
allocate more than a few megabytes."""

from __future__ import annotations

import contextlib
import struct
import zlib

from hypothesis import given
from hypothesis import strategies as st

from adbwire.device.errors import ScreenTooLargeError
from adbwire.device.parsers.screencap import (
    PIXEL_FORMATS,
    parse_png_header,
    parse_raw_screencap,
    png_frame_limit,
    png_is_black,
    raw_frame_is_black,
    raw_frame_limit,
)
from adbwire.errors import DeviceCommandError
from adbwire.testing.hostile import bomb_png
from tests.device_outputs import device_output_bytes
from tests.fuzz.strategies import FUZZ, mutated, small_bytes

CAP = 64 * 64
"""Pixels: raw frames and PNGs larger than this are refused before anything is decoded."""
DIMENSION = st.integers(0, 80) | st.integers(0, 0xFFFFFFFF)


@st.composite
def raw_frames(draw: st.DrawFn) -> bytes:
    width, height = draw(DIMENSION), draw(DIMENSION)
    pixel_format = draw(st.sampled_from(sorted(PIXEL_FORMATS)) | st.integers(0, 0xFFFFFFFF))
    header = struct.pack("<III", width, height, pixel_format)
    if draw(st.booleans()):
        header += struct.pack("<I", draw(st.integers(0, 3) | st.integers(0, 0xFFFFFFFF)))
    bytes_per_pixel = PIXEL_FORMATS.get(pixel_format, ("", 4))[1]
    honest = width * height * bytes_per_pixel if width * height <= CAP else 0
    body_size = draw(st.just(honest) | st.integers(0, 2048))
    return header + bytes([draw(st.integers(0, 255))]) * body_size


@FUZZ
@given(raw_frames() | small_bytes(), st.none() | st.integers(10, 35))
def test_raw_frames_parse_within_the_cap_or_raise_device_command_error(
    data: bytes, sdk: int | None
) -> None:
    try:
        frame = parse_raw_screencap(data, sdk, max_pixels=CAP)
    except ScreenTooLargeError as error:
        assert isinstance(error, DeviceCommandError)
        return
    except DeviceCommandError:
        return
    assert frame.width * frame.height <= CAP
    assert len(frame.pixels) == frame.width * frame.height * frame.bytes_per_pixel
    assert len(frame.pixels) < len(data)
    raw_frame_is_black(frame)


@FUZZ
@given(raw_frames())
def test_raw_frame_limit_bounds_what_is_read(data: bytes) -> None:
    try:
        limit = raw_frame_limit(data[:16], CAP)
    except DeviceCommandError:
        return
    assert limit <= 16 + CAP * max(size for _name, size in PIXEL_FORMATS.values())


def _png(width: int, height: int, color_type: int, depth: int, idat: bytes) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
    )


PNG_SEEDS = [
    device_output_bytes("screencap_png/emulator_1080x2424_quietlog.png"),
    bomb_png(100, 100),
    _png(8, 8, 2, 8, zlib.compress(bytes(8 * 25))),
    _png(4, 4, 6, 8, zlib.compress(b"\x00" + bytes(range(16)) * 4 + b"\x00" * 3 * 17)),
    _png(3, 2, 0, 16, zlib.compress(b"\x00" + b"\x01" * 6 + b"\x00" + b"\x00" * 6)),
]


@FUZZ
@given(
    mutated(PNG_SEEDS, max_edits=4)
    | st.builds(
        _png,
        DIMENSION,
        DIMENSION,
        st.sampled_from([0, 2, 3, 4, 6]) | st.integers(0, 255),
        st.sampled_from([1, 2, 4, 8, 16]) | st.integers(0, 255),
        st.binary(max_size=512).map(zlib.compress) | st.binary(max_size=512),
    )
)
def test_png_checks_refuse_bombs_and_garbage_with_device_command_error(data: bytes) -> None:
    try:
        info = parse_png_header(data)
    except DeviceCommandError:
        return
    try:
        limit = png_frame_limit(data, CAP)
    except DeviceCommandError:
        pass
    else:
        assert info.width * info.height <= CAP
        assert limit < 2 * 1024 * 1024
    with contextlib.suppress(DeviceCommandError):
        png_is_black(data, max_pixels=CAP)


def test_the_bomb_is_refused_at_its_header() -> None:
    try:
        png_frame_limit(_png(13000, 13000, 0, 8, b"")[:33])
    except ScreenTooLargeError:
        return
    raise AssertionError("a 13000x13000 PNG was accepted")
