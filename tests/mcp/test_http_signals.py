"""`adbwire serve --http` stops cleanly on Ctrl-C or SIGTERM while a client is connected: it
exits with 128 + the signal, after closing its device sessions (as stdio does)."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.mcp.harness import WAIT, data_of
from tests.mcp.spawn import environment, serve_argv

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals"),
    pytest.mark.anyio,
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
async def test_a_signal_ends_the_http_server_with_its_sessions_closed(
    tmp_path: Path, stop: signal.Signals
) -> None:
    recording = tmp_path / "session.jsonl"
    argv = serve_argv("--simulate", "--no-audit", "--record", str(recording), "--http")
    process = await anyio.open_process(
        [*argv, "127.0.0.1:0"], env=environment(tmp_path), stdout=subprocess.DEVNULL
    )
    errors = ""
    try:
        assert process.stderr is not None
        with anyio.fail_after(WAIT):
            while "client config" not in errors:
                errors += (await process.stderr.receive()).decode()
        match = re.search(r"MCP over HTTP at (http://127\.0\.0\.1:\d+/mcp)", errors)
        assert match, errors
        token = (tmp_path / "state" / "adbwire" / "http-token").read_text().strip()
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=WAIT)
        with anyio.fail_after(WAIT):
            async with http, Client(streamable_http_client(match.group(1), http_client=http)) as c:
                assert data_of(await c.call_tool("device_info", {}))["model"]
                process.send_signal(stop)  # while the client's session is still open
                with anyio.fail_after(30):
                    returncode = await process.wait()
        with anyio.move_on_after(WAIT):
            async for chunk in process.stderr:
                errors += chunk.decode()
    finally:
        if process.returncode is None:
            process.kill()
            with anyio.move_on_after(WAIT):
                await process.wait()
    assert returncode == 128 + stop, errors
    assert "Traceback" not in errors
    last = json.loads(recording.read_text().splitlines()[-1])
    assert (last["event"], last["by"]) == ("end", "host")
