"""Screen recording: start, then stop to get the MP4 under the local root (streamed to disk).
One recording per device; one left running when the session ends is stopped and deleted."""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field

from adbwire.device import recording as ops
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.envelope import ErrorCode, ToolFailure
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import DeviceArgs, Result
from adbwire.mcp.tools.session_restore import registry_serial, remember, restorer, session_of
from adbwire.mcp.tools.ui_common import in_range
from adbwire.wire.client import AdbClient

SERVICE = "recorder"
KEY = "screen_recording"


class RecordingArgs(DeviceArgs):
    action: Literal["start", "stop"]
    max_seconds: Annotated[int, in_range(1, ops.MAX_SECONDS)] = ops.MAX_SECONDS
    size: str | None = Field(default=None, max_length=9)
    bit_rate: Annotated[int, in_range(100_000, 100_000_000)] | None = None
    to: str | None = Field(default=None, max_length=1024)


class RecordingResult(Result):
    state: str
    started_at: str | None = None
    path: str | None = None
    duration_s: float | None = None
    bytes: int | None = None
    ended_by: str | None = None


def recorder(call: ToolCall) -> ops.Recorder:
    found = call.app.services.get(SERVICE)
    if found is None:
        found = call.app.services[SERVICE] = ops.Recorder()
    assert isinstance(found, ops.Recorder)
    return found


@tool(
    name="screen_recording",
    title="Screen recording",
    risk=Risk.ACTION,
    input=RecordingArgs,
    output=RecordingResult,
    example={"action": "start", "max_seconds": 60},
    idempotent=False,
    host_files=True,
    full_only=True,
    aliases=("start_screen_recording", "stop_screen_recording"),
)
async def screen_recording(call: ToolCall, args: RecordingArgs) -> ToolOutput:
    """start (max_seconds<=180, size WxH, bit_rate) or stop: the MP4 goes to the local root
    (to), off the device."""
    rec, client = recorder(call), call.client
    if args.action == "start":
        if args.to is not None:
            raise ToolFailure(ErrorCode.INVALID_ARGUMENTS, "`to` goes with stop, not start")
        session = session_of(call)
        running = await call.run(rec.start, client, max_seconds=args.max_seconds, size=args.size,
                                 bit_rate=args.bit_rate)  # fmt: skip

        def abort(client: AdbClient) -> None:
            rec.abort(client)

        remember(call, session, KEY, "screen recording", abort, keep=False)
        data = RecordingResult(state="recording", started_at=running.started_at)
        return ToolOutput(f"recording (at most {args.max_seconds} s)", data)
    current = rec.running(client.serial)
    root = call.app.local_root
    if args.to is not None:
        destination = root.resolve(args.to)
        if destination.exists():
            raise ToolFailure(
                ErrorCode.ALREADY_EXISTS,
                f"{args.to} exists: choose another `to` (the recording is still running)",
            )
    else:
        destination = _free_destination(call, current.remote_path if current else "recording.mp4")
    progress = call.progress_from_thread("pulling the recording")
    cap = call.app.policy.max_transfer_bytes
    stopped = await call.run(rec.stop, client, destination, cap=cap, progress=progress)
    restorer(call).ledger.keep(registry_serial(call), KEY)  # stopped: nothing to clean up
    path = root.display(destination)
    data = RecordingResult(state="stopped", path=path, duration_s=stopped.duration_s,
                           bytes=stopped.bytes, ended_by=stopped.ended_by)  # fmt: skip
    return ToolOutput(f"{stopped.bytes} bytes, {stopped.duration_s} s -> {path}", data)


def _free_destination(call: ToolCall, remote_path: str) -> Path:
    """The device file's name under the local root, numbered past any file already there
    (the device reuses its names once a recording is pulled and removed)."""
    stem, suffix = posixpath.splitext(posixpath.basename(remote_path))
    for number in range(1, 1000):
        name = f"{stem}{suffix}" if number == 1 else f"{stem}-{number}{suffix}"
        path = call.app.local_root.resolve(name)
        if not path.exists():
            return path
    raise ToolFailure(ErrorCode.ALREADY_EXISTS, f"{stem}{suffix} and 998 more exist: pass `to`")


TOOLS = [screen_recording]
