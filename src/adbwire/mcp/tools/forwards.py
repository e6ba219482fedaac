"""Port forwarding: a loopback port on this host relayed to a device service."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from adbwire.device.forwards import ForwardEntry, ForwardTable
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.server.app import App
from adbwire.mcp.tools.common import Args, DeviceArgs, Result
from adbwire.wire.services.forward import check_remote

Remote = Annotated[str, AfterValidator(check_remote), Field(max_length=200)]


def table(app: App) -> ForwardTable:
    """The server's forwards, shared by every session (closed with the App)."""
    found = app.services.get("forwards")
    if not isinstance(found, ForwardTable):
        found = app.services["forwards"] = ForwardTable()
    return found


class ForwardArgs(DeviceArgs):
    remote: Remote = Field(description="tcp:PORT or localabstract:NAME")
    local_port: int = Field(default=0, ge=0, le=65535, description="0 picks a free port")


class ForwardInfo(Result):
    serial: str
    local: str = Field(description="tcp:PORT on 127.0.0.1")
    remote: str
    connections: int = 0


class ForwardList(Result):
    forwards: list[ForwardInfo]


class RemoveArgs(Args):
    local_port: int = Field(ge=1, le=65535)


def _info(entry: ForwardEntry) -> ForwardInfo:
    return ForwardInfo(
        serial=entry.serial, local=entry.local, remote=entry.remote, connections=entry.connections
    )


def _listing(app: App) -> ForwardList:
    return ForwardList(forwards=[_info(entry) for entry in table(app).entries()])


@tool(
    name="forward_port",
    title="Forward a port",
    risk=Risk.ACTION,
    input=ForwardArgs,
    output=ForwardInfo,
    example={"remote": "tcp:8080", "local_port": 0},
)
async def forward_port(call: ToolCall, args: ForwardArgs) -> ToolOutput:
    """Relay a 127.0.0.1 port to a device service."""
    assert call.serial is not None
    forwards = table(call.app)
    entry = await call.run(forwards.add, call.serial, call.client, args.local_port, args.remote)
    return ToolOutput(f"127.0.0.1:{entry.port} -> {entry.remote}", _info(entry))


@tool(
    name="list_forwards",
    title="List port forwards",
    risk=Risk.READ,
    input=Args,
    output=ForwardList,
    example={},
    needs_device=False,
)
async def list_forwards(call: ToolCall, args: Args) -> ToolOutput:
    """The open port forwards of every device."""
    listing = _listing(call.app)
    return ToolOutput(f"{len(listing.forwards)} forward(s)", listing)


@tool(
    name="remove_forward",
    title="Remove a port forward",
    risk=Risk.ACTION,
    input=RemoveArgs,
    output=ForwardList,
    example={"local_port": 8080},
    needs_device=False,
)
async def remove_forward(call: ToolCall, args: RemoveArgs) -> ToolOutput:
    """Stop listening on a forwarded port and close its connections."""
    await call.run(table(call.app).remove, args.local_port)
    return ToolOutput(f"removed tcp:{args.local_port}", _listing(call.app))


TOOLS = [forward_port, list_forwards, remove_forward]
