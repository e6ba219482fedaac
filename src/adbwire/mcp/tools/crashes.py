"""Crash history: every Java crash, native crash and ANR the log still holds, and the
newest one, from one parser (``adbwire.device.parsers.crashes.crash_history``).

Native crashes join libc's ``Fatal signal`` line with crash_dump's tombstone (the process
named between ``>>> <<<``, the signal, its cause and the ``#NN pc`` frames). The log is a
ring buffer: what it no longer holds is not listed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from adbwire.device import logs as ops
from adbwire.device.parsers import Anr, Crash
from adbwire.device.parsers.crash_stack import shown_stack
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.text_lines import one_line
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import Cursor, DeviceArgs, Package, Result, on

Kind = Literal["java", "native", "anr"]
STACK_LINES = 12
LAST_CRASH_LINES = 30


class CrashesArgs(DeviceArgs):
    package: Package | None = None
    kinds: list[Kind] | None = Field(default=None, max_length=3, description="default: all")
    max_items: int = Field(default=10, ge=1, le=50)
    cursor: Cursor | None = None


class CrashItem(Result):
    kind: str
    time: str | None = None
    process: str | None = None
    pid: int | None = None
    cause: str
    frames: int = Field(default=0, description="its stack lines in the text block")


class CrashList(Result):
    crashes: list[CrashItem] = Field(
        description="after the JSON (text block): '[n] kind process', then crash n's stack"
    )
    next_cursor: str | None = None
    remaining: int = 0


@dataclass(frozen=True)
class ListedCrash:
    """A crash as listed: its fields and the top of its stack (sent once, as text)."""

    item: CrashItem
    stack: tuple[str, ...]


def listed_crash(event: Crash | Anr, stack_lines: int = STACK_LINES) -> ListedCrash:
    """One crash or ANR: its root cause in a line and the top of its stack."""
    if isinstance(event, Anr):
        cause = event.reason or "not responding"
        if event.component:
            cause = f"{cause} ({event.component})"
        item = CrashItem(
            kind="anr", time=event.timestamp, process=event.process, pid=event.pid, cause=cause
        )
        return ListedCrash(item, ())
    cause = f"{event.root_cause_type}: {event.root_cause_message}".strip(": ")
    stack = shown_stack(event.stack, event.lines_cut, stack_lines)
    item = CrashItem(
        kind=event.kind,
        time=event.timestamp,
        process=event.process,
        pid=event.pid,
        cause=cause[:500],
        frames=len(stack),
    )
    return ListedCrash(item, stack)


def stacks_text(listed: list[ListedCrash]) -> str | None:
    """The text block's part: ``[n] kind process`` then crash n's stack, indented."""
    lines: list[str] = []
    for number, crash in enumerate(listed, 1):
        if crash.stack:
            lines.append(one_line(f"[{number}] {crash.item.kind} {crash.item.process or '?'}"))
            lines.extend("  " + one_line(frame) for frame in crash.stack)
    return "\n".join(lines) or None


@tool(
    name="list_crashes",
    title="Crash history",
    risk=Risk.READ,
    input=CrashesArgs,
    output=CrashList,
    example={"package": "com.example.app"},
)
async def list_crashes(call: ToolCall, args: CrashesArgs) -> ToolOutput:
    """Java crashes, native crashes (with frames) and ANRs still in the log, newest first:
    time, process, root cause; stack tops after the JSON (text block); paged."""
    if args.cursor:
        page = call.app.pager.next_page("list_crashes", args.cursor)
    else:
        events = await call.run(ops.crashes, call.client, args.package)
        kinds = set(args.kinds or ("java", "native", "anr"))
        items = [listed_crash(e) for e in events if e.kind in kinds]
        size = sum(len(c.item.cause) + sum(map(len, c.stack)) + 100 for c in items)
        page = call.app.pager.paginate("list_crashes", items, args.max_items, size=size)
    listed: list[ListedCrash] = page.items
    data = CrashList(
        crashes=[c.item for c in listed], next_cursor=page.next_cursor, remaining=page.remaining
    )
    summary = f"{len(listed)} crash(es), {page.remaining} more{on(call.serial)}"
    return ToolOutput(summary, data, text=stacks_text(listed))


class LastCrashArgs(DeviceArgs):
    package: Package | None = None


class CrashReport(Result):
    found: bool
    kind: str | None = Field(default=None, description="java or native")
    process: str | None = None
    pid: int | None = None
    time: str | None = None
    exception: str | None = None
    message: str | None = None
    root_cause: str | None = None
    frames: int = Field(default=0, description="stack lines, after the JSON (text block)")


def crash_report(crash: Crash | None) -> tuple[CrashReport, tuple[str, ...]]:
    """The newest crash's fields, and its stack (sent once, as text)."""
    if crash is None:
        return CrashReport(found=False), ()
    stack = tuple(
        one_line(line) for line in shown_stack(crash.stack, crash.lines_cut, LAST_CRASH_LINES)
    )
    cause = f"{crash.root_cause_type}: {crash.root_cause_message}".strip(": ")
    return CrashReport(
        found=True,
        kind=crash.kind,
        process=crash.process,
        pid=crash.pid,
        time=crash.timestamp,
        exception=crash.exception_type,
        message=crash.message[:500],
        root_cause=cause[:500],
        frames=len(stack),
    ), stack


@tool(
    name="last_crash",
    title="Newest crash",
    risk=Risk.READ,
    input=LastCrashArgs,
    output=CrashReport,
    example={"package": "com.example.app"},
)
async def last_crash(call: ToolCall, args: LastCrashArgs) -> ToolOutput:
    """The newest Java or native crash (of a package): root cause; its stack a line each
    after the JSON (text block)."""
    crash = await call.run(ops.newest_crash, call.client, args.package)
    report, stack = crash_report(crash)
    summary = f"crash: {report.root_cause}" if crash else "no crash found"
    return ToolOutput(summary, report, text="\n".join(stack) or None)


TOOLS = [list_crashes, last_crash]
