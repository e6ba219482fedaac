"""A raw frame reduced while it arrives gives the same bytes as reducing it whole, leaves
only its last chunk for after the last byte, and steps aside for frames it cannot take;
the PNG writer's output decodes to the pixels it was given."""

from __future__ import annotations

import io
import random
import struct
import time

import pytest
from PIL import Image

from adbwire.device.parsers import parse_raw_screencap
from adbwire.device.screen import Budget, capture, take_screenshot
from adbwire.device.screen.capture import frame_image
from adbwire.device.screen.encode import fit
from adbwire.device.screen.path_choice import CapturePaths
from adbwire.device.screen.png import PngWriter, encode_png
from adbwire.device.screen.read_frame import collect
from adbwire.device.screen.scaling import Prepared, Reductions, whole_factor
from adbwire.device.screen.stream_reduce import MAX_STRIPE_ROWS, StreamReduction
from adbwire.errors import UsageError
from tests.device.ui_sim import simulated

# Odd sizes, and tall enough that the thumbnail is a reduction of the half (by 3 here):
# every stripe boundary must fall on a block boundary of every reduction.
WIDTH, HEIGHT = 403, 1287


def raw_output(
    width: int = WIDTH, height: int = HEIGHT, pixel_format: int = 1, header: int = 16
) -> bytes:
    """A raw frame of noise (where a stripe off by a row shows) with a flat band in it."""
    generator = random.Random(width * height + pixel_format)
    pixels = bytearray(generator.randbytes(width * height * 4))
    band = width * 4 * (height // 3)
    pixels[band : band + width * 4 * 50] = bytes([200, 40, 90, 255]) * width * 50
    words = (width, height, pixel_format, 1)[: header // 4]
    return struct.pack(f"<{len(words)}I", *words) + bytes(pixels)


def arrive(output: bytes, chunk: int, early: StreamReduction) -> memoryview:
    """``output`` into one buffer in chunks of ``chunk`` bytes, watched by ``early``."""
    chunks = [output[start : start + chunk] for start in range(0, len(output), chunk)]
    buffer = collect(chunks, "screencap", 12, lambda _header: len(output), watch=early.arrived)
    return buffer.view()


def streamed(output: bytes, chunk: int, factor: int | None) -> tuple[Reductions, Prepared | None]:
    early = StreamReduction(None if factor is None else lambda _w, _h: factor)
    frame = parse_raw_screencap(arrive(output, chunk, early))
    image = frame_image(frame)
    assert image is not None
    return Reductions(image), early.result(frame)


@pytest.mark.parametrize("chunk", [1000, 64 * 1024, 1 << 20, 1 << 30])
@pytest.mark.parametrize("factor", [2, 3, 4, None])
def test_reduced_as_it_arrives_equals_reduced_whole(chunk: int, factor: int | None) -> None:
    whole, prepared = streamed(raw_output(), chunk, factor)
    assert prepared is not None
    assert prepared.thumbnail.tobytes() == whole.thumbnail().tobytes()
    if factor is None:
        assert prepared.png is None
        return
    expected = whole.reduced(factor).convert("RGB")
    assert prepared.png is not None and prepared.size == expected.size
    decoded = Image.open(io.BytesIO(prepared.png))
    assert decoded.format == "PNG" and decoded.convert("RGB").tobytes() == expected.tobytes()


def test_only_the_last_chunk_is_left_for_after_the_last_byte() -> None:
    output = raw_output()
    chunk = 256 * 1024
    early = StreamReduction(lambda _w, _h: 2)
    arrive(output, chunk, early)
    rows_before_last_chunk = (len(output) - chunk - 16) // (WIDTH * 4)
    assert early.rows_done >= rows_before_last_chunk - 12  # a stripe is whole blocks
    assert early.rows_done < HEIGHT  # the rest waits for result()


@pytest.mark.parametrize(
    ("what", "output"),
    [
        ("12-byte header (before Android 8)", raw_output(header=12)),
        ("BGRA_8888", raw_output(pixel_format=5)),
        ("RGB_565", raw_output(pixel_format=4)[: 16 + WIDTH * HEIGHT * 2]),
    ],
)
def test_frames_it_cannot_take_are_left_to_be_reduced_whole(what: str, output: bytes) -> None:
    early = StreamReduction(lambda _w, _h: 2)
    frame = parse_raw_screencap(arrive(output, 64 * 1024, early))
    assert early.result(frame) is None, what


def test_the_screenshot_returns_the_png_made_while_the_frame_arrived() -> None:
    with simulated("note_editor") as sim:
        frame = capture(sim.client, "raw", png_factor=lambda _w, _h: 2)
        ready = frame.reductions.ready_png(1280)
        assert ready is not None
        size, png = ready
        assert fit(frame.reductions, Budget()).data is png
        assert size == (540, 1200)
        shot = take_screenshot(sim.client)
        assert shot.image is not None and shot.image.data == png
        decoded = Image.open(io.BytesIO(png)).convert("RGB")
        assert decoded.tobytes() == Reductions(frame.image).half.convert("RGB").tobytes()


def test_a_ready_png_over_the_budget_gives_way_to_jpeg_without_a_second_png() -> None:
    whole, prepared = streamed(raw_output(), 1 << 20, 2)
    assert prepared is not None and prepared.png is not None
    reductions = Reductions(whole.image, prepared)
    budget = Budget(max_edge=whole_factor_edge(), max_bytes=len(prepared.png) - 1)
    encoded = fit(reductions, budget)
    assert encoded.format == "jpeg" and len(encoded.data) < len(prepared.png)


def whole_factor_edge() -> int:
    """A budget edge that halves the test frame."""
    edge = HEIGHT // 2 + 1
    assert whole_factor((WIDTH, HEIGHT), edge) == 2
    return edge


@pytest.mark.parametrize("mode", ["RGB", "RGBX", "RGBA", "L"])
def test_png_writer_round_trips_pixels(mode: str) -> None:
    generator = random.Random(3)
    rgb = Image.frombytes("RGB", (37, 23), generator.randbytes(37 * 23 * 3))
    image = rgb.convert(mode)
    decoded = Image.open(io.BytesIO(encode_png(image)))
    assert decoded.mode == "RGB" and decoded.tobytes() == image.convert("RGB").tobytes()


def test_png_writer_takes_stripes_and_counts_rows() -> None:
    image = Image.linear_gradient("L").convert("RGB").resize((64, 40))
    writer = PngWriter(64, 40)
    writer.add(image.crop((0, 0, 64, 15)))
    with pytest.raises(UsageError, match="rows were added"):
        writer.finish()
    writer.add(image.crop((0, 15, 64, 40)))
    with pytest.raises(UsageError, match="more than"):
        writer.add(image.crop((0, 0, 64, 1)))
    assert writer.finish() == encode_png(image)
    with pytest.raises(UsageError, match="wide"):
        PngWriter(10, 10).add(image)


def test_the_path_choice_is_not_charged_for_the_png_made_on_the_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The PNG path encodes after its capture, so the raw path's cost leaves its PNG out."""
    add = PngWriter.add

    def slow_add(writer: PngWriter, stripe: Image.Image) -> None:
        time.sleep(0.02)  # an encoder this slow would decide the comparison alone
        add(writer, stripe)

    monkeypatch.setattr(PngWriter, "add", slow_add)
    paths = CapturePaths()
    recorded: list[float] = []
    monkeypatch.setattr(paths, "record", lambda _path, seconds, *_rest: recorded.append(seconds))
    with simulated("notes_list") as sim:
        started = time.monotonic()
        capture(sim.client, "raw", paths=paths, png_factor=lambda _w, _h: 2)
        took = time.monotonic() - started
    stripes = 1200 // (MAX_STRIPE_ROWS // 2)  # at least this many calls to add
    (seconds,) = recorded
    assert seconds <= took - 0.02 * stripes
