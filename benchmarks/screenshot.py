"""Screenshots (issue #25): adbwire's `screenshot` beside the fetch it cannot beat, the host
work step by step, and the capture path on a slow link.

    python -m benchmarks.screenshot [--quick] [--no-adb]

Against the benchmark's simulated device (default screen, 1080x2400), taking turns:

- `fetch`: the raw frame alone over adbwire (`exec:screencap` into one buffer);
- `adb exec-out screencap` and `adb exec-out screencap -p` (Google's adb, a process per
  call): the second is mobile-mcp's path, the device's PNG forwarded as it is;
- `take_screenshot` (device layer, default budget, with a history) and the MCP `screenshot`
  tool round trip (in-memory session: base64 and JSON included).

Then the host steps of one screenshot, each timed alone on a captured frame, then all of
them as a screenshot runs them while the frame arrives (fed in 1 MiB chunks), and what of
that is left after the last chunk; then the capture path on a slow phone: a second
simulated device at `--link-mbps 40` whose `screencap -p` takes `--screencap-encode-ms
300`, always raw against the adaptive choice (after its warm-up). `python -m benchmarks`
runs it as the `screenshot` section.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from benchmarks.children import REPO_ROOT, module_argv
from benchmarks.google_adb import GoogleAdb
from benchmarks.mcp_session import McpSession
from benchmarks.stats import summary_ms

SLOW_LINK_MBPS = 40
SLOW_ENCODE_MS = 300
START_TIMEOUT = 30.0


def _turns(
    sides: dict[str, Callable[[], object]], calls: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Each side `calls` times, taking turns (A B C A B C ...) so noise falls on all alike:
    wall seconds, and this process's CPU seconds (steadier on a busy machine)."""
    wall: dict[str, list[float]] = {name: [] for name in sides}
    cpu: dict[str, list[float]] = {name: [] for name in sides}
    for side in sides.values():
        side()  # warm-up: connections, caches, the capture path's first measurements
    for _ in range(calls):
        for name, side in sides.items():
            started, cpu_started = time.perf_counter(), time.process_time()
            side()
            cpu[name].append(time.process_time() - cpu_started)
            wall[name].append(time.perf_counter() - started)
    return wall, cpu


def _cpu_ms(seconds: list[float]) -> float:
    return statistics.median(seconds) * 1000


def _adb_side(adb: GoogleAdb, serial: str, *flags: str) -> Callable[[], object]:
    def run() -> bytes:
        return adb.ok("-s", serial, "exec-out", "screencap", *flags)

    return run


def side_by_side(
    client: Any, serial: str, adb: GoogleAdb | None, mcp: McpSession | None, calls: int
) -> dict[str, Any]:
    from adbwire.device.parsers.screencap import RAW_HEADER_BYTES, raw_frame_limit  # noqa: PLC0415
    from adbwire.device.screen import ScreenHistory, take_screenshot  # noqa: PLC0415
    from adbwire.device.screen.frame_pool import Lease  # noqa: PLC0415
    from adbwire.device.screen.path_choice import MIN_SAMPLES  # noqa: PLC0415
    from adbwire.device.screen.read_frame import FrameReader  # noqa: PLC0415

    def fetch() -> None:
        """The raw frame into a pooled buffer, as a screenshot reads it; nothing else."""
        lease = Lease()
        FrameReader(client, 60.0, lease).read([], RAW_HEADER_BYTES, raw_frame_limit)
        lease.give_back()

    history = ScreenHistory()
    sides: dict[str, Callable[[], object]] = {
        "fetch": fetch,
        "take_screenshot": lambda: take_screenshot(client, history=history),
    }
    if adb is not None:
        sides["adb exec-out screencap"] = _adb_side(adb, serial)
        sides["adb exec-out screencap -p"] = _adb_side(adb, serial, "-p")
    if mcp is not None:
        sides["mcp screenshot"] = lambda: mcp.call("screenshot", {})
    for _ in range(2 * MIN_SAMPLES):  # the capture path's warm-up (raw, PNG, raw, ...)
        take_screenshot(client, history=history)
    wall, cpu = _turns(sides, calls)
    result: dict[str, Any] = {name: summary_ms(values) for name, values in wall.items()}
    for name, values in cpu.items():
        result[name]["cpu_ms"] = _cpu_ms(values)  # adb's own processes are not counted
    fetch = result["fetch"]["median_ms"]
    for name in ("take_screenshot", "mcp screenshot"):
        if name in result:
            result[name]["vs_fetch"] = result[name]["median_ms"] / fetch
    result["path_chosen"] = history.capture_paths(client.serial).choose()
    return result


