"""Measurement 4: peak RSS of a client process pushing and pulling large files.

Each transfer runs in a fresh child process (`python -m benchmarks.memory ...`) holding only
adbwire and one connection; the simulated device lives in its own process, so the figure
is the client's alone. The child reports VmHWM (peak resident set, /proc/self/status) after
connecting and after the transfer, and ru_maxrss; a flat peak across sizes is the point.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import time
from pathlib import Path

from benchmarks.children import REPO_ROOT, module_argv
from benchmarks.workspace import Workspace

TIMEOUT = 1800.0


def _status_kib(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def _child(args: argparse.Namespace) -> dict[str, float]:
    from adbwire.wire.client import AdbClient  # noqa: PLC0415
    from adbwire.wire.keys import load_key  # noqa: PLC0415

    with AdbClient.connect_tcp(args.serial, [load_key(args.key)]) as client:
        client.shell("echo warm").check()
        baseline = _status_kib("VmHWM")
        started = time.perf_counter()
        if args.direction == "push":
            result = client.push([args.local], args.remote, timeout=TIMEOUT)
        else:
            result = client.pull([args.remote], args.local, timeout=TIMEOUT)
        result.raise_first()
        seconds = time.perf_counter() - started
    return {
        "baseline_peak_mib": baseline / 1024,
        "peak_mib": _status_kib("VmHWM") / 1024,
        "ru_maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "seconds": seconds,
    }


def _spawn(workspace: Workspace, direction: str, local: Path, remote: str) -> dict[str, float]:
    argv = module_argv("benchmarks.memory", "--serial", workspace.serial)
    argv += ["--key", str(workspace.private_key), "--direction", direction]
    argv += ["--local", str(local), "--remote", remote]
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=TIMEOUT, check=False, cwd=REPO_ROOT
    )
    if done.returncode != 0:
        raise RuntimeError(f"memory child ({direction}) failed: {done.stderr.strip()[-2000:]}")
    measured: dict[str, float] = json.loads(done.stdout)
    return measured


def run(workspace: Workspace, sizes: tuple[int, ...]) -> dict[str, object]:
    results: dict[str, object] = {}
    for size in sizes:
        source = workspace.source_file(size)
        remote = f"/data/local/tmp/memory-{size}.bin"
        on_device = workspace.device.host_path(remote)
        pulled = workspace.scratch / f"memory-{size}.bin"
        try:
            push = _spawn(workspace, "push", source, remote)
            if on_device.stat().st_size != size:
                raise RuntimeError("the memory push left a file of the wrong size")
            pull = _spawn(workspace, "pull", pulled, remote)
            if pulled.stat().st_size != size:
                raise RuntimeError("the memory pull left a file of the wrong size")
        finally:
            on_device.unlink(missing_ok=True)
            pulled.unlink(missing_ok=True)
        results[str(size)] = {"push": push, "pull": pull}
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--serial", required=True)
    parser.add_argument("--key", type=Path, required=True)
    parser.add_argument("--direction", choices=("push", "pull"), required=True)
    parser.add_argument("--local", type=Path, required=True)
    parser.add_argument("--remote", required=True)
    print(json.dumps(_child(parser.parse_args())))


if __name__ == "__main__":
    main()
