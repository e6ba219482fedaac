"""The scripted MCP session behind ``adbwire demo``: a real MCP client, in memory, talking to
the adbwire server that serves one simulated device.

It lives here because only ``adbwire.mcp`` may import the MCP SDK; ``adbwire.cli.demo``
starts the device, runs these steps and prints the transcript.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client

from adbwire.mcp.devices import DeviceRegistry
from adbwire.mcp.registry import ToolSpec, all_specs
from adbwire.mcp.safety.audit import AuditLog
from adbwire.mcp.safety.policy import Policy
from adbwire.mcp.server.app import App
from adbwire.mcp.server.server import build_server
from adbwire.mcp.tools import screen, ui
from adbwire.mcp.trace import start_trace

STEP_TIMEOUT = 60.0


@dataclass(frozen=True)
class Step:
    tool: str
    arguments: dict[str, Any]
    why: str


STEPS: tuple[Step, ...] = (
    Step("launch_app", {"package": "com.example.notes"}, "start the sample app and wait for it"),
    Step("ui_tree", {}, "read the screen as text: one line per element you can act on"),
    Step("tap_element", {"query": "New note"}, "tap a button by its label, not coordinates"),
    Step(
        "type_text",
        {"query": "Title", "text": 'Groceries: 2% milk & "good" coffee'},
        "type into the title field (quotes, % and & are typed literally), then read it back",
    ),
    Step("screenshot", {"max_edge": 640}, "a screenshot sized for a model's context"),
)


@dataclass(frozen=True)
class StepResult:
    step: Step
    ok: bool
    summary: str
    data: dict[str, Any]
    image: bytes | None = None
    mime_type: str | None = None


def catalogue() -> list[ToolSpec]:
    """Every tool, including the UI families even before the registry lists them."""
    specs = all_specs()
    known = {spec.name for spec in specs}
    return specs + [spec for spec in ui.TOOLS + screen.TOOLS if spec.name not in known]


def demo_app(serial: str, trace: Path | None = None) -> App:
    """An App serving one simulated device with the default (standard) policy, no audit file;
    with `trace`, every call is recorded there (docs/trace.md)."""
    registry = DeviceRegistry(list)
    registry.add_tcp(serial, kind="simulated", keys=list)
    app = App(policy=Policy(), devices=registry, audit=AuditLog(None), transport="memory")
    if trace is not None:
        app.trace = start_trace(trace, source="demo", title="adbwire demo")
    return app


def _result(step: Step, result: types.CallToolResult) -> StepResult:
    text = next((b.text for b in result.content if isinstance(b, types.TextContent)), "")
    image = next((b for b in result.content if isinstance(b, types.ImageContent)), None)
    structured = dict(result.structured_content or {})
    summary = text.split("\n", 1)[0]
    payload = text.split("\n", 2)[2:]  # a UI tree travels once, after the JSON line
    if payload and not result.is_error:
        structured["tree"] = payload[0]
    return StepResult(
        step=step,
        ok=not result.is_error,
        summary=summary,
        data=structured.get("error", structured) if result.is_error else structured,
        image=base64.b64decode(image.data) if image else None,
        mime_type=image.mime_type if image else None,
    )


async def run_session(
    app: App,
    steps: Sequence[Step] = STEPS,
    on_step: Callable[[StepResult], None] | None = None,
) -> list[StepResult]:
    """Run the steps through a real MCP client session; stops at the first failed step."""
    server = build_server(app, catalogue())
    results: list[StepResult] = []
    async with Client(server) as client:
        for step in steps:
            with anyio.fail_after(STEP_TIMEOUT):
                found = _result(step, await client.call_tool(step.tool, step.arguments))
            results.append(found)
            if on_step is not None:
                on_step(found)
            if not found.ok:
                break
    return results
