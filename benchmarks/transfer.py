"""Measurement 2: push and pull throughput of every client, and the loopback ceiling.

Per round and size: the loopback socket copy of the same file, adbwire over the simulator's
raw `source:N`/`sink:N` services (no files, no sync protocol: what the transport, our client
and the simulator's packet path can do), then each client pushes the file to the simulated
device and pulls it back, the clients' order rotating from round to round. Every transfer is
checked (the size on arrival; in quick mode every byte) and its files removed at once.
Each run also records the CPU seconds the client side and the device side spent.
"""

from __future__ import annotations

import filecmp
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.clients import AdbwireClient, BenchClient
from benchmarks.config import Config
from benchmarks.cpu import CpuClock, client_and_device, spent
from benchmarks.loopback import copy_through_loopback
from benchmarks.stats import megabytes_per_second
from benchmarks.workspace import Workspace

CEILING = "loopback socket copy"
RAW = "adbwire raw stream"
RAW_BLOCK = 1024 * 1024

Sample = dict[str, float]


def _check_size(path: Path, size: int, what: str) -> None:
    actual = path.stat().st_size
    if actual != size:
        raise RuntimeError(f"{what}: {actual} bytes arrived, {size} expected")


def _sample(size: int, seconds: float, client_cpu: float, device_cpu: float) -> Sample:
    gigabytes = size / 1e9
    return {
        "mb_s": megabytes_per_second(size, seconds),
        "client_cpu_s_per_gb": client_cpu / gigabytes,
        "device_cpu_s_per_gb": device_cpu / gigabytes,
    }


def _measure(clock: CpuClock, size: int, action: Callable[[], object]) -> Sample:
    before = clock.read()
    seconds = _timed(action)
    client, device = client_and_device(spent(before, clock.read()))
    return _sample(size, seconds, client, device)


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _ceiling(source: Path, workspace: Workspace, size: int) -> Sample:
    """The sender plays the client, the receiver (another process) the device."""
    destination = workspace.device.host_path("/data/local/tmp/ceiling.bin")
    try:
        copy = copy_through_loopback(source, destination)
        _check_size(destination, size, CEILING)
    finally:
        destination.unlink(missing_ok=True)
    return _sample(size, copy.seconds, copy.sender_cpu, copy.receiver_cpu)


def _raw_pull(client: Any, size: int) -> None:
    received = 0
    with client.open_stream(f"source:{size}") as stream:
        while chunk := stream.read():
            received += len(chunk)
    if received != size:
        raise RuntimeError(f"source:{size} sent {received} bytes")


def _raw_push(client: Any, size: int) -> None:
    block = bytes(RAW_BLOCK)
    with client.open_stream(f"sink:{size}") as stream:
        for offset in range(0, size, RAW_BLOCK):
            stream.write(block[: min(RAW_BLOCK, size - offset)])
        while stream.read():  # the device closes once it has swallowed everything
            pass


def _push_pull(
    client: BenchClient, source: Path, workspace: Workspace, size: int, config: Config
) -> tuple[Sample, Sample]:
    remote = f"/data/local/tmp/bench-{client.name}-{size}.bin"
    on_device = workspace.device.host_path(remote)
    pulled = workspace.scratch / f"pulled-{client.name}.bin"
    clock = workspace.cpu
    try:
        push = _measure(clock, size, lambda: client.push(source, remote))
        _check_size(on_device, size, f"{client.name} push")
        pull = _measure(clock, size, lambda: client.pull(remote, pulled))
        _check_size(pulled, size, f"{client.name} pull")
        if config.verify_bytes and not filecmp.cmp(source, pulled, shallow=False):
            raise RuntimeError(f"{client.name}: the pulled file differs from the pushed one")
    finally:
        on_device.unlink(missing_ok=True)
        pulled.unlink(missing_ok=True)
    return push, pull


def _summarise(samples: list[Sample]) -> dict[str, object]:
    return {
        "median_mb_s": statistics.median(s["mb_s"] for s in samples),
        "runs_mb_s": [s["mb_s"] for s in samples],
        "client_cpu_s_per_gb": statistics.median(s["client_cpu_s_per_gb"] for s in samples),
        "device_cpu_s_per_gb": statistics.median(s["device_cpu_s_per_gb"] for s in samples),
    }


def run(clients: Sequence[BenchClient], workspace: Workspace, config: Config) -> dict[str, object]:
    ours = next(c for c in clients if isinstance(c, AdbwireClient))
    clock = workspace.cpu
    samples: dict[int, dict[str, dict[str, list[Sample]]]] = {}
    for round_number in range(config.transfer_rounds):
        shift = round_number % len(clients)
        order = [*clients[shift:], *clients[:shift]]
        for size in config.transfer_sizes:
            source = workspace.source_file(size)
            per_size = samples.setdefault(size, {"push": {}, "pull": {}, "ceiling": {}})
            per_size["ceiling"].setdefault(CEILING, []).append(_ceiling(source, workspace, size))
            raw_pull = _measure(clock, size, lambda: _raw_pull(ours.client, size))  # noqa: B023
            raw_push = _measure(clock, size, lambda: _raw_push(ours.client, size))  # noqa: B023
            per_size["pull"].setdefault(RAW, []).append(raw_pull)
            per_size["push"].setdefault(RAW, []).append(raw_push)
            for client in order:
                push, pull = _push_pull(client, source, workspace, size, config)
                per_size["push"].setdefault(client.name, []).append(push)
                per_size["pull"].setdefault(client.name, []).append(pull)
    return {
        "rounds": config.transfer_rounds,
        "sizes": {
            str(size): {
                kind: {name: _summarise(runs) for name, runs in by_client.items()}
                for kind, by_client in per_size.items()
            }
            for size, per_size in samples.items()
        },
    }
