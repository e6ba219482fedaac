"""Sync compression over a slow link (issue #20): push and pull of a compressible file (log
text) and an incompressible one (random bytes) through a simulated device whose link carries
40 Mbit/s each way (`--link-mbps 40`, a phone on USB 2), compressed (`-z any`: zstd here)
and raw (`-Z`), alternating so drift in the machine's load hits both alike.

MB/s counts the file's bytes (what the user moved), as adb prints them. The speedup is the
compressed median over the raw median.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.device_host import DeviceProcess
from benchmarks.stats import megabytes_per_second

LINK_MBPS = 40.0
MODES = ("raw", "compressed")


def log_text(size: int) -> bytes:
    """Logcat-like lines whose numbers vary: zstd level 1 takes them to about a sixth."""
    lines = bytearray()
    index = 0
    while len(lines) < size:
        lines += (
            b"12-01 18:%02d:%02d.%03d  %5d  %5d I ActivityManager: Start proc %d:com.example"
            b".app%d/u0a%d for service\n"
            % (
                index // 3600 % 60,
                index // 60 % 60,
                index % 1000,
                1000 + index % 7919,
                2000 + index % 31,
                4000 + index % 997,
                index % 13,
                index % 211,
            )
        )
        index += 1
    return bytes(lines[:size])


def _timed(action: Callable[[], Any]) -> float:
    started = time.perf_counter()
    action().raise_first()
    return time.perf_counter() - started


def run(root: Path, private_key: Path, public_key: Path, size: int, rounds: int) -> dict[str, Any]:
    from adbwire.wire.client import AdbClient  # noqa: PLC0415
    from adbwire.wire.keys import load_key  # noqa: PLC0415
    from adbwire.wire.services.sync import Compression  # noqa: PLC0415

    root.mkdir(parents=True, exist_ok=True)
    sources = {"text": log_text(size), "random": os.urandom(size)}
    for name, data in sources.items():
        (root / name).write_bytes(data)
    kinds = {"raw": Compression.NONE, "compressed": Compression.ANY}
    runs: dict[str, dict[str, dict[str, list[float]]]] = {
        name: {d: {m: [] for m in MODES} for d in ("push", "pull")} for name in sources
    }
    options = ("--link-mbps", str(LINK_MBPS))
    with DeviceProcess(root / "device", public_key, options) as device:
        client = AdbClient.connect_tcp(device.serial, [load_key(private_key)])
        try:
            for turn in range(rounds):
                order = MODES if turn % 2 == 0 else MODES[::-1]
                for name, data in sources.items():
                    for mode in order:
                        remote = f"/data/local/tmp/{name}-{mode}"
                        pushed, pulled = _round_trip(client, root / name, remote, kinds[mode], data)
                        runs[name]["push"][mode].append(megabytes_per_second(size, pushed))
                        runs[name]["pull"][mode].append(megabytes_per_second(size, pulled))
                        device.host_path(remote).unlink()
        finally:
            client.close()
    return {"link_mbps": LINK_MBPS, "size": size, "rounds": rounds, "data": _summary(runs)}


def _round_trip(
    client: Any, local: Path, remote: str, kind: Any, data: bytes
) -> tuple[float, float]:
    """Seconds to push `local` and to pull it back (checked byte for byte)."""
    back = local.with_suffix(".back")
    pushed = _timed(lambda: client.push([local], remote, compression=kind, timeout=600))
    pulled = _timed(lambda: client.pull([remote], back, compression=kind, timeout=600))
    try:
        if back.read_bytes() != data:
            raise RuntimeError(f"{local.name}: the pulled bytes differ")
    finally:
        back.unlink(missing_ok=True)
    return pushed, pulled


def _summary(runs: dict[str, dict[str, dict[str, list[float]]]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name, directions in runs.items():
        result[name] = {}
        for direction, by_mode in directions.items():
            medians = {mode: statistics.median(values) for mode, values in by_mode.items()}
            result[name][direction] = {
                **{f"{mode}_runs_mb_s": by_mode[mode] for mode in MODES},
                **{f"{mode}_median_mb_s": medians[mode] for mode in MODES},
                "speedup": medians["compressed"] / medians["raw"],
            }
    return result
