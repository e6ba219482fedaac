"""Traces of real MCP sessions against the simulated device: what each step keeps."""

from __future__ import annotations

import itertools
import json
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from adbwire.device.screen.path_choice import CapturePaths
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.server.client_session import serve_session
from adbwire.mcp.trace import recorder as recorder_module
from adbwire.mcp.trace import start_trace
from adbwire.mcp.trace.format import read_trace
from adbwire.mcp.trace.recorder import TracedCall, TraceRecorder
from adbwire.mcp.trace.writer import CAPTURE_THREAD, Shot
from adbwire.wire.client import AdbClient
from tests.mcp.harness import WAIT, connected, make_app, simulated
from tests.trace.flows import FLOW, SECRET, record_flow


async def test_a_session_trace_has_every_call_with_screens_targets_and_the_crash(
    tmp_path: Path,
) -> None:
    steps = await record_flow(tmp_path / "trace", tmp_path / "audit.jsonl")
    assert [s["tool"] for s in steps] == [tool for tool, _ in FLOW]
    assert [s["index"] for s in steps] == list(range(1, len(FLOW) + 1))
    launch, tree, tap_new, typed, tap, swipe, missing, crash = steps
    assert all(isinstance(s["duration_ms"], int) and s["device"] for s in steps)

    # Reads get no screens; every action gets the screen before and after, downscaled.
    assert "screens" not in tree and tree["result"]["total"] > 0
    assert tree["tree"].startswith("e")  # the compact tree it read (the text block has it)
    for action in (launch, tap_new, typed, tap, swipe, missing, crash):
        for moment in ("before", "after"):
            screen = action["screens"][moment]
            assert (screen["device_width"], screen["device_height"]) == (1080, 2400)
            assert max(screen["width"], screen["height"]) <= 480
            assert (tmp_path / "trace" / screen["file"]).is_file()
    assert tap_new["screens"]["before"]["file"] != tap_new["screens"]["after"]["file"]

    # What was acted on: the element's bounds and its centre, a point, a swipe's path.
    assert tap_new["target"]["bounds"] == [855, 2090, 1017, 2252]
    assert tap_new["target"]["point"] == [936, 2171]
    assert 'desc:"New note"' in tap_new["target"]["element"]
    assert "New note" in tap_new["tree"]  # the compact tree the action read
    assert tap["target"] == {"point": [100, 200]}
    assert swipe["target"]["path"][0] == swipe["target"]["path"][2]  # vertical

    # Failures keep their envelope; the crash is marked as one.
    assert missing["outcome"] == "error" and missing["error"]["code"] == "not_found"
    assert missing["crash"] is False
    assert crash["outcome"] == "error" and crash["error"]["code"] == "app_crashed"
    assert crash["crash"] is True
    assert launch["outcome"] == "ok" and launch["crash"] is False


async def test_typed_text_is_redacted_as_in_the_audit_log_and_found_nowhere(
    tmp_path: Path,
) -> None:
    steps = await record_flow(tmp_path / "trace", tmp_path / "audit.jsonl")
    audit = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert [s["arguments"] for s in steps] == [line["arguments"] for line in audit]
    typed = steps[3]
    assert typed["arguments"]["text"] == "<redacted>"
    # The field reads back what was typed; the trace keeps the line without it.
    assert "<redacted>" in typed["result"]["field"]
    for file in (tmp_path / "trace").rglob("*"):
        if file.is_file():
            data = file.read_bytes()
            assert b"hunter2" not in data, file
            assert SECRET.encode() not in data, file


