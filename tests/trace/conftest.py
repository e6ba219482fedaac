"""The page the browser tests open: a recorded session (with a failure and a crash) plus a
step whose text tries to break out of the page."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from adbwire.mcp.trace.viewer import write_html
from tests.trace.flows import HOSTILE, record_flow


@pytest.fixture(scope="session")
def viewer_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("viewer") / "trace"
    anyio.run(record_flow, directory)
    hostile = {
        "kind": "step",
        "index": 99,
        "tool": "run_shell",
        "outcome": "ok",
        "summary": HOSTILE,
        "arguments": {"command": HOSTILE},
        "result": {"x": HOSTILE},
    }
    with (directory / "trace.jsonl").open("a") as lines:
        lines.write(json.dumps(hostile) + "\n")
    return write_html(directory)
