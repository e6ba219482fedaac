"""The MCP `screenshot` tool against a hostile device (issue #14 item 4): a PNG bomb or a
raw frame over the pixel cap, and more bytes than a frame's header allows, answer
`output_too_large` with what was refused, and the device stays usable."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from adbwire.device.parsers.screencap import MAX_SCREEN_PIXELS
from adbwire.mcp.safety.policy import Policy
from adbwire.testing import DeviceOptions, SimulatedDevice, running_device
from adbwire.testing.hostile import (
    Rule,
    hostile_userland,
    huge_raw_screencap,
    png_bomb_screencap,
)
from tests.device.screen_memory_probe import OVERLONG_BODY, raw_fails
from tests.mcp.harness import connected, data_of, error_of, make_app


@contextlib.contextmanager
def device_with(*rules: Rule) -> Iterator[SimulatedDevice]:
    with running_device(DeviceOptions(auth_required=False), hostile_userland(*rules)) as device:
        yield device


async def test_a_png_bomb_answers_output_too_large_with_the_claimed_size() -> None:
    with device_with(raw_fails(), png_bomb_screencap()) as device:
        app = make_app([device], policy=Policy(profile="full"))
        async with connected(app) as client:
            error = error_of(await client.call_tool("screenshot", {}))
            info = data_of(await client.call_tool("get_property", {"name": "ro.product.model"}))
        app.close()
    assert error["code"] == "output_too_large"
    assert error["next_action"] == "none" and error["retryable"] is False
    assert error["details"] == {"width": 13000, "height": 13000, "max_pixels": MAX_SCREEN_PIXELS}
    assert "13000x13000" in error["message"] and "nothing was decoded" in error["message"]
    assert info["value"], "the device is still usable"


async def test_a_raw_frame_over_the_cap_and_an_overlong_one_are_refused() -> None:
    with device_with(huge_raw_screencap(20000, 20000)) as device:
        app = make_app([device], policy=Policy(profile="full"))
        async with connected(app) as client:
            huge = error_of(await client.call_tool("screenshot", {"max_edge": 640}))
        app.close()
    assert huge["code"] == "output_too_large"
    assert huge["details"]["width"] == 20000 and huge["details"]["height"] == 20000

    with device_with(huge_raw_screencap(1080, 2400, body_bytes=OVERLONG_BODY)) as device:
        app = make_app([device], policy=Policy(profile="full"))
        async with connected(app) as client:
            overlong = error_of(await client.call_tool("screenshot", {}))
        app.close()
    assert overlong["code"] == "output_too_large" and overlong["next_action"] == "none"
    assert overlong["details"]["cap_bytes"] == 16 + 1080 * 2400 * 4
    assert "hostile" in overlong["message"]
