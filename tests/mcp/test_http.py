"""`adbwire serve --http`: loopback, a bearer token from a private file (compared in constant
time, so a prefix of the token is as wrong as any other string), and an Origin check."""

from __future__ import annotations

import re
import socket
import stat
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from adbwire.errors import UsageError
from adbwire.mcp.server.http import bind, load_or_create_token
from tests.mcp.harness import WAIT, data_of
from tests.mcp.spawn import environment, serve_argv

pytestmark = pytest.mark.timeout(120)
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
HEADERS = {"Accept": "application/json, text/event-stream"}


@asynccontextmanager
async def http_server(tmp_path: Path) -> AsyncIterator[tuple[str, str]]:
    """Start the server; yield (url, token)."""
    env = environment(tmp_path)
    argv = serve_argv("--simulate", "--no-audit", "--http", "127.0.0.1:0")
    process = await anyio.open_process(argv, env=env, stdout=subprocess.DEVNULL)
    try:
        assert process.stderr is not None
        text = ""
        with anyio.fail_after(WAIT):
            while "client config" not in text:
                text += (await process.stderr.receive()).decode()
        match = re.search(r"MCP over HTTP at (http://127\.0\.0\.1:\d+/mcp)", text)
        assert match, text
        assert "Bearer <the token in" in text  # the token itself is not printed
        token_path = tmp_path / "state" / "adbwire" / "http-token"
        assert stat.S_IMODE(token_path.stat().st_mode) == 0o600
        yield match.group(1), token_path.read_text().strip()
    finally:
        process.terminate()
        with anyio.fail_after(WAIT):
            await process.wait()


async def test_token_and_origin_are_enforced(tmp_path: Path) -> None:
    async with http_server(tmp_path) as (url, token), httpx2.AsyncClient(timeout=WAIT) as http:
        missing = await http.post(url, json=INIT, headers=HEADERS)
        prefix = await http.post(
            url, json=INIT, headers={**HEADERS, "Authorization": f"Bearer {token[:-1]}"}
        )
        longer = await http.post(
            url, json=INIT, headers={**HEADERS, "Authorization": f"Bearer {token}x"}
        )
        evil = await http.post(
            url,
            json=INIT,
            headers={
                **HEADERS,
                "Authorization": f"Bearer {token}",
                "Origin": "https://evil.example",
            },
        )
        good = await http.post(
            url,
            json=INIT,
            headers={
                **HEADERS,
                "Authorization": f"Bearer {token}",
                "Origin": "http://localhost:3000",
            },
        )
    assert [missing.status_code, prefix.status_code, longer.status_code] == [401, 401, 401]
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert evil.status_code == 403
    assert good.status_code == 200


async def test_sdk_client_over_http_with_the_token(tmp_path: Path) -> None:
    async with http_server(tmp_path) as (url, token):
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=WAIT)
        with anyio.fail_after(WAIT):
            async with http, Client(streamable_http_client(url, http_client=http)) as client:
                info = data_of(await client.call_tool("device_info", {}))
    assert info["model"] == "sdk_gphone64_x86_64"


def test_token_file_is_private_and_reused(tmp_path: Path) -> None:
    path = tmp_path / "state" / "http-token"
    first = load_or_create_token(path)
    assert len(first) >= 32 and load_or_create_token(path) == first
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.chmod(0o644)
    with pytest.raises(UsageError, match="readable by other users"):
        load_or_create_token(path)


def test_the_printed_address_accepts_a_connection_before_uvicorn_starts() -> None:
    with bind("127.0.0.1:0") as listening:
        address = listening.getsockname()[:2]
        # connecting before anyone accepts: queued in the backlog, never refused
        socket.create_connection(address, timeout=WAIT).close()
