"""The scale benchmark's harness works in quick mode: farms, a server, sessions, phases.

Timings are never asserted; only that each phase ran every call without an error and the
report shows them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchmarks.cli import main
from benchmarks.scale import QUICK_CALLS, QUICK_COUNTS

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]  # farms, servers: ~1.5 min


def test_quick_scale_section_runs_every_phase(tmp_path: Path) -> None:
    status = main(["--quick", "--no-adb", "--only", "scale", "--output", str(tmp_path)])
    (json_file,) = tmp_path.glob("quick-*.json")
    results = json.loads(json_file.read_text())
    assert status == 0, results["errors"]
    scale = results["scale"]
    for count in QUICK_COUNTS:
        entry = scale[str(count)]
        assert entry["devices"] == count and entry["server_threads"] >= count
        phases = ["healthy", "frozen_10pct", "killed_10pct"] if count >= 10 else ["healthy"]
        assert [phase for phase in phases if phase in entry] == phases
        for phase in phases:
            assert entry[phase]["errors"] == {}, (count, phase, entry[phase])
            assert entry[phase]["calls"] == QUICK_CALLS
    (report,) = tmp_path.glob("quick-*.md")
    assert "### 10. Scale" in report.read_text()
    assert "| 10 | frozen_10pct |" in report.read_text()
