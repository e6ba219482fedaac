"""Measurement 3: does a bulk pull hold back small calls on the same adbwire connection?

Idle: `echo` calls on the warm connection. Busy: the same calls while a large file is pulled
(into a sink that discards it), for as long as the pull runs. The issue's figure is the pull
on the *same* connection. Two controls tell apart what the connection adds from what the
machine adds: the pull on a second connection in this process (shares our GIL and CPU, not
the connection), and the pull by another process (shares only the CPUs and the simulator).

Child (the control's other process): `python -m benchmarks.head_of_line --serial S --key K
--remote PATH --size N` connects, prints "start", pulls, prints "done".
"""

from __future__ import annotations

import argparse
import io
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO, cast

from benchmarks.children import REPO_ROOT, module_argv
from benchmarks.stats import megabytes_per_second, summary_ms

IDLE_CALLS = 40
BULK_ATTEMPTS = 3
PULL_TIMEOUT = 900.0
SAME = "same connection"
SECOND = "second connection, same process"
OTHER = "other process"

Bulk = Callable[[threading.Event], None]


class _Discarding(io.RawIOBase):
    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        return len(memoryview(data))


def discarding_sink() -> BinaryIO:
    """A binary sink that throws away what it is given."""
    return cast(BinaryIO, _Discarding())


def _echo_samples(echo: Callable[[], None], count: int) -> list[float]:
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        echo()
        samples.append(time.perf_counter() - started)
    return samples


def _pull_checked(client: Any, remote: str, size: int) -> None:
    pulled = client.pull_stream(remote, discarding_sink(), timeout=PULL_TIMEOUT)
    if pulled != size:
        raise RuntimeError(f"the bulk pull moved {pulled} bytes, {size} expected")


def _during(echo: Callable[[], None], bulk: Bulk) -> tuple[list[float], float]:
    """Echo calls that ran wholly while `bulk` was moving data, and the bulk's seconds.

    A small bulk (quick mode) can end before a single echo does, so it is tried again."""
    for _ in range(BULK_ATTEMPTS):
        busy, seconds = _during_one_bulk(echo, bulk)
        if busy:
            return busy, seconds
    raise RuntimeError(
        f"the pull ended before any echo call completed during it ({BULK_ATTEMPTS} tries)"
    )


def _during_one_bulk(echo: Callable[[], None], bulk: Bulk) -> tuple[list[float], float]:
    failure: list[BaseException] = []
    started, finished = threading.Event(), threading.Event()

    def work() -> None:
        try:
            bulk(started)
        except BaseException as exc:
            failure.append(exc)
        finally:
            started.set()
            finished.set()

    worker = threading.Thread(target=work, name="bench-bulk-pull")
    worker.start()
    started.wait(PULL_TIMEOUT)
    began = time.perf_counter()
    busy: list[float] = []
    while not finished.is_set():
        call_started = time.perf_counter()
        echo()
        if not finished.is_set():
            busy.append(time.perf_counter() - call_started)
    seconds = time.perf_counter() - began
    worker.join(PULL_TIMEOUT)
    if failure:
        raise failure[0]
    return busy, seconds


def _other_process(serial: str, key: Path, remote: str, size: int) -> Bulk:
    def bulk(started: threading.Event) -> None:
        argv = module_argv("benchmarks.head_of_line", "--serial", serial, "--key", str(key))
        argv += ["--remote", remote, "--size", str(size)]
        with subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, cwd=REPO_ROOT) as child:
            assert child.stdout is not None
            if child.stdout.readline().strip() == "start":
                started.set()
            last = child.stdout.readline().strip()
            if child.wait(PULL_TIMEOUT) != 0 or last != "done":
                raise RuntimeError("the other process's pull failed")

    return bulk


def run(
    client: Any,
    second: Any,
    echo: Callable[[], None],
    remote: str,
    size: int,
    *,
    serial: str,
    key: Path,
) -> dict[str, object]:
    """`client` and `second` are AdbClients on two connections to a device holding `remote`."""

    def on(connection: Any) -> Bulk:
        def bulk(started: threading.Event) -> None:
            started.set()
            _pull_checked(connection, remote, size)

        return bulk

    variants = {
        SAME: on(client),
        SECOND: on(second),
        OTHER: _other_process(serial, key, remote, size),
    }
    idle_all: list[float] = []
    results: dict[str, object] = {"size": size}
    for name, bulk in variants.items():
        idle = _echo_samples(echo, IDLE_CALLS)
        idle_all += idle
        busy, seconds = _during(echo, bulk)
        idle_median = float(summary_ms(idle)["median_ms"])
        during = summary_ms(busy)
        results[name] = {
            "idle_median_ms": idle_median,
            "during": during,
            "ratio": float(during["median_ms"]) / idle_median,
            "pull_mb_s": megabytes_per_second(size, seconds),
        }
    results["idle"] = summary_ms(idle_all + _echo_samples(echo, IDLE_CALLS))
    same = results[SAME]
    assert isinstance(same, dict)
    results["ratio"] = same["ratio"]
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--serial", required=True)
    parser.add_argument("--key", type=Path, required=True)
    parser.add_argument("--remote", required=True)
    parser.add_argument("--size", type=int, required=True)
    args = parser.parse_args()
    from adbwire.wire.client import AdbClient  # noqa: PLC0415
    from adbwire.wire.keys import load_key  # noqa: PLC0415

    with AdbClient.connect_tcp(args.serial, [load_key(args.key)]) as client:
        print("start", flush=True)
        _pull_checked(client, args.remote, args.size)
    print("done", flush=True)


if __name__ == "__main__":
    main()
