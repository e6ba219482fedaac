"""Small-payload links (issue #20): push and pull of a random file through a simulated device
that negotiates 1 KiB (embedded adbds) or 4 KiB (pre-Android 9) payloads, checksummed
packets (protocol 0x01000000) and sync v1 only, adbwire side by side with Google's adb.

Each tool's rate is the one it reports: adb prints "(N bytes in T s)", adbwire's is the
time of the push/pull call in this process (what `adbwire push` prints). Tools alternate
from round to round.
"""

from __future__ import annotations

import re
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks.device_host import DeviceProcess
from benchmarks.google_adb import GoogleAdb
from benchmarks.stats import megabytes_per_second

PAYLOADS = (1024, 4096)
_ADB_RATE = re.compile(rb"\((\d+) bytes in ([\d.]+)s\)")


def _adb_seconds(output: bytes) -> float:
    match = _ADB_RATE.search(output)
    if match is None:
        raise RuntimeError(f"adb did not report its rate: {output[-200:]!r}")
    return max(float(match[2]), 1e-3)


def run(
    root: Path,
    private_key: Path,
    public_key: Path,
    source: Path,
    adb: GoogleAdb | None,
    rounds: int,
) -> dict[str, Any]:
    from adbwire.wire.client import AdbClient  # noqa: PLC0415
    from adbwire.wire.keys import load_key  # noqa: PLC0415

    size = source.stat().st_size
    results: dict[str, Any] = {"size": size, "rounds": rounds, "payloads": {}}
    for payload in PAYLOADS:
        options = ("--max-payload", str(payload), "--checksummed", "--sync-v1")
        runs: dict[str, dict[str, list[float]]] = {
            d: {"adbwire": [], "adb": []} for d in ("push", "pull")
        }
        with DeviceProcess(root / f"device-{payload}", public_key, options) as device:
            client = AdbClient.connect_tcp(device.serial, [load_key(private_key)])
            if adb is not None:
                adb.start(device.serial)
            try:
                for turn in range(rounds):
                    tools = ["adbwire", "adb"] if turn % 2 == 0 else ["adb", "adbwire"]
                    for tool in tools:
                        if tool == "adb" and adb is None:
                            continue
                        remote = f"/data/local/tmp/small-{tool}.bin"
                        back = root / f"small-{tool}.back"
                        if tool == "adbwire":
                            started = time.perf_counter()
                            client.push([source], remote, timeout=600).raise_first()
                            pushed = time.perf_counter() - started
                            started = time.perf_counter()
                            client.pull([remote], back, timeout=600).raise_first()
                            pulled = time.perf_counter() - started
                        else:
                            assert adb is not None
                            pushed = _adb_seconds(
                                adb.ok("-s", device.serial, "push", str(source), remote)
                            )
                            pulled = _adb_seconds(
                                adb.ok("-s", device.serial, "pull", remote, str(back))
                            )
                        if back.stat().st_size != size:
                            raise RuntimeError(f"{tool}: pulled {back.stat().st_size} bytes")
                        back.unlink()
                        device.host_path(remote).unlink()
                        runs["push"][tool].append(megabytes_per_second(size, pushed))
                        runs["pull"][tool].append(megabytes_per_second(size, pulled))
            finally:
                client.close()
                if adb is not None:
                    adb.run("disconnect", device.serial, timeout=30)
        results["payloads"][str(payload)] = _summary(runs)
    return results


def _summary(runs: dict[str, dict[str, list[float]]]) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for direction, by_tool in runs.items():
        entry: dict[str, Any] = {}
        for tool, values in by_tool.items():
            if values:
                entry[tool] = {"runs_mb_s": values, "median_mb_s": statistics.median(values)}
        if "adb" in entry:
            entry["ratio"] = entry["adbwire"]["median_mb_s"] / entry["adb"]["median_mb_s"]
        summary[direction] = entry
    return summary
