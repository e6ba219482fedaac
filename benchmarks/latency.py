"""Measurement 1: per-call latency of sequential `echo` commands, clients interleaved.

Each client runs a block of calls, then the next client takes its turn (A B C A B C ...), so
machine noise falls on every client alike. A few untimed calls first warm each one up (for
adbwire and adb_shell that is the warm connection the measurement is about; for Google's adb
the server and its connection are already up, as they would be for an MCP server using it).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from benchmarks.config import Config
from benchmarks.cpu import Counters, CpuClock, add, client_and_device, spent
from benchmarks.stats import summary_ms

WARMUP_CALLS = 3

Echo = Callable[[], None]


def measure_echo(
    sides: Mapping[str, Echo], calls: int, block: int, clock: CpuClock
) -> dict[str, object]:
    """`calls` timed echo calls per side, in blocks of `block`; summary per side, with the
    CPU time each call cost the client side and the simulated device."""
    for echo in sides.values():
        for _ in range(WARMUP_CALLS):
            echo()
    samples: dict[str, list[float]] = {name: [] for name in sides}
    cpu: dict[str, Counters] = {name: {} for name in sides}
    order = list(sides)
    turn = 0
    while any(len(samples[name]) < calls for name in order):
        rotated = order[turn % len(order) :] + order[: turn % len(order)]
        for name in rotated:
            echo = sides[name]
            count = min(block, calls - len(samples[name]))
            before = clock.read()
            for _ in range(count):
                started = time.perf_counter()
                echo()
                samples[name].append(time.perf_counter() - started)
            cpu[name] = add(cpu[name], spent(before, clock.read()))
        turn += 1
    results: dict[str, object] = {}
    for name, values in samples.items():
        client, device = client_and_device(cpu[name])
        results[name] = {
            **summary_ms(values),
            "client_cpu_ms_per_call": client * 1000 / len(values),
            "device_cpu_ms_per_call": device * 1000 / len(values),
        }
    return results


def run(
    sides: Mapping[str, Echo], config: Config, mcp_pending: str | None, clock: CpuClock
) -> dict[str, object]:
    """Every side with `config.echo_calls` calls; MCP (with fewer calls) when available.

    The MCP side, when present in `sides` under "mcp run_shell", runs `config.mcp_calls`
    calls in its own interleaved pass with adbwire, so the two stay comparable.
    """
    direct = {name: echo for name, echo in sides.items() if name != "mcp run_shell"}
    results = measure_echo(direct, config.echo_calls, config.echo_block, clock)
    if "mcp run_shell" in sides:
        paired = {
            "adbwire (paired with MCP)": sides["adbwire"],
            "mcp run_shell": sides["mcp run_shell"],
        }
        block = max(1, min(config.echo_block, config.mcp_calls))
        results.update(measure_echo(paired, config.mcp_calls, block, clock))
    else:
        results["mcp run_shell"] = {"pending": mcp_pending or "pending"}
    results["calls"] = config.echo_calls
    return results
