"""Screen tools: screenshots that fit, touches by coordinates, keys, and the debug bundle.

Screenshots come back as MCP image content with their metadata; coordinates given in
screenshot space are mapped back to device pixels with the last screenshot's scale. A frame
over the pixel cap, or more bytes than the frame's own header allows, ends the call with
``output_too_large`` (docs/ui.md, Screenshots, "Untrusted frames").
"""

from __future__ import annotations

import base64
import dataclasses
import os
import re
import time
from typing import Annotated, Literal

from mcp_types import ContentBlock, ImageContent, TextContent
from pydantic import Field

from adbwire.device import commands
from adbwire.device import input as device_input
from adbwire.device.errors import ScreenTooLargeError
from adbwire.device.parsers import Bounds, parse_display_size
from adbwire.device.screen import Budget, Screenshot, take_screenshot
from adbwire.device.screen.annotate import annotate
from adbwire.device.ui import NoMatchError, compact_tree, read_ui
from adbwire.device.ui.compact import interactive_elements
from adbwire.device.ui.debug import debug_context as read_debug_context
from adbwire.device.ui.select import check_fresh
from adbwire.errors import OutputTooLargeError
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.envelope import ErrorCode, NextAction, ToolFailure
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.paths import open_new_file
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import DeviceArgs, Package, Result
from adbwire.mcp.tools.outcome import ActionOutcome, log_line, outcome_fields, said, watched
from adbwire.mcp.tools.ui_common import (
    ElementId,
    in_range,
    memory,
    previous_tree,
    remember,
    run_ui,
    to_device_point,
)
from adbwire.wire.client import AdbClient

Space = Literal["device", "screenshot"]
SWIPE_MS = 300


class ShotArgs(DeviceArgs):
    max_edge: Annotated[int, in_range(64, 8192)] = 1280
    max_bytes: Annotated[int, in_range(10_000, 20_000_000)] = 800_000
    format: Literal["png", "jpeg", "webp"] | None = None
    crop: list[int] | None = Field(default=None, min_length=4, max_length=4)
    crop_to: ElementId | None = None
    annotate: bool = False


class Shot(Result):
    device_size: list[int]
    size: list[int] | None = None
    scale: float | None = None
    sha256: str | None = None
    changed: bool | None = None
    secure: bool
    saved: str | None = None
    note: str | None = None


def _element_bounds(call: ToolCall, element_id: str) -> Bounds:
    hierarchy = read_ui(call.client).hierarchy
    check_fresh(previous_tree(call), hierarchy, [element_id])
    element = hierarchy.get(element_id)
    if element is None or element.bounds.is_empty:
        raise NoMatchError(f"no element {element_id} on screen", selector=element_id)
    return element.bounds


def _capture(call: ToolCall, args: ShotArgs) -> Screenshot:
    client = call.client
    region = Bounds(*args.crop) if args.crop else None
    if args.crop_to is not None:
        region = _element_bounds(call, args.crop_to)
    budget = Budget(args.max_edge, args.max_bytes, args.format or "auto")
    try:
        return take_screenshot(client, budget=budget, region=region, history=memory(call))
    except (ScreenTooLargeError, OutputTooLargeError) as exc:
        raise frame_refused(exc) from None


def _annotated(call: ToolCall, shot: Screenshot) -> Screenshot:
    """The screenshot with each interactive element's id drawn on it, read from the screen
    as it is now (the ids an agent then taps are remembered as ui_tree's would be)."""
    hierarchy = read_ui(call.client).hierarchy
    remember(call, hierarchy)
    assert shot.image is not None and shot.mapping is not None
    marked = annotate(shot.image, shot.mapping, interactive_elements(hierarchy))
    return dataclasses.replace(shot, image=marked)


def frame_refused(exc: ScreenTooLargeError | OutputTooLargeError) -> ToolFailure:
    """``output_too_large`` for a frame refused at its header or cut off past its size; no
    setting raises these limits (docs/ui.md), so there is nothing to retry."""
    if isinstance(exc, ScreenTooLargeError):
        details: dict[str, object] = {
            "width": exc.width,
            "height": exc.height,
            "max_pixels": exc.max_pixels,
        }
        return ToolFailure(ErrorCode.OUTPUT_TOO_LARGE, str(exc), details, NextAction.NONE)
    message = (
        f"{exc}: more than a frame of the size the device announced takes; "
        "a broken or hostile device"
    )
    details = {"cap_bytes": exc.limit, "read": exc.what}
    return ToolFailure(ErrorCode.OUTPUT_TOO_LARGE, message, details, NextAction.NONE)


