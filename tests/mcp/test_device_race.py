"""Connection errors under concurrency: many callers of a device that dies and comes back
each get the error of the attempt they waited for (device_unreachable), never "still
connecting", and all get the device again once it is back."""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable, Iterator

import anyio
import anyio.to_thread
import pytest
from mcp import Client
from mcp_types import CallToolResult

from adbwire.errors import AdbwireError, ConnectFailedError, DisconnectedError
from adbwire.mcp.devices import DeviceRegistry
from adbwire.mcp.runtime import connect_checked
from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.wire import aio
from adbwire.wire.client import AdbClient
from adbwire.wire.protocol_events import ConnectionState
from tests.mcp.harness import WAIT, connected, data_of, error_of, make_app

CALLERS = 16
CALLS_EACH = 10


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Phoenix:
    """A simulated device that can die (stop listening) and return on the same port."""

    def __init__(self) -> None:
        self.device = SimulatedDevice(DeviceOptions(auth_required=False)).start()
        self.port = self.device.port

    @property
    def serial(self) -> str:
        return f"127.0.0.1:{self.port}"

    def die(self) -> None:
        self.device.stop()

    def come_back(self) -> None:
        self.device = SimulatedDevice(DeviceOptions(auth_required=False, port=self.port)).start()


@pytest.fixture
def phoenix() -> Iterator[Phoenix]:
    device = Phoenix()
    try:
        yield device
    finally:
        device.device.stop()