def host_steps(client: Any, calls: int) -> dict[str, Any]:
    """The host's work on one default screenshot, in CPU time of this process (all of it is
    host work): each step alone on one captured frame; then all of them as a screenshot does
    them, on the frame arriving in 1 MiB chunks (what overlaps the transfer), and what of
    that is left once the last chunk is in."""
    import io  # noqa: PLC0415
    import struct  # noqa: PLC0415
    import zlib  # noqa: PLC0415

    from adbwire.device.screen import capture  # noqa: PLC0415
    from adbwire.device.screen.png import encode_png  # noqa: PLC0415
    from adbwire.device.screen.scaling import (  # noqa: PLC0415
        Reductions,
        fingerprint,
        thumbnail_factor,
    )

    frame = capture(client, "raw")
    image = frame.image
    half = Reductions(image).half.convert("RGB")

    def pillow_png() -> bytes:
        buffer = io.BytesIO()
        half.save(buffer, "PNG", compress_level=1, compress_type=zlib.Z_RLE)
        return buffer.getvalue()

    shot = StreamedShot(struct.pack("<IIII", image.width, image.height, 1, 1) + image.tobytes())
    steps: dict[str, Callable[[], object]] = {
        "halve (box reduction of the frame)": lambda: Reductions(image).half,
        "thumbnail + fingerprint (from the half)": lambda: fingerprint(
            half.reduce(thumbnail_factor(half.size))
        ),
        "PNG of the half (png.py: unfiltered, zlib level 1)": lambda: encode_png(half),
        "PNG of the half, Pillow level 1 RLE (the encoder before)": pillow_png,
        "all of it as the frame arrives (1 MiB chunks)": shot.take,
    }
    _wall, cpu = _turns(steps, calls)
    after: list[float] = []
    for _ in range(calls):
        started: list[float] = []
        shot.take(started)
        after.append(time.process_time() - started[0])
    result = shot.take()
    return {
        "frame": [frame.width, frame.height],
        "image": [*result[0], "png", len(result[1])],
        "png_pillow_bytes": len(pillow_png()),
        "steps_cpu_ms": {name: _cpu_ms(values) for name, values in cpu.items()},
        "after_last_byte_cpu_ms": _cpu_ms(after),
    }


class StreamedShot:
    """One frame's raw output fed to a stream reduction in 1 MiB chunks, as it arrives."""

    CHUNK = 1 << 20

    def __init__(self, output: bytes) -> None:
        import mmap  # noqa: PLC0415

        self.output = output
        self.buffer = mmap.mmap(-1, len(output))
        self.buffer[:] = output

    def take(self, last_chunk_at: list[float] | None = None) -> tuple[tuple[int, int], bytes]:
        from adbwire.device.parsers import parse_raw_screencap  # noqa: PLC0415
        from adbwire.device.screen.encode import Budget  # noqa: PLC0415
        from adbwire.device.screen.scaling import fingerprint  # noqa: PLC0415
        from adbwire.device.screen.screenshot import png_ahead  # noqa: PLC0415
        from adbwire.device.screen.stream_reduce import StreamReduction  # noqa: PLC0415

        early = StreamReduction(png_ahead(Budget()))
        for length in range(self.CHUNK, len(self.output), self.CHUNK):
            early.arrived(self.buffer, length)
        if last_chunk_at is not None:
            last_chunk_at.append(time.process_time())
        early.arrived(self.buffer, len(self.output))
        prepared = early.result(parse_raw_screencap(memoryview(self.buffer)))
        assert prepared is not None and prepared.png is not None
        fingerprint(prepared.thumbnail)
        return prepared.size, prepared.png


@contextlib.contextmanager
def slow_phone(public_key: Path) -> Iterator[str]:
    """A simulated device at SLOW_LINK_MBPS whose PNG takes SLOW_ENCODE_MS; its address."""
    argv = module_argv(
        "adbwire",
        "simulate",
        "--port",
        "0",
        "--authorized-keys",
        str(public_key),
        "--link-mbps",
        str(SLOW_LINK_MBPS),
        "--screencap-encode-ms",
        str(SLOW_ENCODE_MS),
    )
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=REPO_ROOT
    )
    try:
        assert process.stdout is not None
        address = process.stdout.readline().strip()
        if not address:
            raise RuntimeError("the slow simulated device did not start")
        yield address
    finally:
        process.terminate()
        process.wait(START_TIMEOUT)


