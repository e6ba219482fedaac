"""The heavy-job lock between two `adbwire serve` processes serving the same device."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.mcp.harness import WAIT, data_of, error_of, simulated
from tests.mcp.spawn import environment, serve_argv

pytestmark = pytest.mark.timeout(180)


def server(serial: str, root: Path, env: dict[str, str]) -> StdioServerParameters:
    argv = serve_argv(
        "--connect", serial, "--no-usb", "--profile", "full", "--local-root", str(root),
        "--no-audit",
    )  # fmt: skip
    return StdioServerParameters(command=sys.executable, args=argv[1:], env=env)


async def test_a_run_in_one_server_refuses_heavy_calls_from_another(tmp_path: Path) -> None:
    env = {**environment(tmp_path), "ADBWIRE_MDNS": "0"}  # one state directory for both
    (tmp_path / "root").mkdir()
    with simulated() as (device,):
        first = server(device.serial, tmp_path / "root", env)
        second = server(device.serial, tmp_path / "root", env)
        started = anyio.Event()

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            if message and message.startswith("running"):
                started.set()

        with anyio.fail_after(WAIT * 4):
            async with Client(first) as a, Client(second) as b, anyio.create_task_group() as tg:
                tg.start_soon(
                    lambda: a.call_tool(
                        "run_instrumentation",
                        {"test_package": "com.example.notes.soak"},
                        progress_callback=progress,
                    )
                )
                await started.wait()
                refused = error_of(
                    await b.call_tool(
                        "run_instrumentation", {"test_package": "com.example.notes.test"}
                    )
                )
                assert (refused["code"], refused["retryable"], refused["next_action"]) == (
                    "device_busy", True, "retry",
                )  # fmt: skip
                holder = refused["details"]["holder"]
                assert holder["job"] == "run_instrumentation com.example.notes.soak"
                cmdline = await anyio.Path(f"/proc/{holder['pid']}/cmdline").read_bytes()
                assert b"serve" in cmdline  # the first server holds it, not this process
                assert holder["since"].endswith("Z")
                tg.cancel_scope.cancel()  # the first server stops its run and lets go
            async with Client(second) as b:
                with anyio.fail_after(WAIT):
                    while True:
                        result = await b.call_tool(
                            "run_instrumentation",
                            {
                                "test_package": "com.example.notes.test",
                                "tests": ["com.example.notes.NotesListTest"],
                            },
                        )
                        if not result.is_error:
                            break
                        assert error_of(result)["code"] == "device_busy"
                        await anyio.sleep(0.2)
                assert data_of(result)["success"] is True
