"""`adbwire serve --simulate` as a real subprocess: its stdout carries only MCP messages,
and the SDK's stdio client can use every kind of tool, resource and prompt over it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.mcp.harness import WAIT, Elicitor, data_of, error_of
from tests.mcp.spawn import environment, request, serve_argv

pytestmark = pytest.mark.timeout(120)


def test_stdout_carries_only_protocol_messages(tmp_path: Path) -> None:
    init = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "purity-test", "version": "1"},
    }
    messages = (
        request(1, "initialize", init)
        + b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
        + request(2, "tools/list", {})
        + request(3, "tools/call", {"name": "device_info", "arguments": {}})
        + request(
            4, "tools/call", {"name": "launch_app", "arguments": {"package": "com.example.notes"}}
        )
        + request(5, "tools/call", {"name": "get_property", "arguments": {"name": "; reboot"}})
        + request(6, "resources/read", {"uri": "adbwire://policy"})
    )
    process = subprocess.Popen(
        serve_argv("--simulate", "--no-audit"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment(tmp_path),
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(messages)
    process.stdin.flush()
    replies: dict[int, dict[str, object]] = {}
    raw_lines: list[bytes] = []
    while len(replies) < 6:
        line = process.stdout.readline()  # bounded by the test's timeout marker
        if not line:
            break
        raw_lines.append(line)
        message = json.loads(line)  # every stdout line is one JSON-RPC message
        assert message["jsonrpc"] == "2.0"
        if "id" in message:
            replies[message["id"]] = message
    out, err = process.communicate(timeout=30)
    for line in out.splitlines():  # anything after the replies must be protocol too
        assert json.loads(line)["jsonrpc"] == "2.0"
    assert sorted(replies) == [1, 2, 3, 4, 5, 6], raw_lines[-3:]
    results: dict[int, Any] = {number: reply["result"] for number, reply in replies.items()}
    assert results[3]["structuredContent"]["model"] == "sdk_gphone64_x86_64"
    assert results[5]["isError"] is True
    assert b"simulated device at" in err  # logs went to stderr
    assert process.returncode == 0


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_sdk_stdio_client_against_serve_simulate(tmp_path: Path, mode: str) -> None:
    parameters = StdioServerParameters(
        command=sys.executable,
        args=serve_argv(
            "--simulate", "--profile", "full", "--audit-log", str(tmp_path / "a.jsonl")
        )[1:],
        env=environment(tmp_path),
    )
    asked = Elicitor(action="decline", content=None)
    with anyio.fail_after(WAIT * 2):
        async with Client(parameters, mode=mode, elicitation_callback=asked) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            (device,) = data_of(await client.call_tool("list_devices", {}))["devices"]
            # the stdio peer is this server's one session: its default sticks, in both eras
            data_of(await client.call_tool("select_device", {"serial": device["serial"]}))
            listed = data_of(await client.call_tool("list_devices", {}))["devices"]
            assert listed[0]["selected"] is True
            assert {"device_info", "launch_app", "run_shell", "read_logcat"} <= names
            launched = data_of(
                await client.call_tool("launch_app", {"package": "com.example.notes"})
            )
            assert launched["focused_activity"] == "com.example.notes.NotesListActivity"
            refused = error_of(await client.call_tool("reboot", {}))
            assert refused["details"]["decision"] == "declined"
            policy = await client.read_resource("adbwire://policy")
            assert "tools_off" in policy.contents[0].text  # type: ignore[union-attr]
            prompt = await client.get_prompt("debug_crash", {"package": "com.example.notes"})
            assert prompt.messages
    assert len(asked.questions) == 1
    audit = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text().splitlines()]
    tools = [entry["tool"] for entry in audit]
    assert tools[:5] == ["list_devices", "select_device", "list_devices", "launch_app", "reboot"]
    # 2026-07-28 asks in a separate round, audited as awaiting_confirmation first
    assert (audit[-1]["tool"], audit[-1]["confirmation"]) == ("reboot", "declined")
