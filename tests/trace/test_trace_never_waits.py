"""A trace never makes a tool call wait: a writer stuck on a device's screen drops steps
(counted), and the screen after an action is skipped while the device is busy."""

from __future__ import annotations

import threading
from pathlib import Path

import anyio
import pytest

from adbwire.device.screen.path_choice import CapturePaths
from adbwire.errors import DeviceQueueFullError
from adbwire.mcp.trace import recorder as recorder_module
from adbwire.mcp.trace import start_trace
from adbwire.mcp.trace.format import read_trace
from adbwire.mcp.trace.writer import QUEUE_SIZE, Shot
from adbwire.wire.aio import DeviceLane
from adbwire.wire.client import AdbClient
from tests.mcp.harness import WAIT, connected, make_app, simulated


async def test_calls_return_while_the_writer_is_stuck_on_a_frozen_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frozen = threading.Event()
    release = threading.Event()
    original = recorder_module._grab

    def frozen_after(client: AdbClient, paths: CapturePaths) -> Shot:
        if threading.current_thread().name == "adbwire-trace":  # the device stops answering
            frozen.set()
            release.wait(WAIT)
        return original(client, paths)

    monkeypatch.setattr(recorder_module, "_grab", frozen_after)
    calls = QUEUE_SIZE + 4
    with simulated() as (device,):
        app = make_app([device])
        app.trace = start_trace(tmp_path / "trace")
        try:
            async with connected(app) as client:
                assert not (await client.call_tool("tap", {"x": 10, "y": 10})).is_error
                await anyio.to_thread.run_sync(frozen.wait, WAIT)
                for _ in range(calls):  # the queue fills up; none of them waits for it
                    with anyio.fail_after(WAIT):
                        result = await client.call_tool("get_property", {"name": "ro.serialno"})
                    assert not result.is_error
                assert not release.is_set()  # the writer was stuck all along
        finally:
            release.set()
        await anyio.to_thread.run_sync(app.close)
    trace = read_trace(tmp_path / "trace")
    assert len(trace.steps) + trace.dropped_steps == 1 + calls
    assert trace.dropped_steps >= calls - QUEUE_SIZE


async def test_the_screen_after_is_skipped_while_the_device_is_busy() -> None:
    lane = DeviceLane("busy")
    running, done = threading.Event(), threading.Event()

    def hung_call() -> None:
        running.set()
        done.wait(WAIT)

    async with anyio.create_task_group() as group:
        group.start_soon(lane.run, hung_call)
        await anyio.to_thread.run_sync(running.wait, WAIT)
        try:
            with pytest.raises(DeviceQueueFullError, match="busy"):
                recorder_module._grab_unless_busy(lane, None, None)  # type: ignore[arg-type]
        finally:
            done.set()
