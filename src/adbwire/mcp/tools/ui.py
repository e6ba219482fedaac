"""UI reading tools: the tree and finding elements (acting: ui_actions.py; checking:
ui_checks.py).

Elements are named by a ``query``: matched on id/test tag, then description, then text,
then hint (``id:``/``desc:``/``text:``/``hint:`` pick one), or an element id (``e12``) from a
recent read. Actions act on exactly one element or refuse with the candidates, and report
whether the screen changed.
"""

from __future__ import annotations

from collections.abc import Hashable

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
from adbwire.device.ui.select import suggest
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import PROFILES, Risk
from adbwire.mcp.tools.common import DeviceArgs, Result
from adbwire.mcp.tools.session_restore import disable_animations, session_of
from adbwire.mcp.tools.ui_common import (
    MAX_FOUND,
    Target,
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


TOOLS = [ui_tree, find_elements]
