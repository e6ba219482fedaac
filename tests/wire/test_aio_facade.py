"""The async facade covers the blocking client: every service method awaitable, with the
blocking method's own signature, against the simulated device."""

from __future__ import annotations

import inspect
import os
import socket
from pathlib import Path

import anyio
import pytest

from adbwire.testing import SimulatedDevice
from adbwire.wire.aio import AsyncAdbClient, DeviceLane
from adbwire.wire.client import AdbClient
from adbwire.wire.keys import AdbKey
from adbwire.wire.offloaded import offloaded
from adbwire.wire.services.install_result import InstallOptions
from tests.wire.services.axml_writer import make_apk

pytestmark = pytest.mark.anyio

# Blocking methods with no async twin, and why.
NOT_AWAITABLE = {
    "connect": "takes a transport the caller already opened; wrap it with AsyncAdbClient(...)",
    "pair": "a one-off exchange before any client exists; run it with run_blocking",
    "start_shell": "returns a live process whose reads block; use it from a thread",
    "open_stream": "returns a live stream whose reads block; use it from a thread",
    "sync_session": "returns a live session; use it from a thread",
    "port_forwarder": "returns a forwarder the caller owns and closes",
    "reverse_forwarder": "returns a forwarder the caller owns and closes",
    "reverses": "lists the device's reverse listeners: call it through run()",
    "close": "aclose() is the async form",
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def public_methods(cls: type) -> set[str]:
    return {
        name
        for name in dir(cls)
        if not name.startswith("_")
        and not isinstance(inspect.getattr_static(cls, name), property)
        and (callable(getattr(cls, name)) or isinstance(getattr(cls, name), offloaded))
    }


def test_every_blocking_method_is_awaitable_or_says_why_not() -> None:
    blocking = public_methods(AdbClient)
    awaitable = public_methods(AsyncAdbClient)
    missing = blocking - awaitable - set(NOT_AWAITABLE)
    assert not missing, f"AsyncAdbClient lacks {sorted(missing)}"
    assert set(NOT_AWAITABLE) <= blocking, "NOT_AWAITABLE names a method AdbClient lost"


@pytest.mark.parametrize("name", ["push", "pull", "install", "forward", "shell", "reboot"])
def test_awaitable_methods_keep_the_blocking_signature(name: str) -> None:
    device = object.__new__(AsyncAdbClient)
    device.client = object.__new__(AdbClient)
    device.lane = DeviceLane("unconnected")
    awaitable = getattr(device, name)
    blocking = inspect.signature(getattr(device.client, name))
    assert inspect.iscoroutinefunction(awaitable)
    assert inspect.signature(awaitable) == blocking
    assert awaitable.__doc__ == getattr(AdbClient, name).__doc__


async def test_files_packages_and_forwards_through_the_facade(
    sim_device: SimulatedDevice, adb_key: AdbKey, tmp_path: Path
) -> None:
    data = os.urandom(300_000)
    (tmp_path / "up.bin").write_bytes(data)
    apk = make_apk(tmp_path, "com.example.facade", 4, "0.4")
    with anyio.fail_after(60):
        async with await AsyncAdbClient.connect_tcp(sim_device.serial, [adb_key]) as device:
            pushed = await device.push([tmp_path / "up.bin"], "/data/local/tmp/up.bin")
            assert pushed.ok and pushed.transferred[0].size == len(data)
            assert await device.exists("/data/local/tmp/up.bin")
            assert (await device.stat("/data/local/tmp/up.bin")).size == len(data)
            await device.pull(["/data/local/tmp/up.bin"], tmp_path / "down.bin")
            assert (tmp_path / "down.bin").read_bytes() == data

            installed = await device.install(apk, InstallOptions(replace=True))
            assert installed.ok and installed.package == "com.example.facade"
            listed = await device.shell_argv(["pm", "list", "packages", "com.example.facade"])
            assert listed.text == "package:com.example.facade\n"
            assert (await device.uninstall("com.example.facade")).ok

            with socket.create_server(("127.0.0.1", 0)) as target:
                forward = await device.forward("tcp:0", f"tcp:{target.getsockname()[1]}")
                with socket.create_connection(("127.0.0.1", forward.port), timeout=10):
                    accepted, _ = await anyio.to_thread.run_sync(target.accept)
                    accepted.close()
                forward.close()
