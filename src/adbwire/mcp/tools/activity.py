"""The activity stack and the fragments of an app's resumed activity."""

from __future__ import annotations

from adbwire.device import activity_stack as ops
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import DeviceArgs, Package, Result

MAX_TASKS = 50
MAX_ACTIVITIES = 50
MAX_FRAGMENTS = 100
NO_FRAGMENT_MANAGER = (
    "not available: the activity has no fragment manager (a Compose-only or plain-View screen)"
)


class StackEntry(Result):
    activity: str
    state: str | None = None


class Task(Result):
    id: int
    type: str | None = None
    visible: bool | None = None
    activities: list[StackEntry]


class Stack(Result):
    resumed: str | None = None
    tasks: list[Task]
    omitted: int = 0
    """Activities past the caps (of the tasks shown or left out) that are not listed."""


class FragmentArgs(DeviceArgs):
    package: Package


class FragmentRow(Result):
    name: str
    id: str | None = None
    tag: str | None = None
    hidden: bool | None = None
    state: int | None = None
    depth: int
    parent: str | None = None


class Fragments(Result):
    activity: str
    resumed: bool | None = None
    available: bool
    fragments: list[FragmentRow]
    omitted: int = 0


@tool(
    name="activity_stack",
    title="Activity stack",
    risk=Risk.READ,
    input=DeviceArgs,
    output=Stack,
    example={},
    full_only=True,
)
async def activity_stack(call: ToolCall, args: DeviceArgs) -> ToolOutput:
    """Tasks top first, their activities top first with lifecycle state."""
    stack = await call.run(ops.activity_stack, call.client)
    tasks = [
        Task(
            id=task.task_id,
            type=task.activity_type,
            visible=task.visible,
            activities=[
                StackEntry(activity=entry.component.short, state=entry.state)
                for entry in task.activities[:MAX_ACTIVITIES]
            ],
        )
        for task in stack.tasks[:MAX_TASKS]
    ]
    resumed = stack.resumed.short if stack.resumed else None
    shown = sum(len(task.activities) for task in tasks)
    everything = sum(len(task.activities) for task in stack.tasks)
    data = Stack(resumed=resumed, tasks=tasks, omitted=everything - shown)
    return ToolOutput(f"{len(tasks)} task(s), resumed {resumed or 'none'}", data)


@tool(
    name="current_fragments",
    title="Fragments of an app",
    risk=Risk.READ,
    input=FragmentArgs,
    output=Fragments,
    example={"package": "com.example.app"},
    full_only=True,
)
async def current_fragments(call: ToolCall, args: FragmentArgs) -> ToolOutput:
    """Fragments of the package's resumed activity; available=false on Compose screens."""
    found = await call.run(ops.current_fragments, call.client, args.package)
    activity = found.activity
    rows = [
        FragmentRow(
            name=f.name,
            id=f.fragment_id,
            tag=f.tag,
            hidden=f.hidden,
            state=f.state,
            depth=f.depth,
            parent=f.parent,
        )
        for f in activity.fragments[:MAX_FRAGMENTS]
    ]
    data = Fragments(
        activity=activity.component,
        resumed=activity.resumed,
        available=activity.fragment_host,
        fragments=rows,
        omitted=len(activity.fragments) - len(rows),
    )
    if not activity.fragment_host:
        return ToolOutput(f"{activity.component}: {NO_FRAGMENT_MANAGER}", data)
    visible = [r.name for r in rows if not r.hidden]
    return ToolOutput(f"{activity.component}: {', '.join(visible) or 'no fragment'}", data)


TOOLS = [activity_stack, current_fragments]
