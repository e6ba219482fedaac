"""MCP tools on a capture of Google's adb (protocol_fixtures/imported/): the tool's essential
request is in the capture; path resolution that adbwire asks first is not, and a non-strict
replay answers it as a device without realpath/readlink would (see docs/fixtures.md)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import anyio
import pytest

from adbwire.mcp.server.client_session import serve_session
from adbwire.wire.recording import FixtureWarning

IMPORTED = Path(__file__).resolve().parents[3] / "protocol_fixtures" / "imported"
V2 = IMPORTED / "adb-v2-term-sync.jsonl"
EXPORT = "/sdcard/Android/data/com.example.notes/files/export.json"
WAIT = 60.0


async def test_run_shell_pull_stat_and_list_from_a_foreign_capture(tmp_path: Path) -> None:
    with anyio.fail_after(WAIT), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FixtureWarning)
        async with serve_session(
            replay=V2, strict=False, profile="full", allow_destructive=True, local_root=tmp_path
        ) as session:
            shell = await session.call_tool(
                "run_shell", {"command": "getprop ro.product.model", "reason": "the model, please"}
            )
            assert not shell.is_error, shell.content
            assert shell.structured_content is not None
            assert shell.structured_content["exit_code"] == 0
            stdout = shell.content[0].text.split("\n", 2)[2]  # type: ignore[union-attr]
            assert "sdk_gphone64_x86_64" in stdout  # once, after the JSON line
            pulled = await session.call_tool("pull_file", {"path": EXPORT, "to": "export.json"})
            assert not pulled.is_error, pulled.content
            stat = await session.call_tool("stat_path", {"path": "/sdcard/Download/groceries.txt"})
            assert stat.structured_content is not None
            assert stat.structured_content["size"] == 29
            listing = await session.call_tool("list_dir", {"path": "/sdcard/Download"})
            assert listing.structured_content is not None
            rows = listing.content[0].text.split("\n")[3:]  # type: ignore[union-attr]
            assert [json.loads(row)[0] for row in rows] == ["groceries.txt"]  # once, as text
    assert (tmp_path / "export.json").read_bytes().startswith(b'{"notes": ')
    stand_ins = [
        str(item.message) for item in caught if "not in the recording" in str(item.message)
    ]
    assert any("realpath" in message for message in stand_ins), stand_ins


async def test_a_stat_of_a_path_the_capture_lacks_is_answered_no_such_file(tmp_path: Path) -> None:
    with anyio.fail_after(WAIT), pytest.warns(FixtureWarning):
        async with serve_session(replay=V2, strict=False, local_root=tmp_path) as session:
            stat = await session.call_tool("stat_path", {"path": "/sdcard/nothing/here"})
            assert stat.is_error  # a stand-in 'no such file', as a device says it