def _hammer(registry: DeviceRegistry, serial: str) -> collections.Counter[str]:
    """CALLERS threads asking for the device CALLS_EACH times each: the outcomes by kind."""
    outcomes: collections.Counter[str] = collections.Counter()
    lock = threading.Lock()
    start = threading.Barrier(CALLERS)

    def caller() -> None:
        start.wait(WAIT)
        for _ in range(CALLS_EACH):
            try:
                registry.client(serial, wait=WAIT)
                outcome = "ok"
            except AdbwireError as error:
                outcome = f"{type(error).__name__}: {error}"
            with lock:
                outcomes[outcome] += 1

    threads = [threading.Thread(target=caller) for _ in range(CALLERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT * 2)
    assert sum(outcomes.values()) == CALLERS * CALLS_EACH
    return outcomes


def test_concurrent_callers_of_a_dead_device_each_get_its_connection_error(
    phoenix: Phoenix,
) -> None:
    registry = DeviceRegistry(list)
    try:
        registry.add_tcp(phoenix.serial, keys=list)
        first = registry.client(phoenix.serial, wait=WAIT)
        phoenix.die()
        with pytest.raises(DisconnectedError):
            first.shell("true", timeout=WAIT)
        outcomes = _hammer(registry, phoenix.serial)
        assert all(kind.startswith("ConnectFailedError") for kind in outcomes), outcomes
        phoenix.come_back()
        assert _hammer(registry, phoenix.serial) == {"ok": CALLERS * CALLS_EACH}
        assert phoenix.device.connection_count == 1  # every caller shares one connection
    finally:
        registry.close()


def test_a_connection_made_after_the_device_was_removed_is_closed(phoenix: Phoenix) -> None:
    registry = DeviceRegistry(list)
    release = threading.Event()
    made: list[AdbClient] = []
    connected_late = threading.Event()

    def slow_opener(on_state: object) -> AdbClient:
        release.wait(WAIT)
        client = AdbClient.connect_tcp(phoenix.serial, [])
        made.append(client)
        connected_late.set()
        return client

    registry._add(phoenix.serial, "tcp", slow_opener)
    assert registry.remove(phoenix.serial)
    release.set()
    assert connected_late.wait(WAIT)
    assert phoenix.device.wait_for_connections(0, WAIT)
    assert made[0].connection.failure is not None


@pytest.mark.anyio
async def test_mcp_calls_to_a_device_that_dies_say_unreachable_then_work_again(
    phoenix: Phoenix,
) -> None:
    serial = phoenix.serial

    async def forty_calls(client: Client) -> list[CallToolResult]:
        results: list[CallToolResult] = []

        async def one() -> None:
            arguments = {"serial": serial, "name": "ro.product.model"}
            results.append(await client.call_tool("get_property", arguments))

        async with anyio.create_task_group() as group:
            for _ in range(40):
                group.start_soon(one)
        return results

    app = make_app([phoenix.device])
    try:
        async with connected(app) as client:
            data_of(await client.call_tool("get_property", {"serial": serial, "name": "x.y"}))
            await anyio.to_thread.run_sync(phoenix.die)
            results = await forty_calls(client)
            codes = collections.Counter(error_of(r)["code"] for r in results)
            assert set(codes) <= {"device_unreachable", "device_disconnected"}, codes
            assert codes["device_unreachable"] >= 1
            await anyio.to_thread.run_sync(phoenix.come_back)
            results = await forty_calls(client)
            assert [data_of(r)["value"] for r in results] == ["sdk_gphone64_x86_64"] * 40
    finally:
        app.close()


def test_connect_failed_is_what_a_refused_port_raises() -> None:
    # The premise of the tests above: a stopped device's port refuses at once.
    device = SimulatedDevice(DeviceOptions(auth_required=False)).start()
    address = device.serial
    device.stop()
    with pytest.raises(ConnectFailedError):
        AdbClient.connect_tcp(address, [])


class CountingSource:
    kind = "usb"

    def __init__(self) -> None:
        self.scans = 0

    def scan(self) -> list[str]:
        self.scans += 1
        return []

    def open(self, *args: object, **kwargs: object) -> AdbClient:
        raise AssertionError("nothing to open")


def test_sources_are_scanned_again_only_when_the_last_scan_is_old() -> None:
    registry = DeviceRegistry(list)
    assert not registry.needs_refresh(0.0)  # nothing to scan
    source = CountingSource()
    registry.add_source(source)
    assert registry.needs_refresh(3600.0)  # never scanned
    registry.refresh()
    assert source.scans == 1
    assert not registry.needs_refresh(3600.0)
    assert registry.needs_refresh(0.0)


async def test_a_call_cancelled_while_its_device_connects_leaves_the_connection_open(
    phoenix: Phoenix, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The registry's connection is shared: the cancelled caller must not close it as an
    orphaned result (others got, or will get, the same client)."""
    release = threading.Event()
    orphans_handled = threading.Event()
    original = aio._close_orphan

    def close_orphan(result: object) -> None:
        original(result)
        orphans_handled.set()

    monkeypatch.setattr(aio, "_close_orphan", close_orphan)
    app = make_app()

    opened: list[AdbClient] = []

    def slow_opener(on_state: object) -> AdbClient:
        release.wait(WAIT)
        opened.append(AdbClient.connect_tcp(phoenix.serial, []))
        return opened[-1]

    app.devices._add(phoenix.serial, "tcp", slow_opener)
    try:
        with anyio.fail_after(WAIT):
            async with anyio.create_task_group() as group:
                group.start_soon(connect_checked, app, phoenix.serial)
                await anyio.wait_all_tasks_blocked()
                group.cancel_scope.cancel()
        release.set()
        assert await anyio.to_thread.run_sync(orphans_handled.wait, WAIT)
        client = await anyio.to_thread.run_sync(app.devices.client, phoenix.serial)
        assert opened == [client], "the first connection was closed and another made"
        assert client.alive
        assert client.shell("echo still", timeout=WAIT).stdout == b"still\n"
    finally:
        release.set()
        app.close()


def test_settling_waits_for_a_connection_under_way(phoenix: Phoenix) -> None:
    registry = DeviceRegistry(list)
    release = threading.Event()

    def slow_opener(on_state: object) -> AdbClient:
        release.wait(WAIT)
        return AdbClient.connect_tcp(phoenix.serial, [])

    registry._add(phoenix.serial, "tcp", slow_opener)
    try:
        registry.settle(0.05)  # bounded: the attempt is still held back
        assert [record.state for record in registry.records()] == ["connecting"]
        threading.Timer(0.3, release.set).start()  # after settle has begun waiting
        registry.settle(WAIT)
        assert [record.state for record in registry.records()] == ["device"]
    finally:
        release.set()
        registry.close()


def test_settling_does_not_wait_for_a_device_awaiting_authorization(phoenix: Phoenix) -> None:
    registry = DeviceRegistry(list)
    release = threading.Event()

    def unauthorized_opener(on_state: Callable[[ConnectionState], None]) -> AdbClient:
        on_state(ConnectionState.UNAUTHORIZED)
        release.wait(WAIT)  # the user has not answered the dialog yet
        return AdbClient.connect_tcp(phoenix.serial, [])

    registry._add(phoenix.serial, "tcp", unauthorized_opener)
    try:
        finished = threading.Event()

        def settle() -> None:
            registry.settle(WAIT)
            finished.set()

        threading.Thread(target=settle, daemon=True).start()
        assert finished.wait(WAIT / 2)
        assert [record.state for record in registry.records()] == ["unauthorized"]
    finally:
        release.set()
        registry.close()
