"""Measurement 6: `screenshot` and `ui_tree` tool round trips on the default screen.

Through the in-memory MCP session; the result size counts what the client receives: text
characters plus the base64 characters of image content.
"""

from __future__ import annotations

import time
from typing import Any

from benchmarks.mcp_session import McpSession
from benchmarks.stats import summary_ms

SCREEN_TOOLS = ("screenshot", "ui_tree")


def _result_size(result: Any) -> int:
    size = 0
    for item in result.content:
        size += len(getattr(item, "text", "") or "") + len(getattr(item, "data", "") or "")
    return size


def run(session: McpSession, calls: int) -> dict[str, object]:
    available = session.tool_names()
    results: dict[str, object] = {}
    for name in SCREEN_TOOLS:
        if name not in available:
            results[name] = {"pending": f"pending: the MCP server has no `{name}` tool yet"}
            continue
        session.call(name, {})  # warm-up (the first call may connect the device)
        samples: list[float] = []
        size = 0
        for _ in range(calls):
            started = time.perf_counter()
            result = session.call(name, {})
            samples.append(time.perf_counter() - started)
            size = _result_size(result)
        results[name] = {**summary_ms(samples), "result_chars": size}
    return results
