"""Experiments behind the explanations in docs/performance.md (not part of the benchmark run).

    python -m benchmarks.diagnose [--only anatomy|instructions|timeline|floor|window|nagle|
                                          delayed-ack]

- anatomy: CPU per call of the client and of the simulated device for `shell echo`, `exec`
  echo and a bare OPEN/CLSE of `source:0` (the simulator's floor cost per stream).
- instructions: user-space instructions the simulated device runs per shell echo, counted
  by valgrind's callgrind (needs valgrind; minutes): the difference between a device that
  served 1,200 echoes and one that served 200, so start-up cancels out. Unlike CPU time,
  the count hardly moves with the machine's load; kernel time (system calls, wake-ups) is
  not in it.
- window: head-of-line ratio and pull rate with adbwire's delayed_ack receive window set to
  1, 2 and 4 MiB. This patches HostProtocol's default in this process only, an experiment
  to size the window, not a setting users have.
- nagle: adb_shell's echo latency as shipped and with TCP_NODELAY set on its socket.
- delayed-ack: adbwire pushing with and without delayed_ack (Google's adb 29 has none):
  rate, CPU per GB on each side and the simulator's minor page faults per GB.
- timeline: one shell echo round trip step by step across client and simulator
  (benchmarks/timeline.py).
- floor: echo round trips of adbwire, adb_shell and Google's adb against a scripted peer
  that answers at once (benchmarks/instant_peer.py): what each client costs by itself.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import socket
import statistics
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.children import REPO_ROOT, module_argv
from benchmarks.clients import AdbShellClient, AdbwireClient, BenchClient, GoogleAdbClient
from benchmarks.config import MIB
from benchmarks.cpu import client_and_device, spent
from benchmarks.google_adb import GoogleAdb, adb_available
from benchmarks.head_of_line import discarding_sink
from benchmarks.instant_peer import InstantPeerProcess
from benchmarks.timeline import timeline
from benchmarks.workspace import Workspace

CALLS = 500
WINDOWS = (1 * MIB, 2 * MIB, 4 * MIB)
HOL_SIZE = 512 * MIB
PUSH_SIZE = 512 * MIB
EXPERIMENTS = ("anatomy", "instructions", "timeline", "floor", "window", "nagle", "delayed-ack")
INSTRUCTION_ECHOES = (200, 1200)
VALGRIND_TIMEOUT = 1800.0


def _calls(action: Callable[[], object], count: int) -> list[float]:
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return samples


def _describe(samples: list[float]) -> str:
    slow = sum(1 for s in samples if s > 0.02)
    return (
        f"median {statistics.median(samples) * 1000:.3f} ms, mean "
        f"{statistics.fmean(samples) * 1000:.3f} ms, {slow}/{len(samples)} calls over 20 ms"
    )


def anatomy(workspace: Workspace) -> list[str]:
    client = AdbwireClient(workspace.serial, workspace.private_key)
    adb = client.client

    def bare_open() -> None:
        with adb.open_stream("source:0") as stream:
            stream.read_all()

    actions: dict[str, Callable[[], object]] = {
        "shell echo (shell v2)": client.echo,
        "exec echo (exec:)": lambda: adb.exec_out("echo benchmark"),
        "OPEN source:0 + CLSE": bare_open,
    }
    lines = ["## anatomy: CPU per call (client = this process, device = simulator)"]
    try:
        for name, action in actions.items():
            _calls(action, 20)
            before = workspace.cpu.read()
            samples = _calls(action, CALLS)
            client_cpu, device_cpu = client_and_device(spent(before, workspace.cpu.read()))
            lines.append(
                f"- {name}: {_describe(samples)}; CPU per call: client "
                f"{client_cpu / CALLS * 1000:.3f} ms, device {device_cpu / CALLS * 1000:.3f} ms"
            )
    finally:
        client.close()
    return lines


def _device_instructions(workspace: Workspace, valgrind: str, echoes: int) -> int:
    """Instructions a simulated device (its own process, under callgrind) ran in all while
    serving `echoes` shell echoes on one connection."""
    argv = [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    argv += module_argv(
        "benchmarks.device_host",
        *("--root", str(workspace.root / f"counted-{echoes}")),
        *("--authorized-keys", str(workspace.public_key)),
    )
    report_file = workspace.root / f"callgrind-{echoes}.txt"
    with report_file.open("w") as report:  # a file: a full pipe would stall the device
        pipe = subprocess.PIPE
        device = subprocess.Popen(
            argv, stdin=pipe, stdout=pipe, stderr=report, text=True, cwd=REPO_ROOT
        )
        assert device.stdin is not None and device.stdout is not None
        try:
            serial = device.stdout.readline().strip()
            client = AdbwireClient(serial, workspace.private_key)
            try:
                _calls(client.echo, echoes)
            finally:
                client.close()
            device.stdin.close()
            device.wait(VALGRIND_TIMEOUT)
        finally:
            if device.poll() is None:
                device.kill()
                device.wait()
            device.stdout.close()
    found = re.search(r"Collected : (\d+)", report_file.read_text())
    if found is None:
        raise RuntimeError(f"callgrind reported no count (see {report_file})")
    return int(found.group(1))


def instructions(workspace: Workspace) -> list[str]:
    lines = ["## instructions: the simulated device's user-space instructions per shell echo"]
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return [*lines, "- not measured: valgrind is not installed"]
    fewer, more = INSTRUCTION_ECHOES
    counts = {echoes: _device_instructions(workspace, valgrind, echoes) for echoes in (fewer, more)}
    per_echo = (counts[more] - counts[fewer]) / (more - fewer)
    lines.append(
        f"- {per_echo / 1000:.1f}k per echo ({counts[fewer]:,} after {fewer} echoes, "
        f"{counts[more]:,} after {more}; start-up included in both)"
    )
    return lines


def _hol_once(workspace: Workspace, remote: str) -> tuple[float, float, float]:
    client = AdbwireClient(workspace.serial, workspace.private_key)
    try:
        idle = statistics.median(_calls(client.echo, 40))
        done = threading.Event()
        seconds: list[float] = []

        def pull() -> None:
            started = time.perf_counter()
            try:
                client.client.pull_stream(remote, discarding_sink())
            finally:
                seconds.append(time.perf_counter() - started)
                done.set()

        worker = threading.Thread(target=pull)
        worker.start()
        busy = []
        while not done.is_set():
            started = time.perf_counter()
            client.echo()
            if not done.is_set():
                busy.append(time.perf_counter() - started)
        worker.join(600)
        return idle, statistics.median(busy), HOL_SIZE / 1e6 / seconds[0]
    finally:
        client.close()


def window(workspace: Workspace) -> list[str]:
    from adbwire.wire.protocol import HostProtocol  # noqa: PLC0415

    defaults = HostProtocol.__init__.__kwdefaults__
    assert defaults is not None and "receive_window" in defaults
    shipped = defaults["receive_window"]
    remote = "/data/local/tmp/window.bin"
    os.link(workspace.source_file(HOL_SIZE), workspace.device.host_path(remote))
    lines = [f"## window: echo during a {HOL_SIZE // MIB} MiB pull on the same connection"]
    lines.append(f"(shipped receive window: {shipped / MIB:g} MiB)")
    try:
        for round_number in range(2):
            for size in WINDOWS:
                defaults["receive_window"] = size
                idle, busy, rate = _hol_once(workspace, remote)
                lines.append(
                    f"- round {round_number + 1}, window {size // MIB} MiB: idle "
                    f"{idle * 1000:.2f} ms, during {busy * 1000:.2f} ms, ratio "
                    f"{busy / idle:.2f}x; pull {rate:.0f} MB/s"
                )
    finally:
        defaults["receive_window"] = shipped
        workspace.device.host_path(remote).unlink(missing_ok=True)
    return lines


def nagle(workspace: Workspace) -> list[str]:
    client = AdbShellClient(workspace.serial, workspace.private_key)
    lines = ["## nagle: adb_shell echo, as shipped and with TCP_NODELAY"]
    try:
        _calls(client.echo, 10)
        lines.append(f"- as shipped: {_describe(_calls(client.echo, CALLS // 2))}")
        sock = client.device._io_manager._transport._connection
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        lines.append(f"- TCP_NODELAY: {_describe(_calls(client.echo, CALLS // 2))}")
    finally:
        client.close()
    return lines


def _minor_faults(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[7])


def delayed_ack(workspace: Workspace) -> list[str]:
    from adbwire.wire.banner import HOST_FEATURES  # noqa: PLC0415
    from adbwire.wire.client import AdbClient  # noqa: PLC0415
    from adbwire.wire.connection import Connection  # noqa: PLC0415
    from adbwire.wire.keys import load_key  # noqa: PLC0415
    from adbwire.wire.transport import TcpTransport  # noqa: PLC0415

    source = workspace.source_file(PUSH_SIZE)
    gigabytes = PUSH_SIZE / 1e9
    lines = [f"## delayed-ack: adbwire push of {PUSH_SIZE // MIB} MiB, three runs each"]
    for round_number in range(3):
        for label, features in (
            ("with delayed_ack", HOST_FEATURES),
            ("without delayed_ack", tuple(f for f in HOST_FEATURES if f != "delayed_ack")),
        ):
            host, port = workspace.device.host_port
            keys = [load_key(workspace.private_key)]
            connection = Connection.open(TcpTransport(host, port), keys, features=features)
            with AdbClient(connection) as client:
                before, faults = workspace.cpu.read(), _minor_faults(workspace.device.pid)
                started = time.perf_counter()
                client.push([source], "/data/local/tmp/delayed-ack.bin").raise_first()
                seconds = time.perf_counter() - started
                cpu_client, cpu_device = client_and_device(spent(before, workspace.cpu.read()))
                faults = _minor_faults(workspace.device.pid) - faults
            lines.append(
                f"- round {round_number + 1}, {label}: {PUSH_SIZE / 1e6 / seconds:.0f} MB/s; "
                f"CPU s/GB client {cpu_client / gigabytes:.2f}, device "
                f"{cpu_device / gigabytes:.2f}; simulator minor faults/GB "
                f"{faults / gigabytes:.0f}"
            )
    workspace.device.host_path("/data/local/tmp/delayed-ack.bin").unlink(missing_ok=True)
    return lines


def floor(workspace: Workspace) -> list[str]:
    lines = ["## floor: echo against a peer that answers at once (median of each client)"]
    with InstantPeerProcess() as peer, contextlib.ExitStack() as stack:
        clients: list[BenchClient] = [
            AdbwireClient(peer.serial, workspace.private_key),
            AdbShellClient(peer.serial, workspace.private_key),
        ]
        if adb_available():
            adb = stack.enter_context(GoogleAdb(workspace.root / "floor", workspace.private_key))
            clients.append(GoogleAdbClient(adb.start(peer.serial), peer.serial))
        medians: dict[str, list[float]] = {client.name: [] for client in clients}
        try:
            for client in clients:
                _calls(client.echo, 20)
            for _round in range(5):  # interleaved, as in the benchmark proper
                for client in clients:
                    count = 20 if client.name == "adb" else 200
                    medians[client.name].append(statistics.median(_calls(client.echo, count)))
        finally:
            for client in clients:
                client.close()
    for name, values in medians.items():
        lines.append(
            f"- {name}: median of 5 rounds {statistics.median(values) * 1000:.3f} ms "
            f"(rounds: {', '.join(f'{v * 1000:.3f}' for v in values)})"
        )
    if "adb" in medians:
        ratio = statistics.median(medians["adb"]) / statistics.median(medians["adbwire"])
        lines.append(f"- adb / adbwire with a device that costs nothing: {ratio:.1f}x")
    return lines


def _timeline(_workspace: Workspace) -> list[str]:
    return timeline()  # runs a device of its own, instrumented


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.diagnose", description=__doc__)
    parser.add_argument("--only", action="append", choices=EXPERIMENTS)
    args = parser.parse_args()
    experiments = {
        "anatomy": anatomy,
        "instructions": instructions,
        "window": window,
        "nagle": nagle,
        "delayed-ack": delayed_ack,
        "floor": floor,
        "timeline": _timeline,
    }
    with Workspace(with_adb=False) as workspace:
        for name in args.only or EXPERIMENTS:
            print("\n".join(experiments[name](workspace)), "", sep="\n", flush=True)


if __name__ == "__main__":
    main()
