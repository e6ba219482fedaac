"""Log tools: read logcat (paged) and clear it; crashes are in ``crashes``."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from adbwire.device import logs as ops
from adbwire.device import validate
from adbwire.device.parsers import LogEntry
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.text_lines import one_line
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import Cursor, DeviceArgs, Package, Result, on

Buffer = Literal["main", "system", "crash", "events", "radio", "kernel"]
MAX_PAGE_CHARS = 256 * 1024
"""A page of lines ends here too, whatever max_lines asks (a line may be 4 KB)."""
Level = Literal["V", "D", "I", "W", "E", "F"]
Tag = Annotated[str, AfterValidator(validate.log_tag), Field(max_length=64)]
Since = Annotated[
    str,
    AfterValidator(ops.check_since),
    Field(max_length=32, description="'MM-DD HH:MM:SS.mmm' or epoch seconds"),
]


class ReadLogcatArgs(DeviceArgs):
    buffers: list[Buffer] = Field(default=["main", "system", "crash"], max_length=6)
    min_level: Level = "V"
    tag: Tag | None = None
    package: Package | None = None
    pid: int | None = Field(default=None, ge=1, le=4194304)
    since: Since | None = None
    max_lines: int = Field(default=200, ge=1, le=2000)
    cursor: Cursor | None = None


class LogPage(Result):
    count: int = Field(description="lines after the JSON, one each: time pid level tag: message")
    next_cursor: str | None = Field(default=None, description="older lines")
    remaining: int = 0
    note: str | None = None


class ClearArgs(DeviceArgs):
    buffers: list[Buffer] = Field(default=["main", "system", "crash"], max_length=6)


class Cleared(Result):
    buffers: list[str]


def log_text(entry: LogEntry) -> str:
    """One entry as one line of the text block (a message never spans lines)."""
    return one_line(
        f"{entry.timestamp or '-'} {entry.pid} {entry.level} {entry.tag}: {entry.message}"
    )


@tool(
    name="read_logcat",
    title="Read logcat",
    risk=Risk.READ,
    input=ReadLogcatArgs,
    output=LogPage,
    example={"min_level": "E", "package": "com.example.app", "max_lines": 100},
)
async def read_logcat(call: ToolCall, args: ReadLogcatArgs) -> ToolOutput:
    """Log lines filtered by buffer, level, tag, package (also after it died), pid or time,
    a line each after the JSON (text block). Newest page first; next_cursor pages back."""
    note = None
    if args.cursor:
        page = call.app.pager.next_page("read_logcat", args.cursor)
    else:
        query = ops.LogQuery(
            buffers=tuple(args.buffers),
            min_level=args.min_level,
            tag=args.tag,
            package=args.package,
            pid=args.pid,
            since=args.since,
        )
        found = await call.run(ops.read_logcat, call.client, query)
        note = found.note
        lines = [log_text(entry) for entry in found.entries]
        size = sum(len(line) for line in lines)
        page = call.app.pager.paginate(
            "read_logcat",
            lines,
            args.max_lines,
            newest_first=True,
            size=size,
            max_chars=MAX_PAGE_CHARS,
        )
    data = LogPage(
        count=len(page.items), next_cursor=page.next_cursor, remaining=page.remaining, note=note
    )
    summary = f"{len(page.items)} line(s), {page.remaining} more{on(call.serial)}"
    return ToolOutput(summary, data, text="\n".join(page.items) or None)


@tool(
    name="clear_logcat",
    title="Clear logcat",
    risk=Risk.ACTION,
    input=ClearArgs,
    output=Cleared,
    example={"buffers": ["main", "crash"]},
)
async def clear_logcat(call: ToolCall, args: ClearArgs) -> ToolOutput:
    """Clear log buffers (before reproducing a bug)."""
    await call.run(ops.clear_logcat, call.client, tuple(args.buffers))
    return ToolOutput(f"cleared {', '.join(args.buffers)}", Cleared(buffers=list(args.buffers)))


TOOLS = [read_logcat, clear_logcat]
