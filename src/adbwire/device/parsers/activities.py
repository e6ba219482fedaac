"""``dumpsys activity activities``: the resumed activity and the task stack."""

from __future__ import annotations

import re
from dataclasses import dataclass

from adbwire.device.parsers._text import indent_of, lines_of, raise_if_error_output
from adbwire.device.parsers.component import Component, component_in_activity_record

# Android 10+: "* Task{157c3a8 #12 type=standard A=10090:com.x U=0 visible=true ... sz=1}"
# Android 4-9: "* TaskRecord{77fa9e9 #2355 A=com.x U=0 StackId=155 sz=1}"
# Without -a, Android 7-11 list each task only under "Running activities (most recent
# first):", unstarred, its activities as "Run #N: ActivityRecord{...}" (no state lines);
# with -a that list follows the detailed one, and a task id seen twice is kept once.
_TASK = re.compile(r"^\s*(?:\* )?(?:Task|TaskRecord)\{[0-9a-f]+ #(\d+)(.*)\}\s*$")
_HIST = re.compile(r"^\s*(?:\* Hist\s+|Run\s+)#\d+: (ActivityRecord\{.*)$")
_STATE = re.compile(r"^\s*state=(\w+)")
_DISPLAY = re.compile(r"^Display #(\d+)")
_TYPE = re.compile(r"\btype=(\w+)")
_VISIBLE = re.compile(r"\bvisible=(true|false)")
_AFFINITY = re.compile(r"\bA[= ](?:\d+:)?([^\s=]+)")
# Most precise first: the top resumed activity (Android 10+), a stack's resumed activity
# (Android 4-9), the per-area list (Android 12+), the focused activity (Android 4-8).
_RESUMED_KEYS = ("ResumedActivity:", "mResumedActivity:", "Resumed:", "mFocusedActivity:")


@dataclass(frozen=True)
class ActivityEntry:
    """One activity in a task, with its lifecycle state (``RESUMED``, ``STOPPED``...)."""

    component: Component
    state: str | None


@dataclass(frozen=True)
class TaskInfo:
    """A task that holds activities, its activities listed top first."""

    task_id: int
    display_id: int | None
    activity_type: str | None
    visible: bool | None
    affinity: str | None
    activities: tuple[ActivityEntry, ...]

    @property
    def top(self) -> Component:
        """The activity on top of this task."""
        return self.activities[0].component


@dataclass(frozen=True)
class ActivityStack:
    """What ``dumpsys activity activities`` says: tasks listed top first, and the resumed one."""

    resumed: Component | None
    tasks: tuple[TaskInfo, ...]

    @property
    def focused(self) -> Component | None:
        """The resumed activity, else the top activity of the top task."""
        if self.resumed is not None:
            return self.resumed
        return self.tasks[0].top if self.tasks else None


@dataclass
class _TaskBuilder:
    order: int
    indent: int
    task_id: int
    display_id: int | None
    header: str
    activities: list[ActivityEntry]


def parse_activities(text: str) -> ActivityStack:
    """Parse ``dumpsys activity activities`` (Android 4.x to 14 layouts).

    Raises :class:`~adbwire.errors.DeviceCommandError` when the device answered with an error
    such as ``Unknown command`` instead of a dump.
    """
    raise_if_error_output("dumpsys activity activities", text)
    lines = lines_of(text)
    return ActivityStack(resumed=_find_resumed(lines), tasks=_collect_tasks(lines))


def _find_resumed(lines: list[str]) -> Component | None:
    candidates: dict[str, Component] = {}
    for line in lines:
        stripped = line.strip()
        for key in _RESUMED_KEYS:
            if stripped.startswith(key) and key not in candidates:
                component = component_in_activity_record(stripped[len(key) :])
                if component is not None:
                    candidates[key] = component
    for key in _RESUMED_KEYS:
        if key in candidates:
            return candidates[key]
    return None


def _collect_tasks(lines: list[str]) -> tuple[TaskInfo, ...]:
    # Only the "Display #N (activities from top to bottom)" part lists tasks once; later
    # sections (ActivityTaskSupervisor state, window tokens) repeat them in other orders.
    open_tasks: list[_TaskBuilder] = []
    finished: list[_TaskBuilder] = []
    display_id: int | None = None
    # Android 4.0-4.3 printed no "Display #" line: the whole dump is the listing.
    in_listing = not any(_DISPLAY.match(line) for line in lines)
    last_entry: tuple[_TaskBuilder, int] | None = None  # to attach the "state=" that follows
    for line in lines:
        if line and not line[0].isspace():
            display = _DISPLAY.match(line)
            if display is not None:
                display_id = int(display.group(1))
                in_listing = True
            elif display_id is not None:
                in_listing = False
            continue
        if not in_listing:
            continue
        indent = indent_of(line)
        task = _TASK.match(line)
        if task is not None:
            while open_tasks and open_tasks[-1].indent >= indent:
                finished.append(open_tasks.pop())
            open_tasks.append(
                _TaskBuilder(
                    len(finished) + len(open_tasks),
                    indent,
                    int(task.group(1)),
                    display_id,
                    task.group(2),
                    [],
                )
            )
            last_entry = None
            continue
        hist = _HIST.match(line)
        if hist is not None:
            owner = next((t for t in reversed(open_tasks) if t.indent < indent), None)
            component = component_in_activity_record(hist.group(1))
            if owner is not None and component is not None:
                owner.activities.append(ActivityEntry(component, None))
                last_entry = (owner, len(owner.activities) - 1)
            continue
        state = _STATE.match(line)
        if state is not None and last_entry is not None:
            owner, position = last_entry
            owner.activities[position] = ActivityEntry(
                owner.activities[position].component, state.group(1)
            )
            last_entry = None
    finished.extend(reversed(open_tasks))
    ordered = sorted(finished, key=lambda t: t.order)  # as printed: top to bottom
    seen: set[int] = set()
    tasks = []
    for built in ordered:
        if built.activities and built.task_id not in seen:
            seen.add(built.task_id)
            tasks.append(_freeze(built))
    return tuple(tasks)


def _freeze(task: _TaskBuilder) -> TaskInfo:
    activity_type = _TYPE.search(task.header)
    visible = _VISIBLE.search(task.header)
    affinity = _AFFINITY.search(task.header)
    return TaskInfo(
        task_id=task.task_id,
        display_id=task.display_id,
        activity_type=activity_type.group(1) if activity_type else None,
        visible=(visible.group(1) == "true") if visible else None,
        affinity=affinity.group(1) if affinity else None,
        activities=tuple(task.activities),
    )
