"""One scripted agent session recorded into a trace, shared by the trace tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adbwire.mcp.trace import start_trace
from adbwire.mcp.trace.format import read_trace
from tests.mcp.harness import connected, make_app, simulated

HOSTILE = '</script><img src="http://127.0.0.1:9/leak.png"><script>document.title="owned"'
"""Text a trace may hold (a device's output) that tries to break out of the page."""
SECRET = 'hunter2: "pass" & more'
FLOW: list[tuple[str, dict[str, Any]]] = [
    ("launch_app", {"package": "com.example.notes"}),
    ("ui_tree", {}),
    ("tap_element", {"query": "New note"}),
    ("type_text", {"query": "Title", "text": SECRET}),
    ("tap", {"x": 100, "y": 200}),
    ("swipe", {"direction": "up"}),
    ("tap_element", {"query": "Nothing is called this"}),
    ("open_deep_link", {"uri": "notes://stats"}),
]


async def record_flow(directory: Path, audit: Path | None = None) -> list[dict[str, Any]]:
    with simulated() as (device,):
        app = make_app([device], audit=audit)
        app.trace = start_trace(directory)
        async with connected(app) as client:
            for tool, arguments in FLOW:
                await client.call_tool(tool, arguments)
                # As an agent reading the result: the screen after an action is skipped
                # if the device is busy (the next call, say a read) when it is taken.
                await app.trace.settled(device.serial)
        app.close()
    return read_trace(directory).steps
