"""Screenshots from a hostile device (issue #14 item 4): a PNG bomb, raw headers claiming
huge screens, and more bytes than a frame's header allows are refused quickly on every
capture path, and the device stays usable (memory: test_screen_memory.py)."""

from __future__ import annotations

import time

import pytest

from adbwire.device.errors import ScreenTooLargeError
from adbwire.device.screen import capture, take_screenshot
from adbwire.errors import OutputTooLargeError
from adbwire.testing.hostile import hostile_userland, huge_raw_screencap, png_bomb_screencap
from tests.device.screen_memory_probe import OVERLONG_BODY, raw_fails
from tests.simulator.hostile_helpers import hostile_device

QUICK = 20.0  # seconds; a refused frame takes well under one on an idle machine


def test_the_png_bomb_is_refused_on_both_capture_paths() -> None:
    userland = hostile_userland(raw_fails(), png_bomb_screencap())
    with hostile_device(userland_factory=userland) as (device, client):
        for source in ("auto", "png"):
            started = time.monotonic()
            with pytest.raises(ScreenTooLargeError, match="13000x13000"):
                capture(client, source)
            assert time.monotonic() - started < QUICK
        device.faults.refuse_services = ("exec:",)  # over shell v2 instead
        with pytest.raises(ScreenTooLargeError):
            capture(client, "png")
        assert client.shell("echo still here").stdout == b"still here\n"


def test_a_huge_raw_header_is_refused_without_falling_back_to_png() -> None:
    userland = hostile_userland(huge_raw_screencap(13000, 13000))
    with hostile_device(userland_factory=userland) as (_device, client):
        with pytest.raises(ScreenTooLargeError, match="13000x13000") as refused:
            take_screenshot(client)
        assert "screencap:" in str(refused.value)  # the raw frame's own header said so
        assert client.shell("echo still here").stdout == b"still here\n"


def test_more_bytes_than_the_raw_header_allows_end_the_read() -> None:
    userland = hostile_userland(huge_raw_screencap(1080, 2400, body_bytes=OVERLONG_BODY))
    with hostile_device(userland_factory=userland) as (device, client):
        with pytest.raises(OutputTooLargeError) as stopped:
            capture(client, "raw")
        assert stopped.value.limit == 16 + 1080 * 2400 * 4
        device.faults.refuse_services = ("exec:",)
        with pytest.raises(OutputTooLargeError):
            capture(client, "raw")
        assert client.shell("echo still here").stdout == b"still here\n"


def test_a_raw_header_promising_more_than_it_sends_falls_back_to_png() -> None:
    userland = hostile_userland(huge_raw_screencap(4096, 4096, body_bytes=1000))
    with hostile_device(userland_factory=userland) as (_device, client):
        frame = capture(client)
        assert frame.source == "png" and (frame.width, frame.height) == (1080, 2400)
