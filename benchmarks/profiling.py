"""Where the time goes: py-spy on the client and on the simulated device during a workload.

    python -m benchmarks.profiling [--workload echo|pull|push ...] [--seconds 6]

For each workload, py-spy samples both processes (ours and the simulator's) at once, twice:
with `--gil` (only the thread holding the GIL: Python-level CPU) and without (every thread
that is not idle, so also time in system calls). The top frames by own samples are printed
and the raw stacks written next to the results (flamegraph-ready `--format raw`).

Needs py-spy (`pip install py-spy`) and permission to ptrace (root, or ptrace_scope 0).
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.clients import AdbwireClient
from benchmarks.config import MIB
from benchmarks.workspace import Workspace

RESULTS = Path(__file__).resolve().parent / "results"
RATE = 250
TOP = 15
WORKLOADS = ("echo", "pull", "push")
TRANSFER_SIZE = 256 * MIB


def _py_spy() -> str | None:
    beside = Path(sys.executable).with_name("py-spy")
    return str(beside) if beside.exists() else shutil.which("py-spy")


def _summary(path: Path, top: int = TOP) -> list[str]:
    own: collections.Counter[str] = collections.Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _sep, count = line.rpartition(" ")
        if not stack:
            continue
        own[stack.split(";")[-1]] += int(count)
        total += int(count)
    lines = [f"  {total} samples"]
    lines += [f"  {100 * n / total:5.1f}%  {frame}" for frame, n in own.most_common(top)]
    return lines


def _workload(name: str, client: AdbwireClient, workspace: Workspace) -> Callable[[], None]:
    if name == "echo":
        return client.echo
    source = workspace.source_file(TRANSFER_SIZE)
    remote = "/data/local/tmp/profile.bin"
    if name == "pull":
        on_device = workspace.device.host_path(remote)
        if not on_device.exists():
            os.link(source, on_device)
        pulled = workspace.scratch / "profile-pulled.bin"

        def pull() -> None:
            client.pull(remote, pulled)
            pulled.unlink()

        return pull
    return lambda: client.push(source, remote)


def profile(name: str, seconds: float, out: Path) -> list[str]:
    spy = _py_spy()
    if spy is None:
        raise SystemExit("py-spy is not installed: pip install py-spy")
    report = [f"## {name}"]
    with Workspace(with_adb=False) as workspace:
        client = AdbwireClient(workspace.serial, workspace.private_key)
        try:
            action = _workload(name, client, workspace)
            action()  # warm-up, and the device file for a pull
            targets = {"client": os.getpid(), "device": workspace.device.pid}
            recorders = []
            for role, pid in targets.items():
                for mode in ("gil", "active"):
                    raw = out / f"profile-{name}-{role}-{mode}.txt"
                    argv = [spy, "record", "--pid", str(pid), "-d", str(int(seconds) + 1)]
                    argv += ["-r", str(RATE), "--format", "raw", "-o", str(raw), "--nonblocking"]
                    argv += ["--gil"] if mode == "gil" else []
                    quiet = subprocess.DEVNULL
                    recorder = subprocess.Popen(argv, stdout=quiet, stderr=quiet)
                    recorders.append((role, mode, raw, recorder))
            time.sleep(0.5)  # let py-spy attach
            count, began = 0, time.perf_counter()
            while time.perf_counter() - began < seconds:
                action()
                count += 1
            report.append(f"{count} runs of the workload in {time.perf_counter() - began:.1f} s")
            for role, mode, raw, recorder in recorders:
                recorder.wait(seconds + 30)
                report.append(f"{role}, {mode} (top frames by own samples; raw: {raw.name}):")
                report += _summary(raw) if raw.exists() else ["  (no samples written)"]
        finally:
            client.close()
    return report


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.profiling", description=__doc__)
    parser.add_argument("--workload", action="append", choices=WORKLOADS)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    args.output.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    for name in args.workload or WORKLOADS:
        lines += [*profile(name, args.seconds, args.output), ""]
    text = "\n".join(lines)
    print(text)
    (args.output / "profile-summary.txt").write_text(text + "\n")


if __name__ == "__main__":
    main()
