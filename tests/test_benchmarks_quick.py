"""The benchmark harness works: quick mode runs every measurement and writes its report.

Only the harness is checked (every section ran, every client was measured, the report and
the JSON agree with the targets table); timings are never asserted. The run with Google's
adb is an interop test (it spawns adb as the baseline); the run without it stays under the
suite's guard, which fails the test if anything spawns adb.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from benchmarks.cli import main
from benchmarks.config import QUICK, TARGETS
from benchmarks.google_adb import adb_available

pytestmark = pytest.mark.timeout(300)

VERDICTS = {"PASS", "MISS", "PENDING", "NOT RUN"}


def run_quick(tmp_path: Path, *arguments: str) -> tuple[dict[str, Any], str]:
    status = main(["--quick", "--output", str(tmp_path), *arguments])
    (json_file,) = tmp_path.glob("quick-*.json")
    results: dict[str, Any] = json.loads(json_file.read_text())
    assert status == 0, results["errors"]
    (markdown_file,) = tmp_path.glob("quick-*.md")
    return results, markdown_file.read_text()


def positive(entry: dict[str, Any], *keys: str) -> None:
    for key in keys:
        assert isinstance(entry[key], (int, float)) and entry[key] > 0, (key, entry)


@pytest.mark.interop
@pytest.mark.skipif(not adb_available(), reason="Google's adb is not installed at /usr/bin/adb")
def test_quick_mode_measures_every_client_and_section(tmp_path: Path) -> None:
    results, report = run_quick(tmp_path)
    assert results["errors"] == {}
    latency = results["latency"]
    for client in ("adbwire", "adb", "adb_shell"):
        assert latency[client]["count"] == QUICK.echo_calls
        positive(latency[client], "median_ms", "p95_ms", "client_cpu_ms_per_call")
    mcp = latency["mcp run_shell"]
    assert "pending" in mcp or mcp["count"] == QUICK.mcp_calls
    (size,) = results["transfer"]["sizes"].values()
    for direction in ("push", "pull"):
        assert set(size[direction]) == {"adbwire", "adb", "adb_shell", "adbwire raw stream"}
        for entry in size[direction].values():
            assert len(entry["runs_mb_s"]) == QUICK.transfer_rounds
            positive(entry, "median_mb_s")
    positive(size["ceiling"]["loopback socket copy"], "median_mb_s")
    hol = results["head_of_line"]
    for variant in ("same connection", "second connection, same process", "other process"):
        assert hol[variant]["during"]["count"] >= 1
    assert set(results["memory"]) == {str(size) for size in QUICK.memory_sizes}
    for entry in results["memory"].values():
        positive(entry["push"], "peak_mib")
        positive(entry["pull"], "peak_mib")
    assert "pending" in results["startup"] or results["startup"]["tools_listed"] > 0
    assert set(results["screen"]) <= {"pending", "screenshot", "ui_tree"}
    rows = results["targets"]
    assert {row["target"] for row in rows} == {target.key for target in TARGETS}
    for row in rows:
        assert row["verdict"] in VERDICTS
        assert (row["verdict"] in {"PENDING", "NOT RUN"}) == (row["measured"] is None), row
        assert f"| {row['verdict']} |" in report
    assert "### Targets" in report and results["meta"]["machine"] in report


def test_quick_mode_without_adb_leaves_it_out(tmp_path: Path) -> None:
    results, report = run_quick(tmp_path, "--no-adb", "--only", "latency", "--only", "transfer")
    assert set(results) >= {"latency", "transfer"} and "memory" not in results
    assert "adb" not in results["latency"] and "adb_shell" in results["latency"]
    (size,) = results["transfer"]["sizes"].values()
    assert "adb" not in size["push"] and "adbwire" in size["push"]
    by_target = {(row["target"], row["scope"]): row for row in results["targets"]}
    assert by_target[("latency_vs_adb", "echo")]["verdict"] == "NOT RUN"
    assert by_target[("latency_vs_adb_shell", "echo")]["verdict"] in {"PASS", "MISS"}
    assert "adb not measured" in report
