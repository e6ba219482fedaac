"""`adbwire demo` records its session and says where the page is."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from adbwire.cli import demo as demo_cli
from adbwire.mcp.server.demo import STEPS
from adbwire.mcp.trace.format import read_trace


def run_demo(*options: str) -> int:
    parser = argparse.ArgumentParser()
    demo_cli.register(parser.add_subparsers())
    args = parser.parse_args(["demo", *options])
    result: int = args.handler(args)
    return result


def test_the_demo_writes_a_trace_and_prints_its_page(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_demo() == 0
    out = capsys.readouterr().out
    found = re.search(r"^trace \(every step, with the screen before and after\): (\S+)$", out, re.M)
    assert found is not None, out
    page = Path(found.group(1))
    assert page.name == "trace.html" and page.is_file()
    assert page.parent.parent.name == "traces"  # under the (test's) state directory
    steps = read_trace(page.parent).steps
    assert [s["tool"] for s in steps] == [step.tool for step in STEPS]
    actions = [s for s in steps if s["risk"] == "action"]
    assert actions and all(set(s["screens"]) == {"before", "after"} for s in actions)
    typed = next(str(step.arguments["text"]) for step in STEPS if step.tool == "type_text")
    html = page.read_text()
    assert typed[:18] == "Groceries: 2% milk" and typed[:18] not in html  # typed text stays out
    assert '"text":"\\u003credacted\\u003e"' in html


def test_no_trace_records_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_demo("--no-trace") == 0
    assert "trace" not in capsys.readouterr().out.split("done:")[1]
