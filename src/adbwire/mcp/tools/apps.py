"""App lifecycle tools: launch (verified), stop, restart, deep links, what is on screen."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from adbwire.device import apps as ops
from adbwire.device import validate
from adbwire.device.parsers import WindowFocus
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import DeviceArgs, Package, Result
from adbwire.mcp.tools.outcome import ActionOutcome, Watch, outcome_fields, run_watched

Activity = Annotated[str, AfterValidator(validate.activity_name), Field(max_length=255)]
Uri = Annotated[str, AfterValidator(validate.uri), Field(max_length=validate.MAX_URI)]


class LaunchArgs(DeviceArgs):
    package: Package
    activity: Activity | None = Field(default=None, description="default: launcher")
    timeout_s: float = Field(default=15, ge=1, le=120)


class Launched(ActionOutcome):
    package: str
    component: str
    focused_activity: str | None = None
    seconds: float


class StopArgs(DeviceArgs):
    package: Package


class Stopped(Result):
    package: str
    stopped: bool = True


class DeepLinkArgs(DeviceArgs):
    uri: Uri
    package: Package | None = None


class Focus(Result):
    package: str | None = None
    activity: str | None = None
    window: str | None = Field(default=None, description="focused window title")
    dialog: str | None = Field(default=None, description="crash or anr when a system dialog is up")


class ActivityInfo(Focus):
    tasks: list[list[str]] = Field(description="activity stack per task, top first")


class Opened(ActionOutcome):
    package: str | None = None
    activity: str | None = None


async def _launch(call: ToolCall, args: LaunchArgs) -> ToolOutput:
    result, outcome = await run_watched(
        call,
        Watch(packages=(args.package,), settle=0),
        ops.launch,
        call.client,
        args.package,
        args.activity,
        timeout=args.timeout_s,
    )
    data = Launched(
        package=result.package,
        component=result.component,
        focused_activity=result.focused_activity,
        seconds=result.seconds,
        **outcome_fields(outcome),
    )
    return ToolOutput(f"{result.package} has the focus after {result.seconds}s", data)


@tool(
    name="launch_app",
    title="Launch an app",
    risk=Risk.ACTION,
    input=LaunchArgs,
    output=Launched,
    example={"package": "com.example.app"},
)
async def launch_app(call: ToolCall, args: LaunchArgs) -> ToolOutput:
    """Start an app and wait until its window has the focus; a crash or ANR is the error at
    once, with its root cause."""
    return await _launch(call, args)


@tool(
    name="stop_app",
    title="Force-stop an app",
    risk=Risk.ACTION,
    input=StopArgs,
    output=Stopped,
    example={"package": "com.example.app"},
)
async def stop_app(call: ToolCall, args: StopArgs) -> ToolOutput:
    """Force-stop an app (unsaved state is lost) and check its process is gone."""
    await call.run(ops.stop, call.client, args.package)
    return ToolOutput(f"{args.package} stopped", Stopped(package=args.package))


@tool(
    name="restart_app",
    title="Restart an app",
    risk=Risk.ACTION,
    input=LaunchArgs,
    output=Launched,
    example={"package": "com.example.app"},
)
async def restart_app(call: ToolCall, args: LaunchArgs) -> ToolOutput:
    """Force-stop, then launch_app."""
    await call.run(ops.stop, call.client, args.package)
    return await _launch(call, args)


def _focus_fields(seen: WindowFocus) -> dict[str, str | None]:
    return {
        "package": seen.package,
        "activity": seen.activity,
        "window": seen.current_focus,
        "dialog": seen.dialog,
    }


@tool(
    name="open_deep_link",
    title="Open a deep link",
    risk=Risk.ACTION,
    input=DeepLinkArgs,
    output=Opened,
    example={"uri": "https://example.com/item/42", "package": "com.example.app"},
)
async def open_deep_link(call: ToolCall, args: DeepLinkArgs) -> ToolOutput:
    """Open a URI (VIEW intent) and wait until its activity has the focus; a crash or ANR is
    the error, as for launch_app."""
    packages = (args.package,) if args.package else ()
    seen, outcome = await run_watched(
        call,
        Watch(packages=packages, settle=0),
        ops.open_deep_link,
        call.client,
        args.uri,
        args.package,
    )
    data = Opened(package=seen.package, activity=seen.activity, **outcome_fields(outcome))
    return ToolOutput(f"opened; focused: {seen.current_focus}", data)


@tool(
    name="current_activity",
    title="Current activity",
    risk=Risk.READ,
    input=DeviceArgs,
    output=ActivityInfo,
    example={},
)
async def current_activity(call: ToolCall, args: DeviceArgs) -> ToolOutput:
    """The focused app, activity and window, and each task's activity stack."""
    seen = await call.run(ops.focus, call.client)
    stack = await call.run(ops.activity_stack, call.client)
    tasks = [[entry.component.short for entry in task.activities] for task in stack.tasks[:8]]
    data = ActivityInfo(**_focus_fields(seen), tasks=tasks)
    return ToolOutput(f"focused: {seen.current_focus or 'nothing'}", data)


TOOLS = [launch_app, stop_app, restart_app, open_deep_link, current_activity]
