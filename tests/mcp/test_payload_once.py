"""No result sends a large payload twice (issue #18).

A success carries its structured content twice by design: as ``structuredContent`` and as
the JSON line of the text block, for clients that read only text. So a large payload (a UI
tree, log lines, crash stacks, test traces, shell output) must not be in the structured
content: it goes once, raw, after the JSON line. Every registered tool has recorded calls
in protocol_fixtures/mcp (test_fixtures_replay replays them to the same results), and those
calls include the large cases: a full log page, the crash history, two pages of shell
output, a failing test run, every process. The limit is low (1 KB) so that the simulator's
small listings would already pass it in the old shape (14 processes as objects: 1.2 KB).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from adbwire.mcp.results.envelope import success
from adbwire.mcp.tools.common import Result

LIBRARY = Path(__file__).resolve().parents[2] / "protocol_fixtures" / "mcp"
LARGEST_REPEATED = 1024  # bytes of structured content that may travel twice


def recorded_results() -> list[tuple[str, str, dict[str, Any]]]:
    found = []
    for sidecar in sorted(LIBRARY.glob("*.calls.json")):
        for call in json.loads(sidecar.read_text())["calls"]:
            if not call["is_error"]:
                found.append((sidecar.name, call["tool"], call["result"]))
    return found


def repeated_bytes(structured: dict[str, Any]) -> int:
    return len(json.dumps(structured, ensure_ascii=False, separators=(",", ":")).encode())


def test_no_recorded_result_repeats_a_large_payload() -> None:
    results = recorded_results()
    too_large = {
        f"{family} {tool}: {repeated_bytes(data)} bytes"
        for family, tool, data in results
        if repeated_bytes(data) > LARGEST_REPEATED
    }
    assert not too_large, "large payloads sent twice (put them in ToolOutput.text)"
    # the premise: the library has the large cases, and their payloads are large
    tools = {tool for _, tool, _ in results}
    assert {"read_logcat", "list_crashes", "last_crash", "run_shell", "ui_tree"} <= tools
    assert {"read_shell_output", "run_instrumentation", "debug_context", "list_processes"} <= tools


class Page(Result):
    count: int


def test_the_envelope_sends_the_payload_once_after_the_json_line() -> None:
    payload = "\n".join(f"05-02 10:00:{n:02d}.000 42 E Tag: line {n}" for n in range(50))
    result = success("50 line(s)", Page(count=50), payload=payload)
    text = result.content[0].text  # type: ignore[union-attr]
    summary, packed, rest = text.split("\n", 2)
    assert (summary, json.loads(packed), rest) == ("50 line(s)", {"count": 50}, payload)
    assert result.structured_content == {"count": 50}
    assert text.count("line 49") == 1
