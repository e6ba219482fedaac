"""What recording a trace adds to each tool call, on the simulated device.

    .venv/bin/python scripts/trace_overhead.py [--rounds 20] [--think-ms 0] [--connect ADDR]

One MCP session in memory (the real server and client, as `serve_session` builds them) runs
the same calls with tracing off and on, alternating rounds: a coordinate tap, a key press,
`tap_element` (its own UI dumps and settle wait included), and `ui_tree` (a read: no
screens). It prints the median wall time per call each way, the difference, and the
recorder's own measure of its time (each step's ``trace_ms``). ``--think-ms`` pauses between
calls as an agent does while its model reads a result: the screen after an action is taken
in that pause, so only the one before is waited for. ``--connect`` runs against a TCP
device instead (e.g. ``adbwire simulate --accept-any-key --link-mbps 40
--screencap-encode-ms 300``: a slow phone). On a shared machine wall
times include waiting for a core; compare the medians of the same run. Numbers:
docs/trace.md.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from adbwire.mcp.server.client_session import serve_session
from adbwire.mcp.trace.format import read_trace

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("tap", {"x": 540, "y": 300}),
    ("press_key", {"key": "KEYCODE_UNKNOWN"}),
    ("tap_element", {"query": "Search"}),
    ("press_key", {"key": "back"}),
    ("ui_tree", {}),
]


async def one_round(trace: Path | None, think: float, connect: str) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {}
    device: dict[str, Any] = {"connect": [connect]} if connect else {"simulate": True}
    async with serve_session(trace=trace, **device) as session:
        await session.call_tool("launch_app", {"package": "com.example.notes"})
        for tool, arguments in CALLS * 3:
            started = time.perf_counter()
            result = await session.call_tool(tool, arguments)
            elapsed = time.perf_counter() - started
            if result.is_error:
                raise SystemExit(f"{tool} failed: {result.content}")
            times.setdefault(f"{tool} {arguments}", []).append(elapsed)
            await anyio.sleep(think)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--think-ms", type=float, default=0.0)
    parser.add_argument("--connect", default="", help="HOST:PORT of a TCP device")
    options = parser.parse_args()
    rounds, think = options.rounds, options.think_ms / 1000
    off: dict[str, list[float]] = {}
    on: dict[str, list[float]] = {}
    recorded: dict[str, list[int]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for number in range(rounds):
            for times, trace in ((off, None), (on, Path(scratch) / f"t{number}")):
                for key, found in anyio.run(one_round, trace, think, options.connect).items():
                    times.setdefault(key, []).extend(found)
                if trace is not None:
                    for step in read_trace(trace).steps[1:]:
                        key = f"{step['tool']} {step['arguments']}"
                        recorded.setdefault(key, []).append(int(step.get("trace_ms", 0)))
    print(f"{'call':44} {'off ms':>8} {'on ms':>8} {'added':>8} {'trace_ms':>9}")
    for key, untraced in off.items():
        a, b = statistics.median(untraced) * 1000, statistics.median(on[key]) * 1000
        mine = statistics.median(recorded.get(key, [0]))
        print(f"{key[:44]:44} {a:8.1f} {b:8.1f} {b - a:8.1f} {mine:9.1f}")


if __name__ == "__main__":
    main()
