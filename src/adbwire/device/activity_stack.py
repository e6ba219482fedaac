"""The activity stack (tasks, their activities and states) and an activity's fragments."""

from __future__ import annotations

from dataclasses import dataclass, replace

from adbwire.device import commands
from adbwire.device.errors import NotFoundError
from adbwire.device.parsers._text import find_error_line
from adbwire.device.parsers.activities import ActivityStack, TaskInfo, parse_activities
from adbwire.device.parsers.fragments import (
    ActivityFragments,
    parse_activity_fragments,
    resumed_activity,
)
from adbwire.device.parsers.stack_types import task_types_from_stacks
from adbwire.wire.client import AdbClient


def activity_stack(client: AdbClient) -> ActivityStack:
    """Tasks top first, each with its activities (top first) and their states; on Android
    8-9 a task's activity type comes from its ``Stack #N: type=`` header."""
    text = commands.text(client, ["dumpsys", "activity", "activities"])
    stack = parse_activities(text)
    types = task_types_from_stacks(text)
    if not types:
        return stack
    tasks = tuple(_typed(task, types) for task in stack.tasks)
    return replace(stack, tasks=tasks)


def _typed(task: TaskInfo, types: dict[int, str]) -> TaskInfo:
    if task.activity_type is not None or task.task_id not in types:
        return task
    return replace(task, activity_type=types[task.task_id])


@dataclass(frozen=True)
class PackageFragments:
    activity: ActivityFragments
    """The resumed activity of the package (else the one printed last)."""
    activities: int
    """How many activities of the package the dump listed."""


def current_fragments(client: AdbClient, package: str) -> PackageFragments:
    """The fragments of `package`'s resumed activity, from the app's own dump."""
    result = commands.run(client, ["dumpsys", "activity", package])
    text = commands.decode(result.stdout)
    blocks = [b for b in parse_activity_fragments(text) if b.component.startswith(package + "/")]
    chosen = resumed_activity(blocks)
    if chosen is None:
        said = find_error_line(text)
        detail = f" (device said: {said[:200]})" if said else ""
        raise NotFoundError(f"{package} has no running activity to read fragments from{detail}")
    return PackageFragments(chosen, len(blocks))
