"""The seam to the MCP SDK's tool machinery: one SDK `Tool` per enabled `ToolSpec`.

We publish our own compact schemas and validate arguments ourselves (so that bad arguments
come back in our envelope with ``invalid_arguments`` and a field list, instead of the SDK's
plain-text error): the SDK-side argument model therefore passes the raw arguments through
untouched, and the handler returns a finished `CallToolResult` (or `InputRequiredResult`).
The published name, description, schema and annotations come from the tool's catalogue entry
(`adbwire.mcp.catalogue`), so listing the tools imports none of them.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp_types import CallToolResult, InputRequiredResult
from pydantic import model_validator

from adbwire.mcp.catalogue import ToolEntry
from adbwire.mcp.registry import ToolSpec
from adbwire.mcp.results import envelope
from adbwire.mcp.results.envelope import ErrorCode, ToolFailure
from adbwire.mcp.server.app import App

log = logging.getLogger(__name__)


class _RawArguments(ArgModelBase):
    arguments: dict[str, Any]

    @model_validator(mode="before")
    @classmethod
    def _wrap(cls, data: Any) -> Any:
        return {"arguments": dict(data) if isinstance(data, dict) else {}}


# No output schema is published: every result carries its structured content and the same
# JSON in its text block, and its fields are listed in docs/tools.md. Spelling them out in
# tools/list cost a third of the catalogue an agent reads at the start of every session (and
# even a bare {"type": "object"} costs 2 KB over 60 tools).
OUTPUT_SCHEMA = None


def build_tool(app: App, entry: ToolEntry, spec: ToolSpec | None = None) -> Tool:
    """The SDK tool publishing `entry`; its spec is `spec`, or the family's, imported and
    checked against the entry at the first call."""
    resolved: list[ToolSpec] = []

    async def call(
        arguments: dict[str, Any], ctx: Context[Any, Any]
    ) -> CallToolResult | InputRequiredResult:
        if not resolved:
            try:
                # Off the event loop: a family and the runtime take 80-180 ms each to import,
                # which would hold every other call and session of this server meanwhile.
                loaded = await anyio.to_thread.run_sync(_load, entry, spec)
            except Exception:  # a stale catalogue, a family that fails to import: bugs
                log.exception("tool %s cannot run", entry.name)
                return envelope.failure(
                    ToolFailure(
                        ErrorCode.INTERNAL_ERROR,
                        f"{entry.name} failed because of a bug in adbwire; "
                        "the server log has the details",
                    )
                )
            resolved[:] = [loaded]
        from adbwire.mcp import runtime  # noqa: PLC0415 - imported by _load, off the loop

        return await runtime.invoke(app, resolved[0], arguments, ctx)

    call.__name__ = entry.name
    return Tool(
        fn=call,
        name=entry.name,
        title=None,
        description=entry.description,
        parameters=entry.input_schema,
        fn_metadata=FuncMetadata(arg_model=_RawArguments, output_schema=OUTPUT_SCHEMA),
        is_async=True,
        context_kwarg="ctx",
        annotations=entry.annotations,
    )


def _load(entry: ToolEntry, spec: ToolSpec | None) -> ToolSpec:
    """What a tool's first call needs: the runtime (the device layer) and its spec."""
    from adbwire.mcp import runtime  # noqa: F401, PLC0415 - not to list the tools

    return entry.load_spec() if spec is None else spec
