"""Crash history: every Java crash, native crash and ANR the log still holds, and the
newest one, from one parser (``adbwire.device.parsers.crashes.crash_history``).

Native crashes join libc's ``Fatal signal`` line with crash_dump's tombstone (the process
named between ``>>> <<<``, the signal, its cause and the ``#NN pc`` frames). The log is a
ring buffer: what it no longer holds is not listed.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from adbwire.device import logs as ops
from adbwire.device.parsers import Anr, Crash
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import Cursor, DeviceArgs, Package, Result, on

Kind = Literal["java", "native", "anr"]
STACK_LINES = 12


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
    stack: list[str] = Field(default_factory=list)


class CrashList(Result):
    crashes: list[CrashItem]
    next_cursor: str | None = None
    remaining: int = 0


def crash_item(event: Crash | Anr, stack_lines: int = STACK_LINES) -> CrashItem:
    """One crash or ANR: its root cause in a line and the top of its stack."""
    if isinstance(event, Anr):
        cause = event.reason or "not responding"
        if event.component:
            cause = f"{cause} ({event.component})"
        return CrashItem(
            kind="anr", time=event.timestamp, process=event.process, pid=event.pid, cause=cause
        )
    cause = f"{event.root_cause_type}: {event.root_cause_message}".strip(": ")
    return CrashItem(
        kind=event.kind,
        time=event.timestamp,
        process=event.process,
        pid=event.pid,
        cause=cause[:500],
        stack=[line.strip()[:300] for line in event.stack[:stack_lines]],
    )


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
    time, process, root cause, stack top; paged."""
    if args.cursor:
        page = call.app.pager.next_page("list_crashes", args.cursor)
    else:
        events = await call.run(ops.crashes, call.client, args.package)
        kinds = set(args.kinds or ("java", "native", "anr"))
        items = [crash_item(e) for e in events if e.kind in kinds]
        size = sum(len(item.cause) + 80 * len(item.stack) + 100 for item in items)
        page = call.app.pager.paginate("list_crashes", items, args.max_items, size=size)
    data = CrashList(crashes=page.items, next_cursor=page.next_cursor, remaining=page.remaining)
    return ToolOutput(f"{len(page.items)} crash(es), {page.remaining} more{on(call.serial)}", data)


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
    stack: list[str] = Field(default_factory=list)


def crash_report(crash: Crash | None) -> CrashReport:
    if crash is None:
        return CrashReport(found=False)
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
        stack=[line.strip() for line in crash.stack[:30]],
    )


@tool(
    name="last_crash",
    title="Newest crash",
    risk=Risk.READ,
    input=LastCrashArgs,
    output=CrashReport,
    example={"package": "com.example.app"},
)
async def last_crash(call: ToolCall, args: LastCrashArgs) -> ToolOutput:
    """The newest Java or native crash (of a package), with its root cause and stack."""
    crash = await call.run(ops.newest_crash, call.client, args.package)
    report = crash_report(crash)
    summary = f"crash: {report.root_cause}" if crash else "no crash found"
    return ToolOutput(summary, report)


TOOLS = [list_crashes, last_crash]
