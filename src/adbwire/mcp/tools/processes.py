"""Process list: pid, parent, user, name, state, resident memory; filtered and paged."""

from __future__ import annotations

from pydantic import Field

from adbwire.device import processes as ops
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.rows import rows_text
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import Cursor, DeviceArgs, Package, Result, on

PAGE_SIZE = 200
COLUMNS = ("pid", "ppid", "user", "state", "rss_kb", "name")


class ProcessArgs(DeviceArgs):
    package: Package | None = None
    name: str | None = Field(default=None, max_length=100, description="substring")
    cursor: Cursor | None = None


class ProcessRow(Result):
    pid: int
    ppid: int | None = None
    user: str | None = None
    name: str
    state: str | None = None
    rss_kb: int | None = None


class ProcessList(Result):
    count: int = Field(
        description="rows after the JSON (text block): a columns line, then one array each"
    )
    next_cursor: str | None = None
    remaining: int = 0


@tool(
    name="list_processes",
    title="List processes",
    risk=Risk.READ,
    input=ProcessArgs,
    output=ProcessList,
    example={"package": "com.example.app"},
    full_only=True,
)
async def list_processes(call: ToolCall, args: ProcessArgs) -> ToolOutput:
    """Processes (pid, user, name, state, RSS), rows after the JSON (text block); by
    package or name; paged."""
    if args.cursor:
        page = call.app.pager.next_page("list_processes", args.cursor)
    else:
        listing = await call.run(ops.list_processes, call.client)
        chosen = ops.select(listing.processes, package=args.package, name=args.name)
        rows = [
            ProcessRow(
                pid=p.pid, ppid=p.ppid, user=p.user, name=p.name, state=p.state, rss_kb=p.rss_kb
            )
            for p in chosen
        ]
        page = call.app.pager.paginate("list_processes", rows, PAGE_SIZE, size=64 * len(rows))
    data = ProcessList(
        count=len(page.items), next_cursor=page.next_cursor, remaining=page.remaining
    )
    summary = f"{len(page.items) + page.remaining} process(es){on(call.serial)}"
    return ToolOutput(summary, data, text=rows_text(page.items, COLUMNS))


TOOLS = [list_processes]
