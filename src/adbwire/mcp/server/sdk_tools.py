"""The seam to the MCP SDK's tool machinery: one SDK `Tool` per enabled `ToolSpec`.

We publish our own compact schemas and validate arguments ourselves (so that bad arguments
come back in our envelope with ``invalid_arguments`` and a field list, instead of the SDK's
plain-text error): the SDK-side argument model therefore passes the raw arguments through
untouched, and the handler returns a finished `CallToolResult` (or `InputRequiredResult`).
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp_types import CallToolResult, InputRequiredResult
from pydantic import model_validator

from adbwire.mcp import runtime
from adbwire.mcp.registry import ToolSpec
from adbwire.mcp.results.schemas import model_schema
from adbwire.mcp.server.app import App


class _RawArguments(ArgModelBase):
    arguments: dict[str, Any]

    @model_validator(mode="before")
    @classmethod
    def _wrap(cls, data: Any) -> Any:
        return {"arguments": dict(data) if isinstance(data, dict) else {}}


def input_schema(spec: ToolSpec) -> dict[str, Any]:
    return model_schema(spec.input_model, "validation")


# No output schema is published: every result carries its structured content and the same
# JSON in its text block, and its fields are listed in docs/tools.md. Spelling them out in
# tools/list cost a third of the catalogue an agent reads at the start of every session (and
# even a bare {"type": "object"} costs 2 KB over 60 tools).
OUTPUT_SCHEMA = None


def build_tool(app: App, spec: ToolSpec) -> Tool:
    async def call(
        arguments: dict[str, Any], ctx: Context[Any, Any]
    ) -> CallToolResult | InputRequiredResult:
        return await runtime.invoke(app, spec, arguments, ctx)

    call.__name__ = spec.name
    return Tool(
        fn=call,
        name=spec.name,
        title=None,
        description=spec.description,
        parameters=input_schema(spec),
        fn_metadata=FuncMetadata(arg_model=_RawArguments, output_schema=OUTPUT_SCHEMA),
        is_async=True,
        context_kwarg="ctx",
        annotations=spec.annotations,
    )
