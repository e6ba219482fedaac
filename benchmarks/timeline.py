"""Where one `shell echo` round trip spends its time, step by step, across both processes.

    python -m benchmarks.diagnose --only timeline

The simulated device runs in a child process; in both processes a few internal methods are
wrapped to note a timestamp (`time.perf_counter_ns`, the same monotonic clock in every
process on a machine) when they are entered or left. Each call's timestamps are taken
relative to the moment the client started opening the stream, and the report gives each
step's median over all calls. The wrappers cost a microsecond or two each, so the absolute
figures are slightly high; the gaps between steps are what this is for.

This reaches into private methods on purpose: it is an instrument, not an API user.
"""

from __future__ import annotations

import functools
import multiprocessing
import statistics
import time
from collections.abc import Callable
from multiprocessing.connection import Connection as Pipe
from typing import Any

CALLS = 2000
WARMUP = 300
Event = tuple[int, str]

_now = time.perf_counter_ns


def _wrap(owner: Any, name: str, log: list[Event], entered: str | None, left: str | None) -> None:
    original: Callable[..., Any] = getattr(owner, name)

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if entered:
            log.append((_now(), entered))
        result = original(*args, **kwargs)
        if left:
            log.append((_now(), left))
        return result

    setattr(owner, name, wrapper)


def _device(pipe: Pipe) -> None:
    import adbwire.testing.connection as device_connection  # noqa: PLC0415
    from adbwire.testing import SimulatedDevice  # noqa: PLC0415
    from adbwire.testing.options import DeviceOptions  # noqa: PLC0415

    log: list[Event] = []
    connection = device_connection.DeviceConnection
    _wrap(connection, "_on_open", log, "device: OPEN arrived", "device: OKAY sent")
    _wrap(connection, "_on_write", log, "device: a WRTE arrived (close-stdin)", None)
    _wrap(device_connection, "_serve", log, "device: service started", "device: service done")
    with SimulatedDevice(DeviceOptions(auth_required=False)) as device:
        pipe.send(device.port)
        pipe.recv()
        pipe.send(log)


def _client(port: int) -> list[Event]:
    import adbwire.wire.connection as connection  # noqa: PLC0415
    import adbwire.wire.services.shell as shell  # noqa: PLC0415
    import adbwire.wire.stream as stream  # noqa: PLC0415
    from adbwire.wire.client import AdbClient  # noqa: PLC0415

    log: list[Event] = []
    client = AdbClient.connect_tcp(f"127.0.0.1:{port}", [])
    try:
        for _ in range(WARMUP):
            client.shell("echo benchmark")
        _wrap(connection.Connection, "open_stream", log, "client: opening", "client: caller woke")
        _wrap(stream.Stream, "_on_opened", log, "client: OKAY arrived", None)
        _wrap(stream.Stream, "_on_data", log, "client: data arrived", None)
        _wrap(stream.Stream, "_on_remote_close", log, "client: CLSE arrived", None)
        _wrap(shell.ShellProcess, "close_stdin", log, None, "client: close-stdin handled")
        _wrap(shell.ShellProcess, "close", log, "client: output complete", "client: done")
        for _ in range(CALLS):
            client.shell("echo benchmark")
    finally:
        client.close()
    return log


def timeline() -> list[str]:
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    device = context.Process(target=_device, args=(theirs,), daemon=True)
    device.start()
    try:
        if not ours.poll(60):
            raise RuntimeError("the simulated device did not start")
        log = _client(ours.recv())
        ours.send("done")
        if not ours.poll(60):
            raise RuntimeError("the simulated device did not report")
        log += ours.recv()
    finally:
        device.join(30)
        if device.is_alive():
            device.kill()
    steps: dict[str, list[float]] = {}
    call: list[Event] = []
    for stamp, label in [*sorted(log), (0, "client: opening")]:
        if label == "client: opening" and call:
            start = call[0][0]
            seen: set[str] = set()
            for when, what in call:
                if what not in seen:
                    seen.add(what)
                    steps.setdefault(what, []).append((when - start) / 1000)
            call = []
        if stamp and (call or label == "client: opening"):  # warm-up traffic comes first
            call.append((stamp, label))
    lines = [f"## timeline: one `shell echo`, median µs after the client starts ({CALLS} calls)"]
    for label, values in sorted(steps.items(), key=lambda item: statistics.median(item[1])):
        share = f"{len(values)}/{CALLS} calls" if len(values) < CALLS else "every call"
        lines.append(f"- {statistics.median(values):7.1f} µs  {label} ({share})")
    return lines