def _save(call: ToolCall, shot: Screenshot) -> str | None:
    root = call.app.policy.local_root
    if root is None or shot.image is None:
        return None
    serial = re.sub(r"[^A-Za-z0-9._-]", "_", call.client.serial)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    name = f"screenshots/{serial}-{stamp}-{(shot.sha256 or '')[:8]}.{shot.image.format}"
    local = call.app.local_root
    path = local.resolve(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        return local.display(path)
    descriptor = open_new_file(path)
    with os.fdopen(descriptor, "wb") as sink:
        sink.write(shot.image.data)
    return local.display(path)


def shot_content(
    shot: Screenshot, saved: str | None = None
) -> tuple[Shot, tuple[ContentBlock, ...]]:
    image, mapping = shot.image, shot.mapping
    data = Shot(
        device_size=[shot.device_width, shot.device_height],
        size=[image.width, image.height] if image else None,
        scale=round(mapping.scale, 6) if mapping else None,
        sha256=shot.sha256,
        changed=shot.changed,
        secure=shot.black,
        saved=saved,
        note=shot.note,
    )
    if image is None:
        return data, ()
    encoded = base64.b64encode(image.data).decode("ascii")
    return data, (ImageContent(type="image", data=encoded, mime_type=image.mime_type),)


@tool(
    name="screenshot", title="Screenshot", risk=Risk.READ, input=ShotArgs, output=Shot, example={}
)
async def screenshot(call: ToolCall, args: ShotArgs) -> ToolOutput:
    """Screen image within max_edge px and max_bytes; scale: image/device px. A secure (black)
    screen is reported, not shown. annotate: ui_tree's ids drawn on actionable elements."""
    shot = await run_ui(call, _capture, call, args)
    if args.annotate and shot.image is not None and shot.mapping is not None:
        shot = await run_ui(call, _annotated, call, shot)
    saved = await call.run(_save, call, shot)
    data, extra = shot_content(shot, saved)
    if shot.image is None:
        return ToolOutput("secure or blank screen: no image", data)
    image = shot.image
    summary = f"{image.width}x{image.height} {image.format}, {len(image.data)} bytes"
    return ToolOutput(summary, data, extra)


class PointArgs(DeviceArgs):
    x: Annotated[float, in_range(0, 100_000)]
    y: Annotated[float, in_range(0, 100_000)]
    space: Literal["screenshot"] | None = None


class Point(ActionOutcome):
    x: int
    y: int


@tool(
    name="tap",
    title="Tap a point",
    risk=Risk.ACTION,
    input=PointArgs,
    output=Point,
    example={"x": 540, "y": 1200},
    idempotent=False,
)
async def tap(call: ToolCall, args: PointArgs) -> ToolOutput:
    """Tap a point in device px, or in screenshot px (space); prefer tap_element."""
    x, y = to_device_point(call, args.x, args.y, args.space or "device")
    outcome = await watched(call, device_input.tap, call.client, x, y)
    data = Point(x=x, y=y, **outcome_fields(outcome))
    return ToolOutput(f"tapped ({x}, {y}){said(outcome)}", data)


class SwipeArgs(DeviceArgs):
    direction: Literal["up", "down", "left", "right"] | None = None
    distance: Annotated[float, in_range(0.05, 1)] = 0.5
    points: list[float] | None = Field(default=None, min_length=4, max_length=4)
    space: Literal["screenshot"] | None = None


class Swiped(ActionOutcome):
    points: list[int]


def _screen_size(client: AdbClient) -> tuple[int, int]:
    size = parse_display_size(commands.text(client, ["wm", "size"])).effective
    if size is None:
        raise ToolFailure(ErrorCode.COMMAND_FAILED, "wm size did not report the screen size")
    return size.width, size.height


def _swipe_points(call: ToolCall, args: SwipeArgs) -> list[int]:
    if args.points is not None:
        space: Space = args.space or "device"
        start = to_device_point(call, args.points[0], args.points[1], space)
        end = to_device_point(call, args.points[2], args.points[3], space)
        return [*start, *end]
    if args.direction is None:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENTS, "give a direction or points")
    width, height = _screen_size(call.client)
    half_x, half_y = round(width * args.distance / 2), round(height * args.distance / 2)
    cx, cy = width // 2, height // 2
    return {
        "up": [cx, cy + half_y, cx, cy - half_y],
        "down": [cx, cy - half_y, cx, cy + half_y],
        "left": [cx + half_x, cy, cx - half_x, cy],
        "right": [cx - half_x, cy, cx + half_x, cy],
    }[args.direction]


