"""`adbwire serve` as a real process against a device whose output never ends: each reading
tool answers `output_too_large`, and the server's peak memory stays under 300 MB."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import pytest

from adbwire.testing import DeviceOptions, running_device
from adbwire.testing.hostile.endless import endless_output
from adbwire.testing.hostile.files import HostileFiles
from adbwire.testing.hostile.userland import hostile_userland
from tests.mcp.spawn import environment, request, serve_argv
from tests.mcp.test_output_caps import ENDLESS_DIR, READS

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/PID/status"),
]
PEAK_LIMIT = 300 * 1000 * 1000


def peak_rss(pid: int) -> int:
    """The process's high-water mark of resident memory (VmHWM), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM in /proc/PID/status")


def reply_to(number: int, stdout: IO[bytes]) -> dict[str, Any]:
    """The reply with id `number` (notifications in between are skipped)."""
    while line := stdout.readline():  # bounded by the test's timeout marker
        message = json.loads(line)
        if message.get("id") == number:
            result: dict[str, Any] = message["result"]
            return result
    raise AssertionError(f"the server ended before answering request {number}")


def test_serve_stays_small_against_endless_output(tmp_path: Path) -> None:
    files = HostileFiles(tmp_path / "device", endless_listing_at=ENDLESS_DIR)
    userland = hostile_userland(endless_output())
    options = DeviceOptions(auth_required=False)
    with running_device(options, userland, files=files) as device:
        argv = serve_argv("--connect", device.serial, "--profile", "read-only", "--no-audit")
        with (tmp_path / "stderr.txt").open("wb") as stderr:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=environment(tmp_path),
            )
        assert process.stdin is not None and process.stdout is not None
        try:
            init = {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "memory-test", "version": "1"},
            }
            process.stdin.write(request(1, "initialize", init))
            process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
            process.stdin.flush()
            reply_to(1, process.stdout)
            codes: dict[str, str] = {}
            for number, (tool, arguments) in enumerate(sorted(READS.items()), start=2):
                call = {"name": tool, "arguments": arguments}
                process.stdin.write(request(number, "tools/call", call))
                process.stdin.flush()
                result = reply_to(number, process.stdout)
                codes[tool] = result["structuredContent"]["error"]["code"]
            peak = peak_rss(process.pid)
        finally:
            process.stdin.close()
            process.wait(timeout=60)
    assert codes == dict.fromkeys(READS, "output_too_large")
    assert peak < PEAK_LIMIT, f"serve peaked at {peak / 1e6:.0f} MB"
    print(f"serve peak RSS after {len(READS)} endless reads: {peak / 1e6:.0f} MB")
