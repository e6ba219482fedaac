"""Many devices, one `adbwire serve`: while 5 devices are frozen (SIGSTOP) with 45 calls
waiting on them, a healthy device still answers at once, over stdio and over HTTP."""

from __future__ import annotations

import contextlib
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.mcp.harness import WAIT, data_of
from tests.mcp.spawn import environment, serve_argv

pytestmark = [
    pytest.mark.slow,  # starts simulators and servers
    pytest.mark.timeout(240),
    pytest.mark.skipif(sys.platform == "win32", reason="SIGSTOP"),
    pytest.mark.anyio,
]

FROZEN = 5
CALLS_PER_FROZEN = 9  # 45 waiting calls: more than anyio's default pool of 40 threads
HEALTHY_WITHIN = 10.0
"""Seconds: a call queued behind the frozen devices would wait out their 30 s operation
timeout; on an idle machine it takes well under one."""
SIMULATE = (sys.executable, "-m", "adbwire", "simulate", "--accept-any-key", "--port", "0")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@contextlib.contextmanager
def simulators(count: int) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    """`adbwire simulate --devices COUNT` in a process of its own: (process, addresses)."""
    process = subprocess.Popen(
        [*SIMULATE, "--devices", str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        yield process, [process.stdout.readline().strip() for _ in range(count)]
    finally:
        process.send_signal(signal.SIGCONT)
        process.kill()
        process.wait(WAIT)


@contextlib.asynccontextmanager
async def http_client(tmp_path: Path, argv: list[str]) -> AsyncIterator[Client]:
    process = await anyio.open_process(
        [*argv, "--http", "127.0.0.1:0"], env=environment(tmp_path), stdout=subprocess.DEVNULL
    )
    try:
        assert process.stderr is not None
        text = ""
        with anyio.fail_after(WAIT):
            while "client config" not in text:
                text += (await process.stderr.receive()).decode()
        match = re.search(r"MCP over HTTP at (http://127\.0\.0\.1:\d+/mcp)", text)
        assert match, text
        token = (tmp_path / "state" / "adbwire" / "http-token").read_text().strip()
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
        async with http, Client(streamable_http_client(match.group(1), http_client=http)) as c:
            yield c
    finally:
        process.kill()
        with anyio.move_on_after(WAIT):
            await process.wait()


@contextlib.asynccontextmanager
async def stdio_client(tmp_path: Path, argv: list[str]) -> AsyncIterator[Client]:
    parameters = StdioServerParameters(command=argv[0], args=argv[1:], env=environment(tmp_path))
    async with Client(parameters, read_timeout_seconds=60) as client:
        yield client


async def get_model(client: Client, serial: str) -> dict[str, object]:
    result = await client.call_tool("get_property", {"serial": serial, "name": "ro.product.model"})
    return result.structured_content or {}


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_healthy_device_answers_while_frozen_devices_hold_45_calls(
    tmp_path: Path, transport: str
) -> None:
    with simulators(FROZEN) as (frozen, frozen_addresses), simulators(1) as (_, healthy):
        (healthy_address,) = healthy
        connects = [arg for a in (*frozen_addresses, healthy_address) for arg in ("--connect", a)]
        argv = serve_argv("--no-audit", *connects)
        opened = (
            http_client(tmp_path, argv) if transport == "http" else stdio_client(tmp_path, argv)
        )
        with anyio.fail_after(180):
            async with opened as client:
                for address in (*frozen_addresses, healthy_address):  # all connected first
                    data_of(await client.call_tool("device_info", {"serial": address}))
                frozen.send_signal(signal.SIGSTOP)
                async with anyio.create_task_group() as waiting:
                    for address in frozen_addresses:
                        for _ in range(CALLS_PER_FROZEN):
                            waiting.start_soon(get_model, client, address)
                    await anyio.wait_all_tasks_blocked()  # the 45 requests are sent
                    started = time.monotonic()
                    answer = await get_model(client, healthy_address)
                    elapsed = time.monotonic() - started
                    frozen.kill()  # the waiting calls end with the devices' connections
                assert answer.get("value") == "sdk_gphone64_x86_64", answer
                assert elapsed <= HEALTHY_WITHIN, f"the healthy device took {elapsed:.1f} s"
