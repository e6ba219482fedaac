"""A frame's size is checked from its header before anything is decoded or allocated
(issue #14 item 4): the PNG bomb, raw headers that claim huge screens or more bytes than
were sent, and the byte limit a header sets for the read."""

from __future__ import annotations

import io
import itertools
import struct
import tracemalloc
import zlib
from collections.abc import Callable, Iterator

import pytest
from PIL import Image

from adbwire.device.errors import ScreenTooLargeError
from adbwire.device.parsers.screencap import (
    MAX_SCREEN_PIXELS,
    PNG_HEADER_BYTES,
    RAW_HEADER_BYTES,
    parse_raw_screencap,
    png_frame_limit,
    png_is_black,
    raw_frame_limit,
)
from adbwire.device.screen.capture import decode_png
from adbwire.device.screen.read_frame import collect
from adbwire.errors import DeviceCommandError, OutputTooLargeError
from adbwire.testing.hostile import bomb_png

SMALL_PEAK = 8 << 20  # what checking a header may allocate, at most


def peak_of(action: Callable[[], object]) -> int:
    """The peak of Python allocations while `action` runs (it is expected to raise)."""
    tracemalloc.start()
    try:
        with pytest.raises(DeviceCommandError):
            action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def raw_header(width: int, height: int, pixel_format: int = 1) -> bytes:
    return struct.pack("<IIII", width, height, pixel_format, 1)


def small_png(width: int, height: int, color_type: int = 6, depth: int = 8) -> bytes:
    image = Image.new("RGBA" if color_type == 6 else "RGB", (width, height))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def test_the_png_bomb_is_refused_from_its_header_with_little_memory() -> None:
    bomb = bomb_png(13000, 13000)
    assert len(bomb) < 200_000
    with pytest.raises(ScreenTooLargeError, match="13000x13000") as refused:
        png_frame_limit(bomb[:PNG_HEADER_BYTES])
    assert (refused.value.width, refused.value.height) == (13000, 13000)
    assert refused.value.max_pixels == MAX_SCREEN_PIXELS
    assert peak_of(lambda: png_is_black(bomb)) < SMALL_PEAK  # it inflates to 169 MB
    assert peak_of(lambda: decode_png(bomb)) < SMALL_PEAK


def test_pillow_never_sees_a_refused_image(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pillow(*args: object, **kwargs: object) -> Image.Image:
        raise AssertionError("Pillow was asked to open a refused image")

    monkeypatch.setattr(Image, "open", no_pillow)
    with pytest.raises(ScreenTooLargeError):
        decode_png(bomb_png(13000, 13000))
    buffer = io.BytesIO()  # a BMP header may claim any size; Pillow would sniff and open it
    Image.new("RGB", (2, 2)).save(buffer, "BMP")
    with pytest.raises(DeviceCommandError, match="not a PNG image"):
        decode_png(buffer.getvalue())


def test_a_raw_header_claiming_a_huge_screen_is_refused_before_the_length_check() -> None:
    header = raw_header(13000, 13000)
    with pytest.raises(ScreenTooLargeError, match="169,000,000 pixels"):
        raw_frame_limit(header)
    with pytest.raises(ScreenTooLargeError):
        parse_raw_screencap(header + bytes(64))
    assert peak_of(lambda: parse_raw_screencap(raw_header(65535, 65535, 0x16))) < SMALL_PEAK


def test_a_raw_header_promising_more_than_was_sent_allocates_nothing() -> None:
    data = raw_header(4096, 4096) + bytes(100)  # within the cap, 64 MiB promised, 100 sent
    assert peak_of(lambda: parse_raw_screencap(data)) < SMALL_PEAK


@pytest.mark.parametrize(
    ("width", "height", "allowed"),
    [(4096, 4096, True), (4097, 4096, False), (3840, 2160, True), (7680, 4320, False)],
)
def test_the_pixel_cap_boundary(width: int, height: int, allowed: bool) -> None:
    header = raw_header(width, height)
    if allowed:
        assert raw_frame_limit(header) == 16 + width * height * 4
    else:
        with pytest.raises(ScreenTooLargeError):
            raw_frame_limit(header)


def test_the_cap_can_be_lowered_per_call() -> None:
    assert raw_frame_limit(raw_header(100, 100), max_pixels=10_000) == 16 + 40_000
    with pytest.raises(ScreenTooLargeError, match="10,000-pixel cap"):
        raw_frame_limit(raw_header(100, 101), max_pixels=10_000)
    with pytest.raises(ScreenTooLargeError):
        png_is_black(small_png(100, 101), max_pixels=10_000)


@pytest.mark.parametrize("header", [raw_header(0, 2400), raw_header(1080, 0)])
def test_a_frame_without_pixels_is_not_a_frame(header: bytes) -> None:
    with pytest.raises(DeviceCommandError, match="no pixels") as raised:
        raw_frame_limit(header)
    assert not isinstance(raised.value, ScreenTooLargeError)


def test_a_png_limit_covers_a_real_png_of_that_size() -> None:
    for color_type in (2, 6):
        png = small_png(1080, 2400, color_type)
        assert len(png) <= png_frame_limit(png[:PNG_HEADER_BYTES])
    noise = Image.frombytes("RGB", (300, 200), bytes(range(256)) * 703 + bytes(32))
    buffer = io.BytesIO()
    noise.save(buffer, "PNG", compress_level=0)  # stored deflate: the largest a PNG gets
    data = buffer.getvalue()
    assert len(data) <= png_frame_limit(data[:PNG_HEADER_BYTES])
    uncompressed = 200 * (1 + 300 * 3)
    assert png_frame_limit(data[:PNG_HEADER_BYTES]) < uncompressed * 1.02 + (1 << 20) + 2000


def chunks_counted(sizes: Iterator[int], taken: list[int]) -> Iterator[bytes]:
    for size in sizes:
        taken.append(size)
        yield bytes(size)


def endless(size: int) -> Iterator[int]:
    while True:
        yield size


def test_collect_stops_one_chunk_past_the_limit_the_header_sets() -> None:
    taken: list[int] = []
    header = raw_header(100, 100)
    chunks = itertools.chain([header], chunks_counted(endless(4096), taken))

    def limit_of(first: bytes) -> int:
        assert first == header[:RAW_HEADER_BYTES]
        return raw_frame_limit(first)

    with pytest.raises(OutputTooLargeError, match="40016 bytes") as raised:
        collect(chunks, "screencap", RAW_HEADER_BYTES, limit_of)
    assert raised.value.limit == 16 + 100 * 100 * 4
    assert sum(taken) <= raised.value.limit + 4096


def test_collect_checks_the_header_before_keeping_more() -> None:
    chunks = iter([raw_header(13000, 13000)[:5], raw_header(13000, 13000)[5:], bytes(1 << 20)])
    with pytest.raises(ScreenTooLargeError):
        collect(chunks, "screencap", RAW_HEADER_BYTES, raw_frame_limit)
    assert next(chunks, None) is not None, "the body after the header was never read"


def test_collect_returns_a_frame_that_fits_exactly() -> None:
    frame = raw_header(10, 10) + bytes(400)
    parts = [frame[:7], frame[7:300], frame[300:]]
    gathered = collect(iter(parts), "screencap", RAW_HEADER_BYTES, raw_frame_limit)
    assert gathered.view() == frame and gathered.length == len(frame)
    png = small_png(3, 3)
    view = collect(iter([png]), "x", PNG_HEADER_BYTES, png_frame_limit).view()
    assert zlib.crc32(view) == zlib.crc32(png) and view.readonly
