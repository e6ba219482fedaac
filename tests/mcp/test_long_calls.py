"""Long calls: progress notifications while bytes move, and a cancelled request closes its
device streams at once (the device-side command sees its stream end)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import BinaryIO

import anyio
import anyio.to_thread
import pytest

from adbwire.mcp.safety.policy import Policy
from adbwire.testing import DeviceFiles, DeviceOptions, ProcessIO, SimulatedDevice, running_device
from adbwire.testing.scenario import load_scenario
from adbwire.testing.userland import Userland
from tests.mcp.harness import WAIT, connected, data_of, error_of, make_app, simulated

BLOCK = "adbwire-test-block"


class WatchedUserland:
    """The default userland, plus one command that runs until its stream is closed."""

    def __init__(self, files: DeviceFiles) -> None:
        self.inner = Userland(load_scenario(), files)
        self.started = threading.Event()
        self.ended = threading.Event()

    def run(self, command_line: str, io: ProcessIO, *, pty: bool = False) -> int:
        if command_line != BLOCK:
            return self.inner.run(command_line, io, pty=pty)
        self.started.set()
        deadline = time.monotonic() + WAIT
        while not io.cancelled and time.monotonic() < deadline:
            time.sleep(0.01)  # the fake process polls its stream, as a real one blocks on it
        self.ended.set()
        return 130

    def install_apk(
        self, apk: bytes | BinaryIO, size: int, options: Sequence[str]
    ) -> tuple[bool, str]:
        return self.inner.install_apk(apk, size, options)

    @property
    def properties(self) -> Mapping[str, str]:
        return self.inner.properties

    def on_reboot(self, mode: str) -> None:
        self.inner.on_reboot(mode)


@contextlib.contextmanager
def watched_device() -> Iterator[tuple[SimulatedDevice, WatchedUserland]]:
    made: list[WatchedUserland] = []

    def factory(files: DeviceFiles) -> WatchedUserland:
        made.append(WatchedUserland(files))
        return made[0]

    with running_device(DeviceOptions(auth_required=False), factory) as device:
        yield device, made[0]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_cancelling_a_call_ends_the_device_command(mode: str) -> None:
    with watched_device() as (device, userland):
        app = make_app([device], policy=Policy(profile="full", allow_destructive=True))
        async with connected(app, mode=mode) as client:
            arguments = {"command": BLOCK, "reason": "test cancellation", "timeout_s": 60}
            async with anyio.create_task_group() as group:
                group.start_soon(client.call_tool, "run_shell", arguments)
                with anyio.fail_after(WAIT):
                    await anyio.to_thread.run_sync(userland.started.wait, WAIT)
                group.cancel_scope.cancel()
            # Bounded below WAIT: left alone, the command ends by itself after WAIT seconds.
            with anyio.fail_after(WAIT / 2 + 1):
                ended = await anyio.to_thread.run_sync(userland.ended.wait, WAIT / 2)
            assert ended, "the device command did not see its stream closed"
            # the connection is still good for the next call
            assert data_of(await client.call_tool("get_property", {"name": "ro.product.model"}))
        app.close()


async def test_pull_and_push_report_progress(tmp_path: Path) -> None:
    size = 3 * 1024 * 1024 + 17
    with simulated() as (device,):
        device.files.write_bytes(
            "/sdcard/Download/big.bin", bytes(range(256)) * (size // 256) + b"x" * (size % 256)
        )
        app = make_app([device], policy=Policy(local_root=tmp_path))
        seen: list[tuple[float, float | None]] = []

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append((progress, total))

        async with connected(app) as client:
            pulled = await client.call_tool(
                "pull_file", {"path": "/sdcard/Download/big.bin"}, progress_callback=progress
            )
            assert data_of(pulled)["size"] == size and "text" not in data_of(pulled)
            pull_progress, seen[:] = list(seen), []
            pushed = await client.call_tool(
                "push_file",
                {"source": "big.bin", "path": "/sdcard/Download/copy.bin"},
                progress_callback=progress,
            )
            assert data_of(pushed)["size"] == size
        app.close()
        with device.files.open_read("/sdcard/Download/copy.bin") as copy:
            assert len(copy.read()) == size
    for reports in (pull_progress, seen):
        assert len(reports) >= 3
        assert [done for done, _ in reports] == sorted(done for done, _ in reports)
        assert reports[-1] == (size, size)
    assert (tmp_path / "big.bin").stat().st_size == size


async def test_transfer_caps_are_enforced(tmp_path: Path) -> None:
    with simulated() as (device,):
        device.files.write_bytes("/sdcard/Download/big.bin", b"x" * 5000)
        (tmp_path / "up.bin").write_bytes(b"y" * 5000)
        app = make_app([device], policy=Policy(local_root=tmp_path, max_transfer_bytes=4096))
        async with connected(app) as client:
            pulled = await client.call_tool("pull_file", {"path": "/sdcard/Download/big.bin"})
            pushed = await client.call_tool(
                "push_file", {"source": "up.bin", "path": "/sdcard/Download/up.bin"}
            )
            assert not device.files.host_path("/sdcard/Download/up.bin").exists()
        app.close()
    for result in (pulled, pushed):
        assert result.is_error
        assert error_of(result)["code"] == "too_large"
    assert names_in(tmp_path) == ["up.bin"]  # no partial file left behind


def names_in(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir())
