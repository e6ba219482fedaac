"""Hostile screenshots cost little memory and time (issue #14 item 4), measured in a fresh
process by tests/device/screen_memory_probe.py on the device layer and through the MCP
`screenshot` tool: the PNG bomb, a raw header claiming a huge screen, more bytes than a
1080x2400 header allows, and a PNG that never ends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.device.screen_memory_probe import HOSTILE

ROOT = Path(__file__).resolve().parents[2]
GROWTH_BOUND_MB = 64  # above the peak of normal 1080x2400 screenshots on both paths
QUICK = 20.0  # seconds; each takes well under one on an idle machine
EXPECTED = {
    "png_bomb": ("ScreenTooLargeError", "output_too_large"),
    "raw_huge_header": ("ScreenTooLargeError", "output_too_large"),
    "raw_overlong": ("OutputTooLargeError", "output_too_large"),
    "png_endless": ("OutputTooLargeError", "output_too_large"),
}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in KiB: Linux")
def test_hostile_frames_cost_little_memory_and_time_in_a_fresh_process() -> None:
    probe = subprocess.run(
        [sys.executable, "-m", "tests.device.screen_memory_probe"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert probe.returncode == 0, probe.stderr[-3000:]
    report = json.loads(probe.stdout)
    assert {(row["path"], row["mode"]) for row in report} == {
        (path, mode) for path in ("device", "mcp") for mode in HOSTILE
    }
    for row in report:
        device_outcome, mcp_outcome = EXPECTED[row["mode"]]
        expected = device_outcome if row["path"] == "device" else mcp_outcome
        assert row["outcome"] == expected, row
        assert row["growth_mb"] < GROWTH_BOUND_MB, row
        assert row["seconds"] < QUICK, row
