"""A trace never makes a tool call wait: a device stuck on its screen drops its own steps
(counted) and holds back no other device's, and the screen after an action is skipped while
the device is busy."""

from __future__ import annotations

import collections
import json
import threading
from pathlib import Path

import anyio
import pytest
from PIL import Image

from adbwire.errors import DeviceQueueFullError
from adbwire.mcp.trace import recorder as recorder_module
from adbwire.mcp.trace import start_trace
from adbwire.mcp.trace import writer as writer_module
from adbwire.mcp.trace.format import TRACE_FILE, read_trace
from adbwire.mcp.trace.writer import QUEUE_SIZE, Shot, TraceWriter
from adbwire.testing import DeviceOptions, SimulatedDevice, running_device
from adbwire.testing.hostile.userland import Invocation, Rule, hostile_userland
from adbwire.wire.aio import DeviceLane
from tests.mcp.harness import WAIT, connected, make_app


async def test_calls_return_while_the_writer_is_stuck_on_a_frozen_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tap freezes the device's screencap (stall fault): the device's capture lane hangs
    on the screen after it (for longer than the test's bound), and calls after it fill the
    lane."""
    monkeypatch.setattr(recorder_module, "CAPTURE_TIMEOUT", 3 * WAIT)
    frozen: list[SimulatedDevice] = []

    def tap_then_freeze(call: Invocation) -> int:
        frozen[0].faults.stall("exec:screencap")
        return 0

    frozen_capture = threading.Event()

    def capture_after_the_freeze(call: Invocation) -> int:
        if frozen[0].faults.stalled_services:
            frozen_capture.set()  # the lane has passed its busy check and is capturing
        return call.userland.run(call.command, call.io, pty=call.pty)

    userland = hostile_userland(
        Rule(lambda line: line.strip().startswith("input tap"), tap_then_freeze),
        Rule(lambda line: line.strip().startswith("screencap"), capture_after_the_freeze),
    )
    calls = QUEUE_SIZE + 4
    with running_device(DeviceOptions(auth_required=False), userland) as device:
        frozen.append(device)
        app = make_app([device])
        app.trace = start_trace(tmp_path / "trace")
        try:
            async with connected(app) as client:
                assert not (await client.call_tool("tap", {"x": 10, "y": 10})).is_error
                # The lane must be stuck before the calls start: while they run in the
                # device's lane, the screen after the tap would be skipped (device busy).
                assert await anyio.to_thread.run_sync(frozen_capture.wait, WAIT)
                for _ in range(calls):  # the queue fills up; none of them waits for it
                    with anyio.fail_after(WAIT):
                        result = await client.call_tool("get_property", {"name": "ro.serialno"})
                    assert not result.is_error
                assert device.faults.stalled_services  # still frozen all along
        finally:
            device.faults.release_stalls()
        await anyio.to_thread.run_sync(app.close)
    trace = read_trace(tmp_path / "trace")
    assert len(trace.steps) + trace.dropped_steps == 1 + calls
    assert trace.dropped_steps >= calls - QUEUE_SIZE
    assert "file" in trace.steps[0]["screens"]["before"]


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


def test_closing_behind_a_stuck_capture_and_a_full_queue_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writer_module, "CLOSE_TIMEOUT", 0.2)
    release, entered = threading.Event(), threading.Event()

    def stuck() -> Shot:
        entered.set()
        release.wait(WAIT)
        raise TimeoutError("released")

    writer = TraceWriter(tmp_path / "t")
    try:
        taken = writer.submit({"kind": "step", "index": writer.next_index()}, {}, ("after", stuck))
        assert entered.wait(WAIT)
        for _ in range(QUEUE_SIZE):  # the queue is full
            writer.submit({"kind": "step", "index": writer.next_index()}, {})
        writer.close()  # gives up after CLOSE_TIMEOUT instead of waiting for the capture
        assert not release.is_set() and not taken.is_set()
    finally:
        release.set()


def test_steps_left_behind_a_stuck_capture_are_counted_in_the_closing_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Closing gives up on device A's stuck screen but keeps time for the writer: the
    closing line is written and counts A's steps as dropped (the lanes used to take the
    whole CLOSE_TIMEOUT, leaving the writer none, so the count was never written)."""
    monkeypatch.setattr(writer_module, "CLOSE_TIMEOUT", writer_module.WRITER_RESERVE + 0.2)
    release, entered = threading.Event(), threading.Event()

    def stuck() -> Shot:
        entered.set()
        release.wait(WAIT)
        raise TimeoutError("released")

    writer = TraceWriter(tmp_path / "t")
    try:
        for _ in range(3):
            step = {"kind": "step", "index": writer.next_index(), "device": "A"}
            writer.submit(step, {}, ("after", stuck))
        assert entered.wait(WAIT)
        step = {"kind": "step", "index": writer.next_index(), "device": "B"}
        assert writer.submit(step, {}).wait(WAIT)  # written
        writer.close()
    finally:
        release.set()
    closing = (tmp_path / "t" / TRACE_FILE).read_bytes().splitlines()[-1]
    assert json.loads(closing) == {"kind": "end", "steps": 1, "dropped_steps": 3}


def test_a_device_stuck_on_its_screen_holds_back_no_other_device(tmp_path: Path) -> None:
    """Device A's screen after an action hangs (a frozen device whose lane is idle): device
    B's steps still get their screens and are written meanwhile, none dropped."""
    release, entered = threading.Event(), threading.Event()

    def stuck() -> Shot:
        entered.set()
        release.wait(WAIT)
        raise TimeoutError("no screen within the deadline")

    def quick() -> Shot:
        return Shot(Image.new("RGB", (48, 96)), 1080, 2400)

    writer = TraceWriter(tmp_path / "t")
    others = 2 * QUEUE_SIZE  # more than the writer's queue holds
    written: dict[int, threading.Event] = collections.defaultdict(threading.Event)
    append_line = writer._append_line

    def noting_written(line: bytes) -> None:
        append_line(line)
        index = json.loads(line).get("index")
        if isinstance(index, int):
            written[index].set()

    writer._append_line = noting_written  # type: ignore[method-assign]
    try:
        step = {"kind": "step", "index": writer.next_index(), "device": "A"}
        frozen = writer.submit(step, {}, ("after", stuck))
        assert entered.wait(WAIT)
        for _ in range(others):  # each one taken and written while A is stuck
            index = writer.next_index()
            step = {"kind": "step", "index": index, "device": "B"}
            assert writer.submit(step, {}, ("after", quick)).wait(WAIT)
            assert written[index].wait(WAIT)
        assert not release.is_set() and not frozen.is_set()  # A was stuck all along
    finally:
        release.set()
    writer.close()
    trace = read_trace(tmp_path / "t")
    assert (len(trace.steps), trace.dropped_steps) == (1 + others, 0)
    assert trace.steps[0]["screens"]["after"] == {
        "missing": "no screen: no screen within the deadline"
    }
    assert all("file" in step["screens"]["after"] for step in trace.steps[1:])
