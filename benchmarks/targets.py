"""The issue's targets checked against one run's results: measured ratio, wanted, verdict."""

from __future__ import annotations

from typing import Any

from benchmarks.config import MIB, TARGETS, Target
from benchmarks.stats import ratio

_BY_KEY = {target.key: target for target in TARGETS}


def _median(section: Any, name: str) -> float | None:
    entry = section.get(name) if isinstance(section, dict) else None
    if not isinstance(entry, dict):
        return None
    value = entry.get("median_ms", entry.get("median_mb_s"))
    return float(value) if value is not None else None


def _row(key: str, scope: str, measured: float | None, note: str = "") -> dict[str, Any]:
    """One target's verdict; without a figure, PENDING (the feature is being built) or
    NOT RUN (the section or a baseline was left out)."""
    target: Target = _BY_KEY[key]
    verdict = target.verdict(measured)
    if measured is None and not note.startswith("pending"):
        verdict, note = "NOT RUN", note or "not measured in this run"
    return {
        "target": key,
        "description": target.description,
        "scope": scope,
        "measured": measured,
        "wanted": target.wanted,
        "verdict": verdict,
        "note": note,
    }


def _transfer_rows(transfer: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for size_text, per_size in transfer.get("sizes", {}).items():
        scope = f"{int(size_text) // MIB} MiB"
        ceiling = _median(per_size["ceiling"], "loopback socket copy")
        for direction in ("push", "pull"):
            by_client = per_size[direction]
            ours = _median(by_client, "adbwire")
            for other, key in (("adb", "vs_adb"), ("adb_shell", "vs_adb_shell")):
                theirs = _median(by_client, other)
                note = "" if theirs is not None else f"{other} not measured"
                rows.append(_row(f"{direction}_{key}", scope, ratio(ours, theirs), note))
            rows.append(_row(f"{direction}_vs_ceiling", scope, ratio(ours, ceiling)))
    return rows


def evaluate(results: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    latency = results.get("latency", {})
    ours = _median(latency, "adbwire")
    adb, adb_shell = _median(latency, "adb"), _median(latency, "adb_shell")
    for key, theirs, name in (
        ("latency_vs_adb", adb, "adb"),
        ("latency_vs_adb_shell", adb_shell, "adb_shell"),
    ):
        note = "" if theirs is not None else f"{name} not measured"
        rows.append(_row(key, "echo", ratio(theirs, ours), note))
    rows.extend(_transfer_rows(results.get("transfer", {})))
    hol = results.get("head_of_line", {})
    if "ratio" in hol:
        rows.append(_row("head_of_line", f"{hol['size'] // MIB} MiB pull", hol["ratio"]))
    memory = results.get("memory", {})
    if memory:
        largest = max(memory, key=int)
        peak = max(memory[largest][d]["peak_mib"] for d in ("push", "pull"))
        rows.append(_row("memory_peak_mb", f"{int(largest) // MIB} MiB (MiB)", peak))
    startup = results.get("startup", {})
    note = startup.get("pending", "")
    rows.append(_row("startup_s", "stdio", startup.get("median_s"), note))
    rows.extend(_compression_rows(results.get("compression", {})))
    rows.extend(_small_payload_rows(results.get("small_payload", {})))
    cold = results.get("cold_start", {})
    for name in ("--version", "shell true"):
        rows.append(_row("cli_startup_ratio", name, cold.get("cli_ratio", {}).get(name)))
    rows.append(_row("mcp_startup_ratio", "stdio", cold.get("mcp_ratio")))
    return rows


def _compression_rows(compression: dict[str, Any]) -> list[dict[str, Any]]:
    data = compression.get("data", {})
    rows = []
    for name, key in (("text", "compression_text"), ("random", "compression_random")):
        for direction in ("push", "pull"):
            speedup = data.get(name, {}).get(direction, {}).get("speedup")
            rows.append(_row(key, direction, speedup))
    return rows


def _small_payload_rows(small: dict[str, Any]) -> list[dict[str, Any]]:
    payloads = small.get("payloads", {})
    if not payloads:
        return [_row("small_payload_vs_adb", "push/pull", None)]
    rows = []
    for payload, entry in payloads.items():
        for direction in ("push", "pull"):
            measured = entry[direction].get("ratio")
            note = "" if measured is not None else "adb not measured"
            rows.append(_row("small_payload_vs_adb", f"{payload} B {direction}", measured, note))
    return rows
