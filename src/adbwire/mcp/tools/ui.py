"""UI tools: read the tree, find elements, act on them by what they are, check the result.

Elements are named by a ``query``: matched on id/test tag, then description, then text,
then hint (``id:``/``desc:``/``text:``/``hint:`` pick one), or an element id (``e12``) from a
recent read. Actions act on exactly one element or refuse with the candidates, and report
whether the screen changed.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Annotated, Any, Literal

from pydantic import Field

from adbwire.device.errors import RefusedError
from adbwire.device.parsers import UiElement, UiHierarchy
from adbwire.device.ui import (
    UiSnapshot,
    compact_tree,
    element_line,
    find,
    merged_labels,
    read_ui,
    tap_target,
)
from adbwire.device.ui import actions as ops
from adbwire.device.ui.checks import Expectation
from adbwire.device.ui.select import parse_query, suggest
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.rows import rows_text
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import PROFILES, Risk
from adbwire.mcp.tools.common import DeviceArgs, Result
from adbwire.mcp.tools.outcome import ActionOutcome, outcome_fields, problem_failure, said
from adbwire.mcp.tools.session_restore import disable_animations, session_of
from adbwire.mcp.tools.ui_common import (
    MAX_FOUND,
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

# ---------------------------------------------------------------- reading


class TreeArgs(DeviceArgs):
    full: bool = False
    disable_animations: bool = False


class Tree(Result):
    total: int
    framework: str
    keyboard_shown: bool | None = None
    window: str | None = None
    notes: list[str] = Field(default_factory=list)


def _tree_notes(snapshot: UiSnapshot) -> list[str]:
    notes = []
    if snapshot.framework.compose_test_tags_exposed is False:
        notes.append("Compose test tags are not exposed (app can set testTagsAsResourceId)")
    if snapshot.compressed:
        notes.append("dumped with --compressed (the screen never idled)")
    return notes


def _read_tree(call: ToolCall, args: TreeArgs, session: Hashable | None) -> UiSnapshot:
    if args.disable_animations:
        if Risk.ACTION not in PROFILES[call.app.policy.profile]:
            # Turning animations off writes device settings: not for a read-only server.
            raise RefusedError(
                f"disable_animations changes device settings; the {call.app.policy.profile} "
                "profile only reads"
            )
        assert session is not None
        disable_animations(call, session)  # restored when this session ends
    return read_ui(call.client)


@tool(name="ui_tree", title="UI tree", risk=Risk.READ, input=TreeArgs, output=Tree, example={})
async def ui_tree(call: ToolCall, args: TreeArgs) -> ToolOutput:
    """Elements on screen, a line each after the JSON (text block): id class #res-id "text"
    bounds flags; interactive only unless full."""
    session = session_of(call) if args.disable_animations else None
    snapshot = await run_ui(call, _read_tree, call, args, session)
    hierarchy = snapshot.hierarchy
    remember(call, hierarchy)
    text = compact_tree(hierarchy, interactive_only=not args.full)
    focus = snapshot.focus
    data = Tree(
        total=len(hierarchy.elements),
        framework=snapshot.framework.framework,
        keyboard_shown=snapshot.keyboard_shown,
        window=focus.current_focus if focus else None,
        notes=_tree_notes(snapshot),
    )
    shown = text.count("\n") + 1 if text else 0
    return ToolOutput(f"{shown} of {data.total} elements ({data.framework})", data, text=text)


class Found(Result):
    id: str
    line: str
    bounds: list[int]
    tap: str


class FoundList(Result):
    count: int
    matched_by: str | None = None
    elements: list[Found]
    suggestions: list[str] | None = None


def found(hierarchy: UiHierarchy, element: UiElement, merged: dict[str, str]) -> Found:
    b = element.bounds
    return Found(
        id=element.id,
        line=element_line(element, merged.get(element.id)),
        bounds=[b.left, b.top, b.right, b.bottom],
        tap=tap_target(hierarchy, element).id,
    )


@tool(
    name="find_elements",
    title="Find elements",
    risk=Risk.READ,
    input=Target,
    output=FoundList,
    example={"query": "Save"},
)
async def find_elements(call: ToolCall, args: Target) -> ToolOutput:
    """Elements matching query (id/test tag, else desc, text, hint; id:/desc:/text:/hint:
    picks one; e12 is an element id), whole value unless match=contains|regex; each with the
    tap target actions use; none: the closest labels."""
    selector = args.selector()
    snapshot = await run_ui(call, read_ui, call.client)
    hierarchy = snapshot.hierarchy
    remember(call, hierarchy)
    matches = find(hierarchy, selector)
    merged = merged_labels(hierarchy)
    shown = [found(hierarchy, e, merged) for e in matches.elements[:MAX_FOUND]]
    data = FoundList(
        count=len(matches.elements),
        matched_by=matches.matched_by,
        elements=shown,
        suggestions=suggest(hierarchy, selector) or None if not matches.elements else None,
    )
    return ToolOutput(f"{data.count} match {selector.describe()}", data)


# ---------------------------------------------------------------- acting


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


# ---------------------------------------------------------------- checking


class WaitArgs(Target):
    gone: bool = False
    timeout_s: Annotated[float, in_range(0, 120)] = 10


class Waited(Result):
    met: bool
    seconds: float
    element: str | None = None
    error: str | None = None
    suggestions: list[str] | None = None


@tool(
    name="wait_for_element",
    title="Wait for an element",
    risk=Risk.READ,
    input=WaitArgs,
    output=Waited,
    example={"query": "Saved", "timeout_s": 5},
)
async def wait_for_element(call: ToolCall, args: WaitArgs) -> ToolOutput:
    """Wait until the element shows (or is gone), up to timeout_s."""
    result = await run_ui(
        call,
        ops.wait_for_element,
        call.client,
        args.selector(),
        appear=not args.gone,
        timeout=args.timeout_s,
    )
    remember(call, result.hierarchy)
    line = element_line(result.element) if result.element else None
    data = Waited(
        met=result.met,
        seconds=result.seconds,
        element=line,
        error=result.error,
        suggestions=list(result.suggestions) or None,
    )
    return ToolOutput(f"{'met' if result.met else 'timed out'} after {result.seconds}s", data)


class AssertArgs(Target):
    expect: Expectation
    value: str | None = Field(default=None, max_length=1000)


class Checked(Result):
    passed: bool
    expectation: str
    evidence: str
    matches: int
    actual: str | None = None


@tool(
    name="assert_element",
    title="Check an element",
    risk=Risk.READ,
    input=AssertArgs,
    output=Checked,
    example={"query": "Pin to top", "expect": "unchecked"},
)
async def assert_element(call: ToolCall, args: AssertArgs) -> ToolOutput:
    """Check an element (matched as find_elements; checked/enabled from the control a label
    belongs to); passed, with the evidence."""
    result = await run_ui(
        call, ops.assert_element, call.client, args.selector(), args.expect, args.value
    )
    data = Checked(**vars(result))
    return ToolOutput(f"{'PASS' if result.passed else 'FAIL'}: {result.expectation}", data)


class Issue(Result):
    kind: str
    elements: list[str]
    message: str
    fix: str


class Audit(Result):
    framework: str
    density: int | None = None
    min_target_px: int | None = None
    checked: int
    issue_count: int = Field(description="issues after the JSON (text block): columns, arrays")


@tool(
    name="accessibility_audit",
    title="Accessibility audit",
    risk=Risk.READ,
    input=DeviceArgs,
    output=Audit,
    example={},
)
async def accessibility_audit(call: ToolCall, args: DeviceArgs) -> ToolOutput:
    """Unlabelled clickables and images, targets under 48dp, duplicate labels; with fixes,
    rows after the JSON (text block)."""
    report, framework = await run_ui(call, ops.accessibility_audit, call.client)
    issues = [
        Issue(kind=f.kind, elements=list(f.element_ids), message=f.message, fix=f.fix)
        for f in report.findings
    ]
    data = Audit(
        framework=framework,
        density=report.density,
        min_target_px=report.min_target_px,
        checked=report.checked,
        issue_count=len(issues),
    )
    summary = f"{len(issues)} issues in {report.checked} touch targets"
    return ToolOutput(summary, data, text=rows_text(issues, ("kind", "elements", "message", "fix")))


TOOLS = [
    ui_tree,
    find_elements,
    tap_element,
    long_press_element,
    type_text,
    scroll_to_element,
    wait_for_element,
    assert_element,
    accessibility_audit,
]
