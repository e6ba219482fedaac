"""Hostile screenshots in a fresh process: what each one costs in time and peak memory.

    python -m tests.device.screen_memory_probe

prints one JSON list: per hostile device and path (the device layer's `take_screenshot`,
the MCP `screenshot` tool), the outcome (the error's type, or its MCP code), the seconds it
took and how far the process's peak RSS rose above the peak of normal 1080x2400
screenshots taken first on both paths. The address space is limited (ADDRESS_SPACE_LIMIT), so
code without the limits fails with MemoryError instead of taking the machine's memory.
"""

from __future__ import annotations

import json
import resource
import struct
import time
import zlib
from collections.abc import Callable

import anyio

from adbwire.device.screen import take_screenshot
from adbwire.errors import AdbwireError
from adbwire.mcp.safety.policy import Policy
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


def main() -> None:
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
