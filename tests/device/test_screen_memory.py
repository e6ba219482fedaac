"""Screenshots and memory, measured in a fresh process by tests/device/screen_memory_probe.py.

Hostile screenshots cost little memory and time (issue #14 item 4), on the device layer and
through the MCP `screenshot` tool: the PNG bomb, a raw header claiming a huge screen, more
bytes than a 1080x2400 header allows, and a PNG that never ends. Normal ones leave the
server's memory where it was (issue #25): frames are released, the history keeps thumbnails.
"""

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


FLAT_SHOTS = 100
FLAT_BOUND_MB = 20  # the bound, after warm-up; before #25 a server grew by 49-146 MB
FIRST_USE_BOUND_MB = 32
"""From before the first screenshot: what first use loads (Pillow's codecs, zlib, a heap per
worker thread) comes on top. Measured +5 to +23 MiB beyond the kept frame (glibc's per-thread
heaps vary from run to run), so the issue's 20 would fail now and then for no fault of ours."""
PEAK_BOUND_MB = 40  # a frame in flight is 10 MB; several at once would mean copies
# The frame buffer kept for the next screenshot (frame_pool) is memory held on purpose, once:
# it is counted apart.


def probe(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.device.screen_memory_probe", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmRSS: Linux")
def test_a_hundred_screenshots_leave_the_server_memory_where_it_was() -> None:
    ran = probe("flat", str(FLAT_SHOTS))
    assert ran.returncode == 0, ran.stderr[-3000:]
    report = json.loads(ran.stdout)
    assert report["shots"] == FLAT_SHOTS
    kept = report["pool_mb"]
    assert kept <= 16, report  # one 1080x2400 frame's buffer, rounded up to 4 MiB
    assert report["final_mb"] - report["baseline_mb"] <= FLAT_BOUND_MB, report
    assert report["final_mb"] - kept - report["start_mb"] <= FIRST_USE_BOUND_MB, report
    assert report["peak_mb"] - kept - report["start_mb"] <= PEAK_BOUND_MB, report


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in KiB: Linux")
def test_hostile_frames_cost_little_memory_and_time_in_a_fresh_process() -> None:
    ran = probe()
    assert ran.returncode == 0, ran.stderr[-3000:]
    report = json.loads(ran.stdout)
    assert {(row["path"], row["mode"]) for row in report} == {
        (path, mode) for path in ("device", "mcp") for mode in HOSTILE
    }
    for row in report:
        device_outcome, mcp_outcome = EXPECTED[row["mode"]]
        expected = device_outcome if row["path"] == "device" else mcp_outcome
        assert row["outcome"] == expected, row
        assert row["growth_mb"] < GROWTH_BOUND_MB, row
        assert row["seconds"] < QUICK, row
