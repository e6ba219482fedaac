"""The pytest plugin's traces, as a user's suite sees them (a separate pytest process)."""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

PLUGIN = "adbwire.pytest_plugin"
SUITE = """
    import pytest

    FLOW = [("launch_app", {"package": "com.example.notes"}),
            ("tap_element", {"query": "New note"})]

    async def run(adbwire_mcp):
        async with adbwire_mcp() as session:
            return [await session.call_tool(tool, args) for tool, args in FLOW]

    @pytest.mark.asyncio
    async def test_passes(adbwire_mcp):
        assert not any(r.is_error for r in await run(adbwire_mcp))

    @pytest.mark.asyncio
    async def test_fails(adbwire_mcp):
        results = await run(adbwire_mcp)
        assert results[-1].structured_content["element"] == "e999", "the agent tapped e22"
"""


def run_suite(folder: Path, *options: str) -> subprocess.CompletedProcess[str]:
    (folder / "test_user.py").write_text(textwrap.dedent(SUITE))
    installed = any(
        point.value == PLUGIN for point in importlib.metadata.entry_points(group="pytest11")
    )
    plugin = [] if installed else ["-p", PLUGIN]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *plugin, "-q", "-p", "no:cacheprovider", *options],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "ADBWIRE_MDNS": "0"},
    )


def test_a_failing_test_names_its_trace_and_a_passing_one_leaves_none(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    pages = []
    for _ in range(2):  # the second run finds the first one's trace in the same folder
        done = run_suite(tmp_path, f"--adbwire-trace-dir={traces}")
        assert done.returncode == 1, done.stdout + done.stderr
        assert "1 failed, 1 passed" in done.stdout
        section = re.search(r"-+ adbwire trace -+\n(\S+)", done.stdout)
        assert section is not None, done.stdout
        page = Path(section.group(1))
        assert page.name == "trace.html" and page.parent.parent == traces
        assert "test_fails" in page.parent.name
        html = page.read_text()
        assert '"tool":"launch_app"' in html and '"tool":"tap_element"' in html
        assert "data:image/" in html  # the screens are in the page
        pages.append(page.parent.name)
    assert sorted(p.name for p in traces.iterdir()) == sorted(pages)  # the passes left nothing


def test_all_keeps_every_trace_and_off_records_none(tmp_path: Path) -> None:
    kept = tmp_path / "all"
    (tmp_path / "a").mkdir()
    run_suite(tmp_path / "a", f"--adbwire-trace-dir={kept}", "--adbwire-trace=all")
    names = sorted(p.name for p in kept.iterdir())
    assert len(names) == 2 and "test_fails" in names[0] and "test_passes" in names[1]
    assert all((p / "trace.jsonl").is_file() for p in kept.iterdir())
    off = tmp_path / "off"
    (tmp_path / "b").mkdir()
    done = run_suite(tmp_path / "b", f"--adbwire-trace-dir={off}", "--adbwire-trace=off")
    assert "1 failed, 1 passed" in done.stdout and "adbwire trace" not in done.stdout
    assert not off.exists()
