"""Screenshots from the simulated device: raw frames first, PNG as fallback, secure windows
reported, budgets kept, crops mapped back to device pixels, changes noticed."""

from __future__ import annotations

import io
import struct
import time
from typing import Any

import pytest
from PIL import Image

from adbwire.device.parsers import Bounds, RawFrame
from adbwire.device.screen import Budget, ScreenHistory, capture, take_screenshot
from adbwire.device.screen.capture import frame_image
from adbwire.device.screen.history import Mapping
from adbwire.device.ui import read_ui
from adbwire.errors import UsageError
from adbwire.testing.userland.shell.interp import CommandFn, Invocation
from tests.device.ui_sim import simulated


def test_raw_frames_are_preferred_and_match_the_png() -> None:
    with simulated("notes_list") as sim:
        raw = capture(sim.client)
        assert raw.source == "raw" and (raw.width, raw.height) == (1080, 2400)
        assert sim.userland.commands_named("screencap") == [["screencap"]]
        png = capture(sim.client, "png")
        assert png.source == "png" and png.fingerprint == raw.fingerprint
        assert not raw.black


def test_an_unreadable_raw_frame_falls_back_to_png() -> None:
    def garbage_raw(inv: Invocation, command: CommandFn) -> int:
        if "-p" not in inv.args:
            inv.out(b"not a frame at all")
            return 0
        return command(inv)

    with simulated("notes_list") as sim:
        sim.userland.hooks["screencap"] = garbage_raw
        frame = capture(sim.client)
        assert frame.source == "png" and frame.width == 1080
        assert sim.userland.commands_named("screencap") == [["screencap"], ["screencap", "-p"]]


def test_devices_without_exec_are_captured_over_shell_v2() -> None:
    with simulated("notes_list") as sim:
        expected = capture(sim.client).fingerprint
        sim.device.faults.refuse_services = ("exec:",)
        assert capture(sim.client).fingerprint == expected


def red_frame(pixel_format: int, pixel: bytes, size: int = 2) -> RawFrame:
    return RawFrame(size, size, pixel_format, "x", len(pixel), "sRGB", 16, pixel * size * size)


@pytest.mark.parametrize(
    ("pixel_format", "pixel"),
    [
        (1, bytes([255, 0, 0, 255])),  # RGBA_8888
        (2, bytes([255, 0, 0, 0])),  # RGBX_8888
        (3, bytes([255, 0, 0])),  # RGB_888
        (4, struct.pack("<H", 0xF800)),  # RGB_565, little-endian
        (5, bytes([0, 0, 255, 255])),  # BGRA_8888
    ],
)
def test_raw_pixel_formats_decode_to_the_same_colour(pixel_format: int, pixel: bytes) -> None:
    image = frame_image(red_frame(pixel_format, pixel))
    assert image is not None
    assert image.convert("RGB").getpixel((1, 1)) == (255, 0, 0)


def test_formats_pillow_cannot_read_raw_are_left_to_png() -> None:
    assert frame_image(red_frame(0x16, bytes(8))) is None  # RGBA_FP16


def test_a_secure_window_is_reported_not_returned() -> None:
    with simulated("vault") as sim:
        shot = take_screenshot(sim.client)
        assert shot.black and shot.image is None and shot.mapping is None
        assert shot.note is not None and "FLAG_SECURE" in shot.note
        assert (shot.device_width, shot.device_height) == (1080, 2400)
        assert capture(sim.client, "png").black  # the PNG path says so too


@pytest.mark.parametrize(
    "budget",
    [
        Budget(),
        Budget(max_edge=300),
        Budget(max_edge=2000, max_bytes=20_000),
        Budget(format="jpeg", max_bytes=15_000),
        Budget(format="webp", max_edge=640),
    ],
)
def test_budgets_are_kept(budget: Budget) -> None:
    with simulated("note_editor") as sim:  # drawn with the keyboard up: plenty of detail
        shot = take_screenshot(sim.client, budget=budget)
        image = shot.image
        assert image is not None
        assert len(image.data) <= budget.max_bytes
        assert max(image.width, image.height) <= budget.max_edge
        decoded = Image.open(io.BytesIO(image.data))
        assert decoded.size == (image.width, image.height)
        assert decoded.format == {"png": "PNG", "jpeg": "JPEG", "webp": "WEBP"}[image.format]
        if budget.format != "auto":
            assert image.format == budget.format
        assert shot.mapping is not None
        assert shot.mapping.scale == pytest.approx(image.width / 1080)


def test_the_default_budget_shrinks_to_1280_and_keeps_the_aspect() -> None:
    with simulated("notes_list") as sim:
        image = take_screenshot(sim.client).image
        assert image is not None and (image.width, image.height) == (540, 1200)  # halved


def test_crop_to_a_region_and_map_points_back() -> None:
    with simulated("notes_list") as sim:
        row = read_ui(sim.client).hierarchy.elements[14].bounds  # the second note row
        history = ScreenHistory()
        shot = take_screenshot(sim.client, region=row, budget=Budget(max_edge=500), history=history)
        assert shot.image is not None and shot.region == row
        assert shot.image.width == 500
        mapping = history.mapping(sim.client.serial)
        assert mapping == shot.mapping and mapping is not None
        assert mapping.to_device(0, 0) == (row.left, row.top)
        centre = mapping.to_device(shot.image.width / 2, shot.image.height / 2)
        assert row.contains(*centre)
        with pytest.raises(UsageError, match="outside the last screenshot"):
            mapping.to_device(501, 0)


def test_crop_off_screen_is_refused() -> None:
    with simulated("notes_list") as sim, pytest.raises(UsageError, match="not on the"):
        take_screenshot(sim.client, region=Bounds(2000, 3000, 2100, 3100))


def test_changed_since_the_previous_screenshot_of_that_device() -> None:
    with simulated("notes_list") as sim:
        history = ScreenHistory()
        assert take_screenshot(sim.client, history=history).changed is None
        assert take_screenshot(sim.client, history=history, budget=Budget(300)).changed is False
        sim.show("settings")
        assert take_screenshot(sim.client, history=history).changed is True


def test_mapping_scales_and_offsets() -> None:
    mapping = Mapping(0.5, 100, 200, 540, 1200, 1080, 2400)
    assert mapping.to_device(10, 20) == (120, 240)
    assert mapping.to_device(540, 1200) == (1079, 2399)  # clamped to the screen


def test_a_fallback_path_gets_only_what_is_left_of_the_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def slow_garbage_raw(inv: Invocation, command: CommandFn) -> int:
        if "-p" not in inv.args:
            time.sleep(0.5)  # the device takes its time, then says nothing useful
            inv.out(b"not a frame at all")
            return 0
        return command(inv)

    with simulated("notes_list") as sim:
        sim.userland.hooks["screencap"] = slow_garbage_raw
        timeouts: list[float | None] = []
        open_stream = sim.client.open_stream

        def spy(service: str, **kwargs: Any) -> Any:
            timeouts.append(kwargs.get("timeout"))
            return open_stream(service, **kwargs)

        monkeypatch.setattr(sim.client, "open_stream", spy)
        assert capture(sim.client, timeout=20.0).source == "png"
    first, second = timeouts
    assert first is not None and second is not None
    assert second <= first - 0.5  # one deadline for both paths, not 20 s each