@tool(
    name="swipe",
    title="Swipe",
    risk=Risk.ACTION,
    input=SwipeArgs,
    output=Swiped,
    example={"direction": "up"},
    idempotent=False,
)
async def swipe(call: ToolCall, args: SwipeArgs) -> ToolOutput:
    """Swipe the finger in a direction, or along points [x1,y1,x2,y2]."""
    points = await call.run(_swipe_points, call, args)
    outcome = await watched(call, device_input.swipe, call.client, *points, duration_ms=SWIPE_MS)
    data = Swiped(points=points, **outcome_fields(outcome))
    return ToolOutput(f"swiped {points[:2]}->{points[2:]}{said(outcome)}", data)


class KeyArgs(DeviceArgs):
    key: str = Field(max_length=50, description="back, home, enter, delete, tab, KEYCODE_*")


class Pressed(ActionOutcome):
    keycode: str


@tool(
    name="press_key",
    title="Press a key",
    risk=Risk.ACTION,
    input=KeyArgs,
    output=Pressed,
    example={"key": "back"},
    idempotent=False,
)
async def press_key(call: ToolCall, args: KeyArgs) -> ToolOutput:
    """Press a key."""
    code = device_input.keycode(args.key)
    outcome = await watched(call, device_input.press_keys, call.client, code)
    data = Pressed(keycode=code, **outcome_fields(outcome))
    return ToolOutput(f"pressed {code}{said(outcome)}", data)


class DebugArgs(DeviceArgs):
    package: Package | None = Field(default=None, description="default: focused app")
    log_lines: Annotated[int, in_range(0, 500)] = 40
    screenshot: bool = False


class Debug(Result):
    window: str | None = None
    log_lines: int | None = Field(default=None, description="in a text block after 'log:'")
    log_note: str | None = None
    screenshot: Shot | None = None
    errors: dict[str, str] = Field(default_factory=dict)


@tool(
    name="debug_context",
    title="Debug context",
    risk=Risk.READ,
    input=DebugArgs,
    output=Debug,
    example={"screenshot": True},
)
async def debug_context(call: ToolCall, args: DebugArgs) -> ToolOutput:
    """Focused window, app's recent log (own text block), optional screenshot, and the UI
    tree after the JSON (text block); each part that fails says why in errors."""
    found = await call.run(
        read_debug_context,
        call.client,
        package=args.package,
        log_lines=args.log_lines,
        screenshot=args.screenshot,
        history=memory(call),
    )
    ui, focus = found.ui, found.focus
    if ui is not None:
        remember(call, ui.hierarchy)
    shot, extra = shot_content(found.screenshot) if found.screenshot else (None, ())
    log = [log_line(e) for e in found.log_entries] if found.log_entries is not None else None
    if log:  # once, in a text block of its own
        extra = (TextContent(type="text", text="log:\n" + "\n".join(log)), *extra)
    data = Debug(
        window=focus.current_focus if focus else None,
        log_lines=len(log) if log is not None else None,
        log_note=_log_note(found.log_package, found.log_note),
        screenshot=shot,
        errors=found.errors,
    )
    failed = f"; failed: {', '.join(found.errors)}" if found.errors else ""
    tree = compact_tree(ui.hierarchy) if ui else None  # once, in the text block
    summary = f"debug context of {data.window or 'unknown window'}{failed}"
    return ToolOutput(summary, data, extra, text=tree)


def _log_note(package: str | None, note: str | None) -> str:
    scope = f"log of {package}" if package else "log of every process"
    return f"{scope}; {note}" if note else scope


TOOLS = [screenshot, tap, swipe, press_key, debug_context]
