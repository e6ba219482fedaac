"""Screenshots in a fresh process: what hostile ones cost, and whether normal ones leak.

    python -m tests.device.screen_memory_probe

prints one JSON list: per hostile device and path (the device layer's `take_screenshot`,
the MCP `screenshot` tool), the outcome (the error's type, or its MCP code), the seconds it
took and how far the process's peak RSS rose above the peak of normal 1080x2400
screenshots taken first on both paths. The address space is limited (ADDRESS_SPACE_LIMIT), so
code without the limits fails with MemoryError instead of taking the machine's memory.

    python -m tests.device.screen_memory_probe flat [SHOTS]

serves a simulated device from a child process (so its memory is not counted) to an MCP
server in this one, takes WARM_UP screenshots through the `screenshot` tool, then SHOTS
more (default 100), and prints one JSON object: this process's RSS before the first
screenshot (device connected, Pillow loaded), after the first, after the warm-up, at the
end, and at its highest after the first (MiB, VmRSS sampled after every screenshot), the
size of the frame buffers kept for reuse (``frame_pool``), and the median milliseconds per
screenshot.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import resource
import statistics
import struct
import sys
import time
import zlib
from collections.abc import Callable
from multiprocessing.connection import Connection

import anyio
from mcp import Client

from adbwire.device.screen import take_screenshot
from adbwire.device.screen.frame_pool import POOL
from adbwire.errors import AdbwireError
from adbwire.mcp.devices import DeviceRegistry
from adbwire.mcp.safety.audit import AuditLog
from adbwire.mcp.safety.policy import Policy
from adbwire.mcp.server.app import App
from adbwire.mcp.server.server import build_server
from adbwire.testing import DeviceOptions, running_device
from adbwire.testing.hostile import (
    Rule,
    bomb_png,
    endless_output,
    hostile_userland,
    huge_raw_screencap,
    png_bomb_screencap,
)
from adbwire.testing.hostile.userland import Invocation
from adbwire.wire.client import AdbClient
from tests.mcp.harness import connected, make_app

ADDRESS_SPACE_LIMIT = 4 << 30
OVERLONG_BODY = 256 << 20  # after a 1080x2400 header that promises 10 MB


def png_header(width: int, height: int) -> bytes:
    """A PNG signature and IHDR for an 8-bit RGBA image of that size."""
    body = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    ihdr = struct.pack(">I", 13) + b"IHDR" + body + struct.pack(">I", zlib.crc32(b"IHDR" + body))
    return b"\x89PNG\r\n\x1a\n" + ihdr


def raw_fails() -> Rule:
    """Raw `screencap` prints an error, so a screenshot goes on to `screencap -p`."""

    def respond(call: Invocation) -> int:
        call.io.write_stdout(b"Capturing failed.\n")
        return 1

    return Rule(lambda command: command.strip() == "screencap", respond)


HOSTILE: dict[str, Callable[[], list[Rule]]] = {
    "png_bomb": lambda: [raw_fails(), png_bomb_screencap()],
    "raw_huge_header": lambda: [huge_raw_screencap(13000, 13000)],
    "raw_overlong": lambda: [huge_raw_screencap(1080, 2400, body_bytes=OVERLONG_BODY)],
    "png_endless": lambda: [
        raw_fails(),
        endless_output("screencap -p", prefix=png_header(1080, 2400), line="IDAT"),
    ],
}


def via_device(rules: list[Rule]) -> str:
    options = DeviceOptions(auth_required=False)
    with (
        running_device(options, hostile_userland(*rules)) as device,
        AdbClient.connect_tcp(device.serial, []) as client,
    ):
        try:
            take_screenshot(client)
        except AdbwireError as exc:
            return type(exc).__name__
        return "no error"


def via_mcp(rules: list[Rule]) -> str:
    async def call(serial: str) -> str:
        app = make_app([device], policy=Policy(profile="full"))
        try:
            async with connected(app) as client:
                result = await client.call_tool("screenshot", {"serial": serial})
        finally:
            app.close()
        if not result.is_error:
            return "no error"
        assert result.structured_content is not None
        return str(result.structured_content["error"]["code"])

    options = DeviceOptions(auth_required=False)
    with running_device(options, hostile_userland(*rules)) as device:
        return anyio.run(call, device.serial)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


FLAT_DEADLINE = 600.0  # seconds for the whole run; a screenshot takes well under one
WARM_UP = 10
"""Enough for the capture path's warm-up (raw, PNG, raw, PNG) and allocator pools to fill."""


