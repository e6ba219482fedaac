"""UI action tools: tap, long-press, type into and scroll to an element named by a query.

Each acts on exactly one element (matched as ``find_elements`` in ``ui.py``) or refuses
with the candidates, and reports what the action did to the screen.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from adbwire.device.ui import actions as ops
from adbwire.device.ui import (
    element_line,
)
from adbwire.device.ui.select import parse_query
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import DeviceArgs
from adbwire.mcp.tools.outcome import ActionOutcome, outcome_fields, problem_failure, said
from adbwire.mcp.tools.ui_common import (
    Acted,
    ElementId,
    Query,
    Target,
    acted,
    in_range,
    previous_tree,
    remember,
    run_ui,
)


@tool(
    name="tap_element",
    title="Tap an element",
    risk=Risk.ACTION,
    input=Target,
    output=Acted,
    example={"query": "Save"},
    idempotent=False,
)
async def tap_element(call: ToolCall, args: Target) -> ToolOutput:
    """Tap the one element matching (as find_elements), at its clickable ancestor; several:
    error listing them."""
    result = await run_ui(
        call,
        ops.tap_element,
        call.client,
        args.selector(),
        previous=previous_tree(call),
    )
    remember(call, result.before.hierarchy)
    return acted(result, "tapped")


@tool(
    name="long_press_element",
    title="Long-press an element",
    risk=Risk.ACTION,
    input=Target,
    output=Acted,
    example={"query": "Groceries"},
    idempotent=False,
)
async def long_press_element(call: ToolCall, args: Target) -> ToolOutput:
    """Long-press the one matching element, as tap_element."""
    result = await run_ui(
        call,
        ops.long_press_element,
        call.client,
        args.selector(),
        previous=previous_tree(call),
    )
    remember(call, result.before.hierarchy)
    return acted(result, "long-pressed")


class TypeArgs(DeviceArgs):
    text: str = Field(max_length=10000)
    query: Query | None = Field(default=None, description="the field; default: focused")
    clear: bool = False


class TypedOut(ActionOutcome):
    typed: int
    field: str | None = None
    verified: bool


@tool(
    name="type_text",
    title="Type text",
    risk=Risk.ACTION,
    input=TypeArgs,
    output=TypedOut,
    example={"text": "hello world", "query": "Title"},
    idempotent=False,
    secret_args=("text",),
)
async def type_text(call: ToolCall, args: TypeArgs) -> ToolOutput:
    """Type ASCII text literally, into the field query matches (tapped first) or the focused
    one."""
    result = await run_ui(
        call,
        ops.type_text,
        call.client,
        args.text,
        selector=parse_query(args.query) if args.query else None,
        clear=args.clear,
        previous=previous_tree(call),
    )
    failure = problem_failure(result.outcome)
    if failure is not None:
        raise failure
    data = TypedOut(
        typed=result.typed.characters,
        field=element_line(result.field) if result.field else None,
        verified=result.verified,
        **outcome_fields(result.outcome, note=result.note),
    )
    state = "verified" if result.verified else "not verified"
    return ToolOutput(f"typed {data.typed} characters ({state}){said(result.outcome)}", data)


class ScrollArgs(Target):
    direction: Literal["up", "down", "left", "right"] | None = Field(
        default=None, description="of new content; default down"
    )
    container: ElementId | None = None
    max_swipes: Annotated[int, in_range(0, 30)] = 8


class Scrolled(ActionOutcome):
    found: bool
    element: str | None = None
    swipes: int


@tool(
    name="scroll_to_element",
    title="Scroll to an element",
    risk=Risk.ACTION,
    input=ScrollArgs,
    output=Scrolled,
    example={"query": "Books", "direction": "down"},
    idempotent=False,
)
async def scroll_to_element(call: ToolCall, args: ScrollArgs) -> ToolOutput:
    """Swipe a scrollable container until the element shows."""
    result = await run_ui(
        call,
        ops.scroll_to_element,
        call.client,
        args.selector(),
        direction=args.direction or "down",
        container=args.container,
        max_swipes=args.max_swipes,
        previous=previous_tree(call),
    )
    remember(call, result.snapshot.hierarchy)
    line = element_line(result.element) if result.element else None
    fields: dict[str, Any] = {"note": result.reason}
    if result.outcome is not None:
        failure = problem_failure(result.outcome)
        if failure is not None:
            raise failure
        fields = outcome_fields(result.outcome, note=result.reason)
    data = Scrolled(found=result.found, element=line, swipes=result.swipes, **fields)
    return ToolOutput(f"{'found' if result.found else 'not found'} after {result.swipes}", data)


TOOLS = [tap_element, long_press_element, type_text, scroll_to_element]