async def test_concurrent_calls_are_numbered_as_they_arrive(tmp_path: Path) -> None:
    """A slow call that arrives first keeps number 1 though a quick one finishes before it."""
    with simulated() as (device,):
        app = make_app([device])
        recorder = start_trace(tmp_path / "trace")
        app.trace = recorder
        slow_arrived = anyio.Event()

        def start(call: ToolCall, raw: dict[str, Any]) -> TracedCall:
            traced = TraceRecorder.start(recorder, call, raw)
            if call.spec.name == "wait_for_element":
                slow_arrived.set()
            return traced

        recorder.start = start  # type: ignore[method-assign]
        async with connected(app) as client:

            async def slow() -> None:
                await client.call_tool("wait_for_element", {"query": "Never", "timeout_s": 5})

            with anyio.fail_after(WAIT):
                async with anyio.create_task_group() as group:
                    group.start_soon(slow)
                    await slow_arrived.wait()
                    await client.call_tool("get_property", {"name": "ro.product.model"})
        app.close()
    lines = (tmp_path / "trace" / "trace.jsonl").read_text().splitlines()
    written = [json.loads(line)["tool"] for line in lines[1:3]]
    assert written == ["get_property", "wait_for_element"]  # finished in this order
    steps = read_trace(tmp_path / "trace").steps
    assert [(s["index"], s["tool"]) for s in steps] == [
        (1, "wait_for_element"),
        (2, "get_property"),
    ]


async def test_the_next_action_waits_for_the_screen_after_the_last_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The screen after an action is taken in the device's capture lane (off the call and
    off the writer thread); the device's next action takes its 'before' only once that is
    done, and closing the session takes the last one."""
    captures: list[tuple[str, float, float]] = []
    original = recorder_module._grab

    def slow_grab(client: AdbClient, paths: CapturePaths) -> Shot:
        started = time.monotonic()
        if threading.current_thread().name == CAPTURE_THREAD:
            time.sleep(0.3)  # a slow 'after': the next 'before' must still come later
        shot = original(client, paths)
        captures.append((threading.current_thread().name, started, time.monotonic()))
        return shot

    monkeypatch.setattr(recorder_module, "_grab", slow_grab)
    async with serve_session(simulate=True, trace=tmp_path / "trace") as session:
        for _ in range(2):
            assert not (await session.call_tool("tap", {"x": 10, "y": 10})).is_error
    writer = [c for c in captures if c[0] == CAPTURE_THREAD]
    assert len(captures) == 4 and len(writer) == 2  # two 'before', two 'after'
    intervals = sorted(captures, key=lambda c: c[1])
    assert all(a[2] <= b[1] for a, b in itertools.pairwise(intervals))  # none overlap
    assert [c[0] == CAPTURE_THREAD for c in intervals] == [False, True, False, True]
    steps = read_trace(tmp_path / "trace").steps
    assert all("file" in s["screens"][m] for s in steps for m in ("before", "after"))


async def test_a_cancelled_call_is_recorded_as_cancelled(tmp_path: Path) -> None:
    with simulated() as (device,):
        app = make_app([device])
        recorder = start_trace(tmp_path / "trace")
        app.trace = recorder
        arrived = anyio.Event()

        def start(call: ToolCall, raw: dict[str, Any]) -> TracedCall:
            traced = TraceRecorder.start(recorder, call, raw)
            arrived.set()
            return traced

        recorder.start = start  # type: ignore[method-assign]
        async with connected(app) as client:
            async with anyio.create_task_group() as group:
                arguments = {"query": "Never", "timeout_s": 60}
                group.start_soon(client.call_tool, "wait_for_element", arguments)
                with anyio.fail_after(WAIT):
                    await arrived.wait()
                group.cancel_scope.cancel()
            with anyio.fail_after(WAIT):  # the server saw the cancellation: the link is free
                await client.call_tool("get_property", {"name": "ro.product.model"})
        app.close()
    steps = read_trace(tmp_path / "trace").steps
    assert [(s["tool"], s["outcome"]) for s in steps] == [
        ("wait_for_element", "cancelled"),
        ("get_property", "ok"),
    ]


async def test_a_capture_that_fails_leaves_the_reason_and_the_call_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(client: AdbClient, paths: CapturePaths) -> Shot:
        raise ValueError("the capture path broke")

    monkeypatch.setattr(recorder_module, "_grab", broken)
    async with serve_session(simulate=True, trace=tmp_path / "trace") as session:
        assert not (await session.call_tool("tap", {"x": 10, "y": 10})).is_error
    (step,) = read_trace(tmp_path / "trace").steps
    assert step["outcome"] == "ok"
    assert step["screens"] == {
        "before": {"missing": "no screen: the capture path broke"},
        "after": {"missing": "no screen: the capture path broke"},
    }