def serve_device(pipe: Connection) -> None:
    """Child process: a simulated device until the parent says stop (or goes away)."""
    with running_device(DeviceOptions(auth_required=False)) as device:
        pipe.send(device.serial)
        with contextlib.suppress(EOFError):
            pipe.recv()


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def flat(shots: int) -> dict[str, float]:
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    child = context.Process(target=serve_device, args=(theirs,), daemon=True)
    child.start()
    try:
        if not ours.poll(60):
            raise RuntimeError("the simulated device did not start")
        serial = ours.recv()
        return anyio.run(_shots_through_mcp, serial, shots)
    finally:
        ours.send("stop")
        child.join(30)


async def _shots_through_mcp(serial: str, shots: int) -> dict[str, float]:
    registry = DeviceRegistry(list)
    registry.add_tcp(serial, kind="simulated", keys=list)
    app = App(Policy(profile="full"), registry, AuditLog(None), transport="memory")
    took: list[float] = []
    try:
        with anyio.fail_after(FLAT_DEADLINE):
            async with Client(build_server(app), mode="auto") as client:
                start = await _connected_rss(client, serial)
                first, baseline, final, peak = await _shots(client, serial, shots, took)
    finally:
        app.close()
    return {
        "pool_mb": round(POOL.idle_bytes / (1 << 20), 1),
        "start_mb": round(start, 1),
        "first_mb": round(first, 1),
        "baseline_mb": round(baseline, 1),
        "final_mb": round(final, 1),
        "peak_mb": round(peak, 1),
        "shots": shots,
        "median_ms": round(statistics.median(took) * 1000, 1),
    }


async def _connected_rss(client: Client, serial: str) -> float:
    """RSS with the device connected and Pillow loaded, before any screenshot."""
    import PIL.Image  # noqa: F401, PLC0415 - loaded before measuring, as a warm server has

    result = await client.call_tool("device_info", {"serial": serial})
    assert not result.is_error, result.structured_content
    return rss_mb()


async def _shots(
    client: Client, serial: str, shots: int, took: list[float]
) -> tuple[float, float, float, float]:
    """RSS after the first screenshot, after the warm-up, at the end, and at its highest
    after the first."""
    await client.call_tool("screenshot", {"serial": serial})
    first = peak = rss_mb()
    for _ in range(WARM_UP - 1):
        await client.call_tool("screenshot", {"serial": serial})
        peak = max(peak, rss_mb())
    baseline = rss_mb()
    for _ in range(shots):
        started = time.perf_counter()
        result = await client.call_tool("screenshot", {"serial": serial})
        took.append(time.perf_counter() - started)
        assert not result.is_error, result.structured_content
        peak = max(peak, rss_mb())
    return first, baseline, rss_mb(), peak


def main() -> None:
    if sys.argv[1:2] == ["flat"]:
        print(json.dumps(flat(int(sys.argv[2]) if len(sys.argv) > 2 else 100)))
        return
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_LIMIT, ADDRESS_SPACE_LIMIT))
    paths = {"device": via_device, "mcp": via_mcp}
    bomb_png(13000, 13000)  # built once, before measuring (the device side caches it)
    for run in paths.values():
        assert run([]) == "no error"  # normal screenshots: the baseline peak
    baseline = peak_rss_mb()
    report = []
    for path, run in paths.items():
        for name, rules in HOSTILE.items():
            started = time.monotonic()
            try:
                outcome = run(rules())
            except Exception as exc:  # the report names what went wrong
                outcome = f"raised {type(exc).__name__}"
            report.append(
                {
                    "path": path,
                    "mode": name,
                    "outcome": outcome,
                    "seconds": round(time.monotonic() - started, 2),
                    "growth_mb": round(peak_rss_mb() - baseline, 1),
                }
            )
    print(json.dumps(report))


if __name__ == "__main__":
    main()
