"""`adbwire serve --trace DIR`: a new trace per run under DIR, within --trace-max-mb."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from adbwire.cli import serve as serve_command
from adbwire.cli.main import build_parser
from adbwire.mcp.server.launch import running_app
from adbwire.mcp.server.server import build_server
from adbwire.mcp.trace.format import read_trace


async def test_serve_trace_records_each_run_in_its_own_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = build_parser()
    argv = ["serve", "--simulate", "--no-audit", "--trace", str(tmp_path), "--trace-max-mb", "1"]
    options = serve_command.options_from(parser.parse_args(argv))
    again = serve_command.options_from(parser.parse_args(argv))
    assert options.trace is not None and again.trace is not None
    assert options.trace.parent == tmp_path and options.trace != again.trace
    assert options.trace_budget == 1024 * 1024
    with running_app(options, transport="memory") as app:
        async with Client(build_server(app)) as client:
            await client.call_tool("launch_app", {"package": "com.example.notes"})
            await client.call_tool("ui_tree", {})
    assert f"adbwire: trace {options.trace}" in capsys.readouterr().err
    trace = read_trace(tmp_path)  # the parent: the newest trace in it
    assert trace.directory == options.trace and trace.header["budget_bytes"] == 1024 * 1024
    assert [s["tool"] for s in trace.steps] == ["launch_app", "ui_tree"]
    assert set(trace.steps[0]["screens"]) == {"before", "after"}


def test_without_trace_nothing_is_recorded(tmp_path: Path) -> None:
    options = serve_command.options_from(build_parser().parse_args(["serve", "--simulate"]))
    assert options.trace is None
    with running_app(options, transport="memory") as app:
        assert app.trace is None
