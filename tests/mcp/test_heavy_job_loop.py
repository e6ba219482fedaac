"""Taking the heavy-job lock never stalls the event loop: a host name looked up slowly (the
lock is keyed by the device's address) holds only the call that takes the lock."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from adbwire.device import heavy_jobs
from adbwire.device.heavy_jobs import HeavyJobBusyError, heavy_job
from adbwire.mcp.devices import DeviceRegistry
from adbwire.mcp.safety.audit import AuditLog
from adbwire.mcp.safety.policy import Policy
from adbwire.mcp.server.app import App
from adbwire.mcp.tools import heavy_lock
from adbwire.mcp.tools.heavy_lock import holding_heavy_job
from adbwire.testing.userland.android.apk import build_apk
from tests.mcp.harness import WAIT, connected, data_of, error_of, simulated


class SlowLockResolver:
    """getaddrinfo as usual, except for the heavy-job lock's look-up thread: that one waits
    until released (or WAIT), then answers."""

    def __init__(self) -> None:
        self.real = socket.getaddrinfo
        self.asked = threading.Event()
        self.release = threading.Event()
        self.answered = threading.Event()

    def __call__(self, host: Any, *args: Any, **kwargs: Any) -> Any:
        if threading.current_thread().name == "adbwire-resolve":
            self.asked.set()
            self.release.wait(WAIT)
            self.answered.set()
        return self.real(host, *args, **kwargs)


@pytest.fixture
def slow_lock_resolver(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> SlowLockResolver:
    resolver = SlowLockResolver()
    monkeypatch.setenv(heavy_jobs.STATE_DIR_VARIABLE, str(tmp_path / "state"))
    monkeypatch.setattr(heavy_jobs, "_resolved", {})
    monkeypatch.setattr(heavy_jobs, "RESOLVE_SECONDS", WAIT)  # the look-up is not given up
    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    return resolver


def app_by_host_name(port: int, root: Path) -> App:
    """A server that knows the simulated device as localhost:PORT (a name to look up)."""
    registry = DeviceRegistry(list)
    registry.add_tcp(f"localhost:{port}", kind="simulated", keys=list)
    return App(
        policy=Policy(profile="full", local_root=root), devices=registry, audit=AuditLog(None)
    )


async def test_other_calls_are_served_while_the_lock_looks_a_host_name_up(
    tmp_path: Path, slow_lock_resolver: SlowLockResolver
) -> None:
    resolver = slow_lock_resolver
    (tmp_path / "app.apk").write_bytes(build_apk("com.example.hello", version_code=7))
    with simulated() as (device,):
        port = int(device.serial.rsplit(":", 1)[1])
        app = app_by_host_name(port, tmp_path)
        results: dict[str, Any] = {}
        try:
            async with connected(app) as client, anyio.create_task_group() as tg:

                async def install() -> None:
                    results["install"] = await client.call_tool("install_apk", {"apk": "app.apk"})

                tg.start_soon(install)
                with anyio.fail_after(WAIT):
                    assert await anyio.to_thread.run_sync(resolver.asked.wait, WAIT)
                    served = await client.call_tool("get_property", {"name": "ro.product.model"})
                    assert not resolver.answered.is_set()  # served while the look-up hung
                    assert data_of(served)["value"]
                resolver.release.set()
            installed = data_of(results["install"])
            assert installed["package"] == "com.example.hello"
        finally:
            resolver.release.set()
            app.close()


async def test_a_busy_device_is_refused_and_the_lock_is_let_go_after_a_call(
    tmp_path: Path, slow_lock_resolver: SlowLockResolver
) -> None:
    resolver = slow_lock_resolver
    resolver.release.set()
    (tmp_path / "app.apk").write_bytes(build_apk("com.example.hello", version_code=7))
    with simulated() as (device,):
        port = int(device.serial.rsplit(":", 1)[1])
        app = app_by_host_name(port, tmp_path)
        try:
            async with connected(app) as client:
                with heavy_job(device.serial, "run_instrumentation com.x.test"):  # 127.0.0.1
                    refused = error_of(await client.call_tool("install_apk", {"apk": "app.apk"}))
                    assert refused["code"] == "device_busy"
                    assert refused["details"]["holder"]["job"] == "run_instrumentation com.x.test"
                data_of(await client.call_tool("install_apk", {"apk": "app.apk"}))
            with (
                heavy_job(device.serial, "install_apk other.apk"),  # the call let go of it
                pytest.raises(HeavyJobBusyError),
                heavy_job(f"localhost:{port}", "x"),
            ):
                pass
        finally:
            app.close()


async def test_a_call_cancelled_while_the_lock_looks_its_host_up_leaves_the_device_free(
    slow_lock_resolver: SlowLockResolver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The thread taking the lock is waited for, not abandoned: a lock it takes after the
    call was cancelled is let go at once."""
    resolver = slow_lock_resolver
    entered = threading.Event()

    @contextlib.contextmanager
    def noting_entered(serial: str, job: str) -> Iterator[heavy_jobs.Holder]:
        with heavy_job(serial, job) as holder:
            entered.set()
            yield holder

    monkeypatch.setattr(heavy_lock, "heavy_job", noting_entered)
    ran: list[str] = []

    async def install() -> None:
        async with holding_heavy_job("localhost:5555", "install_apk a.apk"):
            ran.append("the block")

    with anyio.fail_after(WAIT):
        async with anyio.create_task_group() as tg:
            tg.start_soon(install)
            assert await anyio.to_thread.run_sync(resolver.asked.wait, WAIT)
            tg.cancel_scope.cancel()
            resolver.release.set()
    assert await anyio.to_thread.run_sync(entered.wait, WAIT)  # the lock was taken...
    assert heavy_jobs.current_holder("localhost:5555") is None  # ...and let go
    assert ran == []  # the block never ran