def slow_link(private_key: Path, public_key: Path, calls: int) -> dict[str, Any]:
    from adbwire.device.screen import ScreenHistory, take_screenshot  # noqa: PLC0415
    from adbwire.device.screen.path_choice import MIN_SAMPLES  # noqa: PLC0415
    from adbwire.wire.client import AdbClient  # noqa: PLC0415
    from adbwire.wire.keys import load_key  # noqa: PLC0415

    with (
        slow_phone(public_key) as address,
        AdbClient.connect_tcp(address, [load_key(private_key)]) as client,
    ):
        history = ScreenHistory()
        for _ in range(2 * MIN_SAMPLES):  # raw, PNG, raw, ...: each path measured
            take_screenshot(client, history=history)
        paths = history.capture_paths(client.serial)
        sides: dict[str, Callable[[], object]] = {
            "always raw": lambda: take_screenshot(client),
            "adaptive": lambda: take_screenshot(client, history=history),
        }
        wall, _cpu = _turns(sides, calls)
        rate = paths.link_rate
        result: dict[str, Any] = {name: summary_ms(values) for name, values in wall.items()}
        result.update(
            link_mbps=SLOW_LINK_MBPS,
            encode_ms=SLOW_ENCODE_MS,
            path_chosen=paths.choose(),
            link_rate_measured_mbps=round(rate * 8 / 1e6, 1) if rate else None,
            speedup=result["always raw"]["median_ms"] / result["adaptive"]["median_ms"],
        )
        return result


def run(
    client: Any,
    serial: str,
    adb: GoogleAdb | None,
    mcp: McpSession | None,
    keys: tuple[Path, Path],
    calls: int,
) -> dict[str, Any]:
    return {
        "side_by_side": side_by_side(client, serial, adb, mcp, calls),
        "host_steps": host_steps(client, calls),
        "slow_link": slow_link(*keys, max(1, calls // 4)),
    }


def markdown(result: dict[str, Any]) -> str:
    lines = ["### Screenshots (1080x2400 default screen)", ""]
    lines += ["| path | median ms | p95 ms | vs fetch | our CPU ms |", "|---|---|---|---|---|"]
    for name, row in result["side_by_side"].items():
        if isinstance(row, dict):
            ratio = f"{row['vs_fetch']:.2f}" if "vs_fetch" in row else ""
            lines.append(
                f"| {name} | {row['median_ms']:.1f} | {row['p95_ms']:.1f} | {ratio} "
                f"| {row['cpu_ms']:.1f} |"
            )
    steps = result["host_steps"]
    lines += ["", f"Host steps (image {steps['image']}):", ""]
    lines += ["| step | median CPU ms |", "|---|---|"]
    for name, value in steps["steps_cpu_ms"].items():
        lines.append(f"| {name} | {value:.1f} |")
    if "after_last_byte_cpu_ms" in steps:  # results from before #25's last step lack these
        after = steps["after_last_byte_cpu_ms"]
        lines.append(f"| of that, left after the last chunk | {after:.1f} |")
        lines += ["", f"Pillow's PNG of the half: {steps['png_pillow_bytes']} bytes."]
    slow = result["slow_link"]
    lines += [
        "",
        f"Slow phone ({slow['link_mbps']} Mbit/s, PNG encode {slow['encode_ms']} ms; "
        f"measured link {slow['link_rate_measured_mbps']} Mbit/s): always raw "
        f"{slow['always raw']['median_ms']:.0f} ms, adaptive ({slow['path_chosen']}) "
        f"{slow['adaptive']['median_ms']:.0f} ms: {slow['speedup']:.1f}x",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from adbwire.wire.client import AdbClient  # noqa: PLC0415
    from adbwire.wire.keys import load_key  # noqa: PLC0415
    from benchmarks.workspace import Workspace  # noqa: PLC0415

    parser = argparse.ArgumentParser(prog="python -m benchmarks.screenshot")
    parser.add_argument("--quick", action="store_true", help="a few calls (seconds)")
    parser.add_argument("--no-adb", action="store_true", help="leave Google's adb out")
    args = parser.parse_args(argv)
    calls = 3 if args.quick else 20
    with (
        Workspace(with_adb=not args.no_adb) as workspace,
        AdbClient.connect_tcp(workspace.serial, [load_key(workspace.private_key)]) as client,
    ):
        mcp = McpSession(workspace.serial, workspace.private_key)
        try:
            keys = (workspace.private_key, workspace.public_key)
            result = run(client, workspace.serial, workspace.adb, mcp, keys, calls)
        finally:
            mcp.close()
    print(markdown(result))
    print(json.dumps(result), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
