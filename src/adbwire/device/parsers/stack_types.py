"""The activity type of each task in old ``dumpsys activity activities`` dumps.

Android 10+ prints ``type=standard`` (home, recents, assistant, undefined) on each
``Task{...}`` line; Android 8-9 print it on the enclosing ``Stack #N: type=... mode=...``
line instead, and Android 7 and older not at all. This maps task ids to the type of their
stack, so the old format answers the same question as the new one where it can.
"""

from __future__ import annotations

import re

from adbwire.device.parsers._text import lines_of

_STACK = re.compile(r"^\s*Stack #\d+:.*?\btype=(\w+)")
_TASK_RECORD = re.compile(r"^\s*(?:\*\s*)?TaskRecord\{[0-9a-f]+ #(\d+)\b")


def task_types_from_stacks(text: str) -> dict[int, str]:
    """task id -> its stack's activity type, from ``Stack #N: type=X`` headers."""
    types: dict[int, str] = {}
    current: str | None = None
    for line in lines_of(text):
        stack = _STACK.match(line)
        if stack is not None:
            current = stack.group(1)
            continue
        if line and not line[0].isspace():
            current = None  # a new top-level section: stacks are over
            continue
        task = _TASK_RECORD.match(line)
        if task is not None and current is not None:
            types.setdefault(int(task.group(1)), current)
    return types
