"""Double tap, long press and drag at a point (device or screenshot pixels), in one tool."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from adbwire.device import gestures as ops
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.envelope import ErrorCode, ToolFailure
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import DeviceArgs
from adbwire.mcp.tools.outcome import ActionOutcome, Watch, outcome_fields, run_watched, said
from adbwire.mcp.tools.ui_common import in_range, to_device_point

Coordinate = Annotated[float, in_range(0, 100_000)]
Millis = Annotated[int, in_range(0, 10_000)]


class GestureArgs(DeviceArgs):
    kind: Literal["double_tap", "long_press", "drag"]
    x: Coordinate
    y: Coordinate
    to: list[Coordinate] | None = Field(default=None, min_length=2, max_length=2)
    duration_ms: Millis | None = None
    hold_ms: Millis = 0
    space: Literal["screenshot"] | None = None


class Gestured(ActionOutcome):
    kind: str
    method: str
    points: list[int]


@tool(
    name="gesture",
    title="Gesture",
    risk=Risk.ACTION,
    input=GestureArgs,
    output=Gestured,
    example={"kind": "drag", "x": 540, "y": 1500, "to": [540, 600], "hold_ms": 600},
    idempotent=False,
    aliases=("double_tap", "long_press", "drag"),
)
async def gesture(call: ToolCall, args: GestureArgs) -> ToolOutput:
    """double_tap, long_press (duration_ms), or drag to `to` [x,y] after holding hold_ms;
    points as tap's (space)."""
    start = to_device_point(call, args.x, args.y, args.space)
    client = call.client
    if args.kind == "drag":
        if args.to is None:
            raise ToolFailure(ErrorCode.INVALID_ARGUMENTS, "drag needs `to`: [x, y]")
        end = to_device_point(call, args.to[0], args.to[1], args.space)
        done, outcome = await run_watched(
            call, Watch(), ops.drag, client, start, end,
            duration_ms=600 if args.duration_ms is None else args.duration_ms,
            hold_ms=args.hold_ms,
        )  # fmt: skip
        points = [*start, *end]
    elif args.kind == "long_press":
        done, outcome = await run_watched(
            call, Watch(), ops.long_press, client, *start,
            duration_ms=800 if args.duration_ms is None else args.duration_ms,
        )  # fmt: skip
        points = list(start)
    else:
        done, outcome = await run_watched(call, Watch(), ops.double_tap, client, *start)
        points = list(start)
    data = Gestured(
        kind=done.kind, method=done.method, points=points, **outcome_fields(outcome, done.note)
    )
    return ToolOutput(f"{done.kind} at {points} by {done.method}{said(outcome)}", data)


TOOLS = [gesture]
