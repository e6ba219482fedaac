"""Results as a markdown report (printed and written) and a JSON file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks import scale, screenshot
from benchmarks.config import MIB
from benchmarks.head_of_line import OTHER, SAME, SECOND
from benchmarks.transfer import CEILING, RAW

TRANSFER_CLIENTS = ("adbwire", "adb", "adb_shell", RAW)


def _number(value: Any, digits: int = 1) -> str:
    if value is None:
        return "—"
    if isinstance(value, (int, float)):
        return f"{value:,.{digits}f}"
    return str(value)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return [*lines, ""]


def _pending(entry: Any) -> str | None:
    return entry.get("pending") if isinstance(entry, dict) else None


def _mib(size: Any) -> str:
    if int(size) < MIB:
        return f"{int(size) // 1024} KiB"
    return f"{int(size) // MIB} MiB"


def _targets(rows: list[dict[str, Any]]) -> list[str]:
    body = [
        [
            r["description"],
            r["scope"],
            _number(r["measured"], 2),
            r["wanted"],
            r["verdict"],
            r["note"],
        ]
        for r in rows
    ]
    return _table(["target", "scope", "measured", "wanted", "verdict", "note"], body)


def _latency(latency: dict[str, Any]) -> list[str]:
    lines = [f"### 1. Call latency: `echo`, {latency.get('calls')} sequential calls per client", ""]
    rows = []
    for name, entry in latency.items():
        if name == "calls":
            continue
        if _pending(entry):
            rows.append([name, "pending", *[""] * 6, _pending(entry) or ""])
            continue
        times = [_number(entry[k], 2) for k in ("median_ms", "p95_ms", "mean_ms", "min_ms")]
        cpu = [_number(entry[k], 3) for k in ("client_cpu_ms_per_call", "device_cpu_ms_per_call")]
        rows.append([name, *times, str(entry["count"]), *cpu, ""])
    header = ["client", "median ms", "p95 ms", "mean ms", "min ms", "calls"]
    header += ["client CPU ms/call", "device CPU ms/call", "note"]
    lines += _table(header, rows)
    lines.append(
        "Client CPU: this process for adbwire, adb_shell and MCP (client and server in "
        "process); for adb, its client processes plus its server. Device CPU: the simulator."
    )
    return [*lines, ""]


def _transfer_row(size: str, direction: str, name: str, entry: Any, ceiling: float) -> list[str]:
    runs = ", ".join(f"{rate:.0f}" for rate in entry["runs_mb_s"])
    return [
        _mib(size),
        direction,
        name,
        _number(entry["median_mb_s"], 0),
        runs,
        _number(entry["median_mb_s"] / ceiling, 2),
        _number(entry["client_cpu_s_per_gb"], 2),
        _number(entry["device_cpu_s_per_gb"], 2),
    ]


def _transfer(transfer: dict[str, Any]) -> list[str]:
    rounds = transfer.get("rounds")
    lines = [f"### 2. Bulk transfer (MB/s = 10^6 B/s; median of {rounds} runs each)", ""]
    rows = []
    for size, per_size in transfer.get("sizes", {}).items():
        copy = per_size["ceiling"][CEILING]
        ceiling = copy["median_mb_s"]
        rows.append(_transfer_row(size, "copy", CEILING, copy, ceiling))
        for direction in ("push", "pull"):
            for name in TRANSFER_CLIENTS:
                if name in per_size[direction]:
                    entry = per_size[direction][name]
                    rows.append(_transfer_row(size, direction, name, entry, ceiling))
    header = ["size", "direction", "client", "MB/s", "runs MB/s", "/ ceiling"]
    header += ["client CPU s/GB", "device CPU s/GB"]
    lines += _table(header, rows)
    lines.append(
        f"`{RAW}`: adbwire reading the simulator's `source:N` / writing its `sink:N` (no files, "
        f"no sync protocol). `{CEILING}`: file → loopback TCP → file between two Python "
        "processes (sender = client CPU, receiver = device CPU)."
    )
    return [*lines, ""]


def _head_of_line(hol: dict[str, Any]) -> list[str]:
    if not hol:
        return []
    lines = [f"### 3. Head-of-line: `echo` during a {_mib(hol['size'])} pull", ""]
    rows = []
    for name in (SAME, SECOND, OTHER):
        entry = hol[name]
        during = entry["during"]
        times = [_number(v, 2) for v in (entry["idle_median_ms"], during["median_ms"])]
        tail = [str(during["count"]), _number(entry["ratio"], 2), _number(entry["pull_mb_s"], 0)]
        rows.append([name, *times, _number(during["p95_ms"], 2), *tail])
    header = ["pull runs on", "idle median ms", "during median ms", "during p95 ms", "calls"]
    lines += _table([*header, "ratio", "pull MB/s"], rows)
    lines.append(
        f"The target is the `{SAME}` row; the other two are controls (same process and "
        "machine without sharing the connection; only the machine and simulator shared)."
    )
    return [*lines, ""]


def _memory(memory: dict[str, Any]) -> list[str]:
    if not memory:
        return []
    lines = ["### 4. Memory: client process peak RSS (VmHWM, MiB), fresh process per transfer", ""]
    rows = []
    for size, by_direction in memory.items():
        for direction, entry in by_direction.items():
            rate = int(size) / 1e6 / entry["seconds"]
            peaks = [_number(entry["baseline_peak_mib"]), _number(entry["peak_mib"])]
            rows.append([_mib(size), direction, *peaks, _number(rate, 0)])
    header = ["size", "direction", "peak after connect", "peak after transfer", "MB/s"]
    return lines + _table(header, rows)


def _startup(startup: dict[str, Any]) -> list[str]:
    lines = ["### 5. Start-up: spawn `adbwire serve --simulate` → first `tools/list` answer", ""]
    if _pending(startup):
        return [*lines, f"{_pending(startup)}", ""]
    runs = ", ".join(f"{value:.2f}" for value in startup["runs_s"])
    return [
        *lines,
        f"Median {startup['median_s']:.2f} s over {len(startup['runs_s'])} runs ({runs} s); "
        f"{startup['tools_listed']} tools listed. `python -c pass` alone: "
        f"{startup['python_c_pass_median_s'] * 1000:.0f} ms.",
        "",
    ]


def _screen(screen: dict[str, Any]) -> list[str]:
    lines = ["### 6. Screen tools (in-memory MCP session, default screen)", ""]
    if _pending(screen):
        return [*lines, str(_pending(screen)), ""]
    rows = []
    for name, entry in screen.items():
        if _pending(entry):
            rows.append([name, "pending", "", "", _pending(entry) or ""])
        else:
            times = [_number(entry["median_ms"], 1), _number(entry["p95_ms"], 1)]
            rows.append([name, *times, f"{entry['result_chars']:,}", ""])
    return lines + _table(["tool", "median ms", "p95 ms", "result chars", "note"], rows)


def _screenshot(result: dict[str, Any]) -> list[str]:
    """The `screenshot` section (issue #25), as `python -m benchmarks.screenshot` prints it."""
    if not result:
        return []
    if _pending(result):
        return ["### 6b. Screenshots", "", str(_pending(result)), ""]
    lines = screenshot.markdown(result).splitlines()
    return [lines[0].replace("### ", "### 6b. ", 1), *lines[1:], ""]


def _errors(errors: dict[str, str]) -> list[str]:
    if not errors:
        return []
    lines = ["### Sections that failed", ""]
    for section, error in errors.items():
        lines += [f"- `{section}`: {error.strip().splitlines()[-1]}"]
    return [*lines, ""]


def markdown(results: dict[str, Any]) -> str:
    meta = results["meta"]
    lines = [
        f"## adbwire benchmarks ({'quick' if meta['quick'] else 'full'} mode), {meta['started']}",
        "",
        f"Machine: {meta['machine']}",
        "",
        "### Targets",
        "",
        *_targets(results["targets"]),
        *_errors(results.get("errors", {})),
        *_latency(results.get("latency", {})),
        *_transfer(results.get("transfer", {})),
        *_head_of_line(results.get("head_of_line", {})),
        *_memory(results.get("memory", {})),
        *_startup(results.get("startup", {"pending": "not run"})),
        *_screen(results.get("screen", {"pending": "not run"})),
        *_screenshot(results.get("screenshot", {})),
        *_compression(results.get("compression", {})),
        *_small_payload(results.get("small_payload", {})),
        *_cold_start(results.get("cold_start", {})),
        *scale.markdown_lines(results.get("scale", {})),
    ]
    return "\n".join(lines)


def _compression(compression: dict[str, Any]) -> list[str]:
    if not compression:
        return []
    lines = [
        f"### 7. Sync compression at {compression['link_mbps']:g} Mbit/s, "
        f"{_mib(compression['size'])} files (MB/s of file bytes; median of "
        f"{compression['rounds']} runs)",
        "",
    ]
    rows = []
    for name, directions in compression["data"].items():
        for direction, entry in directions.items():
            rows.append(
                [
                    name,
                    direction,
                    _number(entry["raw_median_mb_s"]),
                    _number(entry["compressed_median_mb_s"]),
                    _number(entry["speedup"], 2),
                    ", ".join(_number(v) for v in entry["compressed_runs_mb_s"]),
                ]
            )
    header = ["data", "direction", "raw (-Z)", "compressed (-z any)", "speedup", "runs"]
    return lines + _table(header, rows)


def _cold_start(cold: dict[str, Any]) -> list[str]:
    if not cold:
        return []
    lines = [f"### 9. Cold start (median of {cold['runs']} runs, interleaved)", ""]
    rows = []
    for group in ("cli", "mcp"):
        for name, entry in cold[group].items():
            runs = ", ".join(f"{value:.3f}" for value in entry["runs_s"])
            rows.append([group, name, f"{entry['median_s'] * 1000:.0f}", runs])
    ratios = ", ".join(f"{name} {value:.1f}x" for name, value in cold["cli_ratio"].items())
    mcp = f"MCP / minimal server: {cold['mcp_ratio']:.2f}x"
    if "mcp_cpu_ratio" in cold:
        mcp += f" (CPU time: {cold['mcp_cpu_ratio']:.2f}x)"
    cpu = ", ".join(f"{name} {value:.1f}x" for name, value in cold.get("cli_cpu_ratio", {}).items())
    footer = [f"CLI / bare interpreter: {ratios} (CPU time: {cpu}); {mcp}", ""]
    return lines + _table(["", "what", "median ms", "runs s"], rows) + footer


def _small_payload(small: dict[str, Any]) -> list[str]:
    if not small:
        return []
    lines = [
        f"### 8. Small payloads, checksums, sync v1: {_mib(small['size'])} file, rate as "
        f"each tool reports it (median of {small['rounds']} runs)",
        "",
    ]
    rows = []
    for payload, directions in small["payloads"].items():
        for direction, entry in directions.items():
            ours = entry["adbwire"]["median_mb_s"]
            theirs = entry.get("adb", {}).get("median_mb_s")
            ratio = _number(entry.get("ratio"), 2)
            rows.append([f"{payload} B", direction, _number(ours), _number(theirs), ratio])
    return lines + _table(["payload", "direction", "adbwire", "adb", "adbwire / adb"], rows)


def write(results: dict[str, Any], directory: Path, stem: str) -> tuple[Path, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    json_path = directory / f"{stem}.json"
    markdown_path = directory / f"{stem}.md"
    json_path.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    markdown_path.write_text(markdown(results) + "\n")
    return json_path, markdown_path
