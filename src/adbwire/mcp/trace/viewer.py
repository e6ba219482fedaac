"""`adbwire trace show`: one self-contained HTML file from a trace directory.

The page carries everything: the steps as JSON in a non-executed ``<script
type="application/json">`` block (``<``, ``>`` and ``&`` escaped, so no text from a device
can end it), the screenshots as ``data:`` URLs, and its own style and script, allowed by a
Content-Security-Policy that names their hashes and permits nothing else — no request can
leave the page, whatever a device wrote into a trace. The script (`page.py`) builds the view
with DOM calls and ``textContent`` only.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from pathlib import Path
from typing import Any

from adbwire.mcp.trace.format import MAX_SHOT_BYTES, MIME_TYPES, SHOT_NAME, Trace, read_trace
from adbwire.mcp.trace.page import SCRIPT, STYLE, TEMPLATE

HTML_NAME = "trace.html"
MAX_IMAGES_BYTES = 192 * 1024 * 1024
"""Screenshots embedded in one page at most (a trace's own budget is far below this)."""


def render(trace: Trace) -> str:
    """The page for `trace`, as text."""
    data = json.dumps(page_data(trace), ensure_ascii=False, separators=(",", ":"))
    data = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    title = str(trace.header.get("title") or trace.directory.name)
    csp = (
        "default-src 'none'; img-src data:; "
        f"style-src '{_hash(STYLE)}'; script-src '{_hash(SCRIPT)}'; "
        "base-uri 'none'; form-action 'none'"
    )
    return TEMPLATE.format(
        csp=csp,
        title=_escape(f"adbwire trace: {title}"),
        style=STYLE,
        data=data,
        script=SCRIPT,
    )


def write_html(directory: Path, output: Path | None = None) -> Path:
    """Render the trace at `directory` (or the newest inside it) to `output` (default:
    trace.html in the trace directory); the written path. Written whole, then renamed."""
    trace = read_trace(directory)
    target = output if output is not None else trace.directory / HTML_NAME
    partial = target.with_name("." + target.name + ".partial")
    partial.write_text(render(trace), encoding="utf-8")
    partial.replace(target)
    return target


def page_data(trace: Trace) -> dict[str, Any]:
    """What the page's script gets: the header, the steps with their screens inlined."""
    budget = [MAX_IMAGES_BYTES]
    steps = [_step(trace, step, budget) for step in trace.steps]
    return {
        "header": {
            key: trace.header.get(key) for key in ("created", "source", "title", "budget_bytes")
        },
        "directory": str(trace.directory),
        "steps": steps,
        "dropped_steps": trace.dropped_steps,
        "skipped_lines": trace.skipped_lines,
        "notes": trace.notes,
    }


def _step(trace: Trace, step: dict[str, Any], budget: list[int]) -> dict[str, Any]:
    shown = {key: value for key, value in step.items() if key != "screens"}
    screens = step.get("screens")
    shown["screens"] = {}
    if isinstance(screens, dict):
        for moment in ("before", "after"):
            screen = screens.get(moment)
            if isinstance(screen, dict):
                shown["screens"][moment] = _screen(trace, screen, budget)
    return shown


def _screen(trace: Trace, screen: dict[str, Any], budget: list[int]) -> dict[str, Any]:
    if "file" not in screen:
        return {"missing": str(screen.get("missing") or "not captured")[:300]}
    name = screen["file"]
    if not isinstance(name, str) or not SHOT_NAME.match(name):
        return {"missing": "not a screenshot name this trace may use"}
    path = trace.shot_path(name)
    if path is None:
        return {"missing": "dropped to keep the trace within its size budget"}
    size = path.stat().st_size
    if size > MAX_SHOT_BYTES or size > budget[0]:
        return {"missing": "too large to embed"}
    budget[0] -= size
    mime = MIME_TYPES[path.suffix.lstrip(".")]
    encoded = base64.b64encode(path.read_bytes()).decode("ascii")
    found: dict[str, Any] = {"src": f"data:{mime};base64,{encoded}"}
    for key in ("width", "height", "device_width", "device_height"):
        value = screen.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 100_000:
            found[key] = value
    return found


def _hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def _escape(text: str) -> str:
    return html.escape(text, quote=True)
