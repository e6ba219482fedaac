"""Notifications: list them (from ``dumpsys notification --noredact``) and open the shade so
that ui_tree / tap_element can read and tap an entry."""

from __future__ import annotations

from pydantic import Field

from adbwire.device import notifications as ops
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.rows import rows_text
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import DeviceArgs, Package, Result
from adbwire.mcp.tools.outcome import ActionOutcome, Watch, outcome_fields, run_watched, said

MAX_LISTED = 50


class ListArgs(DeviceArgs):
    package: Package | None = None


class Entry(Result):
    package: str
    channel: str | None
    title: str | None
    text: str | None
    time: str | None
    key: str
    ongoing: bool | None = None
    redacted: bool = False


class Listed(Result):
    count: int = Field(description="rows after the JSON (text block): a columns line, then arrays")
    more: int = 0
    note: str | None = None


class Shade(ActionOutcome):
    method: str
    shade_focused: bool | None = Field(default=None, description="the shade has the focus")


@tool(
    name="list_notifications",
    title="List notifications",
    risk=Risk.READ,
    input=ListArgs,
    output=Listed,
    example={"package": "com.example.notes"},
    full_only=True,
)
async def list_notifications(call: ToolCall, args: ListArgs) -> ToolOutput:
    """Posted notifications, newest first: package, channel, title, text, time, key; rows
    after the JSON (text block)."""
    found = await call.run(ops.list_notifications, call.client, args.package)
    shown = found[:MAX_LISTED]
    note = None
    if any(n.redacted for n in shown):
        note = "this device hides notification texts from dumpsys (title/text null)"
    entries = [Entry(**vars(n)) for n in shown]
    data = Listed(count=len(entries), more=len(found) - len(shown), note=note)
    text = rows_text(entries, tuple(Entry.model_fields))
    return ToolOutput(f"{len(found)} notifications", data, text=text)


@tool(
    name="open_notifications",
    title="Open the notification shade",
    risk=Risk.ACTION,
    input=DeviceArgs,
    output=Shade,
    example={},
    idempotent=True,
    full_only=True,
)
async def open_notifications(call: ToolCall, args: DeviceArgs) -> ToolOutput:
    """Open the notification shade (its entries: ui_tree, tap_element)."""
    shade, outcome = await run_watched(call, Watch(), ops.open_notifications, call.client)
    fields = outcome_fields(outcome)
    fields["window"] = fields["window"] or shade.focus
    data = Shade(method=shade.method, shade_focused=shade.shade_focused, **fields)
    opened = "open" if shade.shade_focused else "requested"
    return ToolOutput(f"shade {opened}{said(outcome)}", data)


TOOLS = [list_notifications, open_notifications]
