"""A trace's screens cost what a screenshot does: the device's lane, its chosen capture
path, the pooled frame buffer; and a screen that never comes is given up in bounded time."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import anyio
import pytest

from adbwire.device.screen.frame_pool import FramePool, Lease
from adbwire.device.screen.history import ScreenHistory
from adbwire.mcp.trace import recorder as recorder_module
from adbwire.mcp.trace import start_trace
from adbwire.mcp.trace.format import read_trace
from adbwire.testing import DeviceOptions, running_device
from adbwire.testing.hostile.userland import Invocation, Rule, hostile_userland
from adbwire.wire.aio import DeviceLane
from tests.mcp.harness import WAIT, connected, make_app, simulated

P = ParamSpec("P")
T = TypeVar("T")


async def test_trace_screens_take_the_lane_the_chosen_path_and_the_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pool = FramePool()
    monkeypatch.setattr(recorder_module, "Lease", lambda: Lease(pool))
    in_lane: list[str] = []
    original_run = DeviceLane.run

    async def spy(self: DeviceLane, func: Callable[P, T], *args: Any, **kwargs: Any) -> T:
        in_lane.append(getattr(func, "__name__", ""))
        return await original_run(self, func, *args, **kwargs)

    monkeypatch.setattr(DeviceLane, "run", spy)
    with simulated() as (device,):
        app = make_app([device])
        app.trace = start_trace(tmp_path / "trace")
        async with connected(app) as client:
            for _ in range(2):
                assert not (await client.call_tool("tap", {"x": 10, "y": 10})).is_error
        history = app.services["screen_history"]  # closing the app drops it
        app.close()
    steps = read_trace(tmp_path / "trace").steps
    assert all("file" in s["screens"][m] for s in steps for m in ("before", "after"))
    assert in_lane.count("_grab") == 2  # each 'before'; the 'after' is the writer's
    assert isinstance(history, ScreenHistory)
    paths = history.capture_paths(device.serial)  # raw, PNG, raw(, PNG): both measured
    assert paths.predicted("raw") is not None and paths.predicted("png") is not None
    assert pool.idle == 1  # the buffers went back for the next capture


def _stalls(release: threading.Event) -> Rule:
    def respond(call: Invocation) -> int:
        release.wait(WAIT)
        return 1

    return Rule(lambda command: command.strip().startswith("screencap"), respond)


async def test_a_screen_that_never_comes_is_given_up_within_the_capture_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recorder_module, "CAPTURE_TIMEOUT", 0.5)
    release = threading.Event()
    userland = hostile_userland(_stalls(release))
    with running_device(DeviceOptions(auth_required=False), userland) as device:
        try:
            app = make_app([device])
            app.trace = start_trace(tmp_path / "trace")
            async with connected(app) as client:
                with anyio.fail_after(WAIT):
                    assert not (await client.call_tool("tap", {"x": 10, "y": 10})).is_error
            await anyio.to_thread.run_sync(app.close)  # the 'after' is given up, not waited
        finally:
            release.set()  # the device's stalled screencaps end before the device stops
    (step,) = read_trace(tmp_path / "trace").steps
    assert step["screens"]["before"] == {"missing": "no screen within 0.5 s"}
    assert "timed out" in step["screens"]["after"]["missing"]
