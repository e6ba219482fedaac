"""A trace keeps what a result sends once as text (issue #18 moved it out of the structured
content): read_logcat's lines and debug_context's log as the step's log, other payloads
(rows, stacks, stdout, stderr) as its text; bounded, secrets scrubbed, the tree not twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp import types

from adbwire.mcp.trace import extract, start_trace
from adbwire.mcp.trace.format import read_trace
from tests.mcp.harness import connected, make_app, payload_text, simulated


def test_a_log_payload_keeps_its_newest_lines_and_counts_the_rest() -> None:
    lines = [f"05-02 10:00:00.000 42 E Tag: line {n}" for n in range(250)]
    log, text = extract.payload_parts("read_logcat", ["1 line(s)\n{}\n" + "\n".join(lines)])
    assert text is None
    assert log == [f"\u2026 {250 - extract.MAX_LOG_LINES} earlier lines", *lines[-100:]]
    long = "x" * (extract.MAX_LOG_LINE + 50)
    log, _ = extract.payload_parts("read_logcat", ["s\n{}\n" + long])
    assert log == [long[: extract.MAX_LOG_LINE]]


def test_other_payloads_and_blocks_are_text_cut_at_the_bound() -> None:
    stdout = "y" * (extract.MAX_TEXT + 10)
    log, text = extract.payload_parts("run_shell", ["exit 0\n{}\n" + stdout, "stderr:\noops"])
    assert log is None and text is not None
    cut = 10 + len("\nstderr:\noops")
    assert text == "y" * extract.MAX_TEXT + f"\u2026(cut: {cut} more)"
    log, text = extract.payload_parts("run_shell", ["exit 0\n{}\nok\n", "stderr:\noops"])
    assert text == "ok\n\nstderr:\noops"
    # a debug_context: its log block is the log, the tree after the JSON is kept as the tree
    blocks = ["debug\n{}\ne1 Button", "log:\nW A: one\nE B: two"]
    assert extract.payload_parts("debug_context", blocks, tree_kept=True) == (
        ["W A: one", "E B: two"],
        None,
    )
    assert extract.payload_parts("tap", ["tapped\n{}"]) == (None, None)  # nothing after JSON


async def _results(directory: Path) -> tuple[dict[str, types.CallToolResult], list[dict[str, Any]]]:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("launch_app", {"package": "com.example.notes"}),
        ("open_deep_link", {"uri": "notes://stats"}),  # the app crashes: lines in its log
        ("read_logcat", {"max_lines": 50}),
        ("list_processes", {}),
        ("ui_tree", {}),
        ("debug_context", {"package": "com.example.notes", "log_lines": 30}),
    ]
    results = {}
    with simulated() as (device,):
        app = make_app([device])
        app.trace = start_trace(directory)
        async with connected(app) as client:
            for tool, arguments in calls:
                results[tool] = await client.call_tool(tool, arguments)
        app.close()
    return results, read_trace(directory).steps


async def test_a_session_trace_keeps_the_log_lines_and_rows_a_result_sent_as_text(
    tmp_path: Path,
) -> None:
    results, steps = await _results(tmp_path / "trace")
    by_tool = {step["tool"]: step for step in steps}

    logcat = by_tool["read_logcat"]
    sent = payload_text(results["read_logcat"]).split("\n")
    assert 0 < len(sent) <= extract.MAX_LOG_LINES
    assert logcat["log"] == sent and "text" not in logcat

    processes = by_tool["list_processes"]
    rows = payload_text(results["list_processes"])
    assert rows.startswith("columns: ") and processes["text"] == rows

    tree = by_tool["ui_tree"]  # the tree is kept once, as the tree
    assert tree["tree"].startswith("e") and "text" not in tree

    debug = by_tool["debug_context"]
    block = results["debug_context"].content[1]
    assert isinstance(block, types.TextContent) and block.text.startswith("log:\n")
    assert debug["log"] == block.text.removeprefix("log:\n").split("\n")
    assert "tree" in debug and "text" not in debug
