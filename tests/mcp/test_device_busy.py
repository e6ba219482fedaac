"""A device with as many calls as it takes answers device_busy (retryable) at once; calls to
other devices go on, and the device takes calls again once its own have ended."""

from __future__ import annotations

import anyio
import pytest
from mcp_types import CallToolResult

from adbwire.mcp.devices import DeviceRegistry
from adbwire.mcp.safety.audit import AuditLog
from adbwire.mcp.safety.policy import Policy
from adbwire.mcp.server.app import App
from tests.mcp.harness import WAIT, connected, data_of, error_of, simulated

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_full_device_answers_device_busy_and_others_go_on() -> None:
    with simulated(2) as (stuck, other):
        registry = DeviceRegistry(list, lane_concurrency=2, lane_queue=1)
        for device in (stuck, other):
            registry.add_tcp(device.serial, kind="simulated", keys=list)
        app = App(policy=Policy(profile="full"), devices=registry, audit=AuditLog(None))
        held: list[CallToolResult] = []
        try:
            async with connected(app) as client:

                async def model(serial: str) -> CallToolResult:
                    arguments = {"serial": serial, "name": "ro.product.model"}
                    return await client.call_tool("get_property", arguments)

                async def hold() -> None:
                    held.append(await model(stuck.serial))

                data_of(await model(stuck.serial))  # connected before its shell stalls
                stuck.faults.stall("shell")
                async with anyio.create_task_group() as group:
                    for _ in range(3):  # 2 running, 1 waiting: the lane is full
                        group.start_soon(hold)
                    await anyio.wait_all_tasks_blocked()
                    with anyio.fail_after(WAIT):
                        while registry.lane(stuck.serial).waiting < 1:
                            await anyio.wait_all_tasks_blocked()
                    busy = error_of(await model(stuck.serial))
                    assert data_of(await model(other.serial))["value"] == "sdk_gphone64_x86_64"
                    stuck.faults.release_stalls()
                assert [data_of(r)["value"] for r in held] == ["sdk_gphone64_x86_64"] * 3
                assert data_of(await model(stuck.serial))["value"] == "sdk_gphone64_x86_64"
        finally:
            app.close()
    assert (busy["code"], busy["retryable"], busy["next_action"]) == ("device_busy", True, "retry")
    assert "2 calls are running and 1 waiting" in busy["message"]


def test_serve_takes_the_lane_limits_from_the_command_line() -> None:
    from adbwire.cli.main import build_parser  # noqa: PLC0415
    from adbwire.cli.serve import options_from  # noqa: PLC0415
    from adbwire.errors import UsageError  # noqa: PLC0415
    from adbwire.mcp.server.launch import running_app  # noqa: PLC0415

    parser = build_parser()
    args = parser.parse_args(["serve", "--no-usb", "--no-audit"])
    assert (options_from(args).device_calls, options_from(args).device_queue) == (8, 64)
    args = parser.parse_args(["serve", "--no-usb", "--no-audit", "--device-calls", "3"])
    args.device_queue = 5
    with running_app(options_from(args), "memory") as app:
        assert app.devices.lane_limits == (3, 5)
    args.device_calls = 0
    with pytest.raises(UsageError, match="--device-calls"):
        options_from(args)
