"""Settings a session changed go back when it ends, over the real transports: a stdio server
whose client hangs up, and an HTTP session that ends while the server keeps running. The
simulated device runs in this process, so its state is read directly."""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from adbwire.testing import DeviceOptions, SimulatedDevice, running_device
from adbwire.testing.userland import Userland
from tests.mcp.harness import WAIT, data_of
from tests.mcp.spawn import environment, serve_argv

pytestmark = pytest.mark.timeout(120)
LANDSCAPE = {"setting": "orientation", "value": "landscape"}
FONT = {"setting": "font_scale", "value": "1.3"}


@contextlib.contextmanager
def device() -> Iterator[tuple[SimulatedDevice, list[Userland]]]:
    made: list[Userland] = []

    def factory(files):  # type: ignore[no-untyped-def]
        from adbwire.testing.scenario import load_scenario  # noqa: PLC0415

        made.append(Userland(load_scenario(), files))
        return made[0]

    with running_device(DeviceOptions(auth_required=False), factory) as sim:
        yield sim, made


def system_settings(made: list[Userland]) -> dict[str, str]:
    state = made[0].device.state
    with state.lock:
        return dict(state.settings["system"])


async def restored(made: list[Userland], original: dict[str, str]) -> None:
    with anyio.fail_after(WAIT):
        while system_settings(made) != original:  # noqa: ASYNC110 - the server process changes it
            await anyio.sleep(0.05)


def serve(sim: SimulatedDevice, *extra: str) -> list[str]:
    return serve_argv("--connect", sim.serial, "--no-usb", "--no-audit", "--profile", "full",
                      *extra)  # fmt: skip


async def change_both(client: Client, made: list[Userland]) -> None:
    assert data_of(await client.call_tool("set_device_setting", LANDSCAPE))["restore"] == (
        "at session end"
    )
    data_of(await client.call_tool("set_device_setting", FONT))
    now = system_settings(made)
    assert (now["user_rotation"], now["font_scale"]) == ("1", "1.3")


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_stdio_session_end_restores(tmp_path: Path, mode: str) -> None:
    with device() as (sim, made):
        original = system_settings(made)
        argv = serve(sim)
        parameters = StdioServerParameters(
            command=sys.executable, args=argv[1:], env=environment(tmp_path)
        )
        with anyio.fail_after(WAIT * 2):
            async with Client(parameters, mode=mode) as client:
                await change_both(client, made)
        await restored(made, original)


@contextlib.asynccontextmanager
async def http_server(tmp_path: Path, sim: SimulatedDevice) -> AsyncIterator[Callable[[], Client]]:
    argv = serve(sim, "--http", "127.0.0.1:0")
    process = await anyio.open_process(argv, env=environment(tmp_path), stdout=subprocess.DEVNULL)
    try:
        assert process.stderr is not None
        text = ""
        with anyio.fail_after(WAIT):
            while "client config" not in text:
                text += (await process.stderr.receive()).decode()
        match = re.search(r"MCP over HTTP at (http://127\.0\.0\.1:\d+/mcp)", text)
        assert match, text
        token = (tmp_path / "state" / "adbwire" / "http-token").read_text().strip()
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=WAIT)

        def client() -> Client:
            return Client(streamable_http_client(match.group(1), http_client=http), mode="legacy")

        async with http:
            yield client
    finally:
        process.terminate()
        with anyio.fail_after(WAIT):
            await process.wait()


async def test_http_session_end_restores_while_the_server_runs(tmp_path: Path) -> None:
    with device() as (sim, made):
        original = system_settings(made)
        async with http_server(tmp_path, sim) as client:
            with anyio.fail_after(WAIT * 2):
                async with client() as first:
                    await change_both(first, made)
                await restored(made, original)  # the server still runs
                async with client() as second:  # a new session sees the original
                    info = data_of(await second.call_tool("device_info", {}))
                    assert info["orientation"] == "portrait"
