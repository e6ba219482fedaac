"""Device lanes: a hung device's calls never take the threads other devices need."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable

import anyio
import pytest

from adbwire.errors import AdbwireError, DeviceQueueFullError
from adbwire.testing import SimulatedDevice
from adbwire.wire.aio import AsyncAdbClient, DeviceLane
from adbwire.wire.keys import AdbKey

pytestmark = pytest.mark.anyio

FROZEN_DEVICES = 5
CALLS_PER_FROZEN_DEVICE = 9  # 45 calls in all: more than anyio's default pool of 40 threads


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_full_lane_refuses_at_once_and_serves_the_queue_afterwards() -> None:
    lane = DeviceLane("phone", concurrency=2, queue=3)
    release = threading.Event()
    finished: list[int] = []

    async def call(number: int) -> None:
        await lane.run(release.wait, 30)
        finished.append(number)

    with anyio.fail_after(20):
        async with anyio.create_task_group() as group:
            for number in range(5):
                group.start_soon(call, number)
            await anyio.wait_all_tasks_blocked()
            assert (lane.running, lane.waiting) == (2, 3)
            with pytest.raises(DeviceQueueFullError, match="2 calls are running and 3 waiting"):
                await lane.run(release.wait, 30)
            assert DeviceQueueFullError.retryable
            release.set()
    assert sorted(finished) == [0, 1, 2, 3, 4]
    assert (lane.running, lane.waiting) == (0, 0)


async def test_a_cancelled_waiting_call_leaves_the_queue() -> None:
    lane = DeviceLane("phone", concurrency=1, queue=1)
    release = threading.Event()
    with anyio.fail_after(20):
        async with anyio.create_task_group() as group:
            group.start_soon(lambda: lane.run(release.wait, 30))
            await anyio.wait_all_tasks_blocked()
            assert lane.running == 1
            with anyio.move_on_after(0.1):
                await lane.run(release.wait, 30)
            assert lane.waiting == 0
            release.set()
        assert await lane.run(lambda: 42) == 42


async def test_a_healthy_device_answers_while_frozen_devices_hold_45_calls(
    sim_device_factory: Callable[..., SimulatedDevice], adb_key: AdbKey
) -> None:
    frozen = [sim_device_factory() for _ in range(FROZEN_DEVICES)]
    healthy = sim_device_factory()
    for device in frozen:
        device.faults.stall("shell")  # every shell's output stops: the calls block in a thread
    clients = [
        await AsyncAdbClient.connect_tcp(device.serial, [adb_key]) for device in (*frozen, healthy)
    ]
    try:
        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                for client in clients[:-1]:
                    for _ in range(CALLS_PER_FROZEN_DEVICE):
                        group.start_soon(functools.partial(client.shell, "echo stuck", timeout=60))
                await anyio.wait_all_tasks_blocked()
                assert sum(c.lane.running + c.lane.waiting for c in clients[:-1]) == 45
                started = time.monotonic()
                result = await clients[-1].shell("echo healthy", timeout=10)
                elapsed = time.monotonic() - started
                group.cancel_scope.cancel()
        assert result.stdout == b"healthy\n"
        # Queued behind the frozen calls it would wait 60 s; idle, it takes milliseconds.
        assert elapsed <= 10.0, f"the healthy device took {elapsed:.1f} s"
    finally:
        for device in frozen:
            device.faults.release_stalls()
        for client in clients:
            await client.aclose()


async def test_queued_calls_of_a_device_that_dies_end_with_its_error(
    sim_device_factory: Callable[..., SimulatedDevice], adb_key: AdbKey
) -> None:
    """Calls waiting in the lane of a device that disconnects fail fast with the
    disconnection instead of each waiting out its own timeout."""
    device = sim_device_factory()
    device.faults.stall("shell")
    client = AsyncAdbClient(
        (await AsyncAdbClient.connect_tcp(device.serial, [adb_key])).client,
        DeviceLane(device.serial, concurrency=2, queue=4),
    )
    outcomes: list[BaseException | None] = []

    async def call() -> None:
        try:
            await client.shell("echo stuck", timeout=60)
            outcomes.append(None)
        except Exception as exc:  # the outcome is what the test checks
            outcomes.append(exc)

    try:
        with anyio.fail_after(30):
            async with anyio.create_task_group() as group:
                for _ in range(6):
                    group.start_soon(call)
                await anyio.wait_all_tasks_blocked()
                assert (client.lane.running, client.lane.waiting) == (2, 4)
                device.drop_connections()
        assert len(outcomes) == 6
        assert all(isinstance(outcome, AdbwireError) for outcome in outcomes), outcomes
        assert (client.lane.running, client.lane.waiting) == (0, 0)
    finally:
        device.faults.release_stalls()
        await client.aclose()
