"""CPU time of every process taking part, so a figure says who did the work.

Throughput on a shared two-core machine is noisy; CPU seconds per gigabyte (or per call)
are much steadier, and they show whether the client, the simulated device or the machine
is the limit. Counters (user + system seconds):

- self: this benchmark process (adbwire and adb_shell run in it; so does a ceiling sender)
- children: child processes we waited for (each `adb` client call; the ceiling receiver)
- simulator: the simulated device's process (it reports its own getrusage)
- adb_server: Google's adb server (a daemon, found by its fenced server port)
"""

from __future__ import annotations

import os
import resource
from collections.abc import Callable
from pathlib import Path

Counters = dict[str, float]


def _self_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _children_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def process_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process (0.0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class CpuClock:
    def __init__(
        self, simulator_seconds: Callable[[], float], adb_server_pid: Callable[[], int | None]
    ) -> None:
        self._simulator_seconds = simulator_seconds
        self._adb_server_pid = adb_server_pid

    def read(self) -> Counters:
        adb_server = self._adb_server_pid()
        return {
            "self": _self_seconds(),
            "children": _children_seconds(),
            "simulator": self._simulator_seconds(),
            "adb_server": 0.0 if adb_server is None else process_seconds(adb_server),
        }


def spent(before: Counters, after: Counters) -> Counters:
    return {name: after[name] - before[name] for name in before}


def add(total: Counters, more: Counters) -> Counters:
    return {name: total.get(name, 0.0) + value for name, value in more.items()}


def client_and_device(counters: Counters) -> tuple[float, float]:
    """(client side, device side) CPU seconds."""
    client = counters["self"] + counters["children"] + counters["adb_server"]
    return client, counters["simulator"]
