"""UI check tools: wait for an element, assert its state, audit the screen's accessibility.

Elements are matched as ``find_elements`` (``ui.py``) matches them; these tools only read.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from adbwire.device.ui import actions as ops
from adbwire.device.ui import (
    element_line,
)
from adbwire.device.ui.checks import Expectation
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.rows import rows_text
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import DeviceArgs, Result
from adbwire.mcp.tools.ui_common import (
    Target,
    in_range,
    remember,
    run_ui,
)


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


TOOLS = [wait_for_element, assert_element, accessibility_audit]
