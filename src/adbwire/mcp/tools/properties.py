"""System property tools."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from adbwire.device import properties as ops
from adbwire.device import validate
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.rows import rows_text
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import Cursor, DeviceArgs, PropertyName, Result, on

PAGE_SIZE = 200


def _prefix(value: str) -> str:
    return validate.property_name(value) if value else value


Prefix = Annotated[str, AfterValidator(_prefix), Field(max_length=128)]


class GetPropertyArgs(DeviceArgs):
    name: PropertyName


class PropertyValue(Result):
    name: str
    value: str | None = Field(default=None, description="absent when unset")


class ListPropertiesArgs(DeviceArgs):
    prefix: Prefix = Field(default="", description="e.g. 'ro.build.'")
    cursor: Cursor | None = None


class Property(Result):
    name: str
    value: str


class PropertyList(Result):
    count: int = Field(description="after the JSON (text block): a columns line, then arrays")
    next_cursor: str | None = None
    remaining: int = 0


class SetPropertyArgs(DeviceArgs):
    name: PropertyName
    value: str = Field(max_length=92)


@tool(
    name="get_property",
    title="Get a system property",
    risk=Risk.READ,
    input=GetPropertyArgs,
    output=PropertyValue,
    example={"name": "ro.product.model"},
)
async def get_property(call: ToolCall, args: GetPropertyArgs) -> ToolOutput:
    """Read one system property (getprop)."""
    value = await call.run(ops.get_property, call.client, args.name)
    return ToolOutput(f"{args.name}={value or ''}", PropertyValue(name=args.name, value=value))


@tool(
    name="list_properties",
    title="List system properties",
    risk=Risk.READ,
    input=ListPropertiesArgs,
    output=PropertyList,
    example={"prefix": "ro.build.version."},
)
async def list_properties(call: ToolCall, args: ListPropertiesArgs) -> ToolOutput:
    """System properties whose name starts with prefix, rows after the JSON (text block);
    paged with a cursor."""
    pager = call.app.pager
    if args.cursor:
        page = pager.next_page("list_properties", args.cursor)
    else:
        props = await call.run(ops.list_properties, call.client, args.prefix)
        items = sorted(props.items())
        page = pager.paginate("list_properties", items, PAGE_SIZE, size=len(str(items)))
    data = PropertyList(
        count=len(page.items), next_cursor=page.next_cursor, remaining=page.remaining
    )
    rows = [Property(name=name, value=value) for name, value in page.items]
    summary = f"{len(page.items)} properties{on(call.serial)}"
    return ToolOutput(summary, data, text=rows_text(rows, ("name", "value")))


@tool(
    name="set_property",
    title="Set a system property",
    risk=Risk.ACTION,
    input=SetPropertyArgs,
    output=PropertyValue,
    example={"name": "debug.layout", "value": "true"},
)
async def set_property(call: ToolCall, args: SetPropertyArgs) -> ToolOutput:
    """Set a debug.*/log.tag.* property and read it back; other names are refused."""
    ops.check_settable(args.name)
    value = await call.run(ops.set_property, call.client, args.name, args.value)
    return ToolOutput(f"{args.name} is now {value!r}", PropertyValue(name=args.name, value=value))


TOOLS = [get_property, list_properties, set_property]
