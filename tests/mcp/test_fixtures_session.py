"""`serve_session`: an in-memory MCP client against `adbwire serve` on a simulated, recorded
or replayed device; and the helpers that make scripted sessions comparable across runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientRequestContext

from adbwire.errors import ReplayMismatchError, UsageError
from adbwire.mcp.server.client_session import (
    MASKED,
    SessionFactory,
    normalise,
    serve_session,
    substitute,
)
from adbwire.wire.recording import FixtureWarning, load_fixture
from adbwire.wire.recording.events import End
from tests.mcp.harness import payload_text

WAIT = 60.0
MODEL = {"name": "ro.product.model"}


def value_of(result: types.CallToolResult) -> Any:
    assert not result.is_error, result.structured_content
    assert result.structured_content is not None
    return result.structured_content["value"]


async def test_a_session_on_the_simulated_device() -> None:
    with anyio.fail_after(WAIT):
        async with serve_session(simulate=True) as session:
            # The listing after a call: it waits only briefly for a connection under way
            # (test_device_race covers that), and a loaded machine may take longer.
            model = value_of(await session.call_tool("get_property", MODEL))
            listed = await session.call_tool("list_devices", {})
            tools = {tool.name for tool in (await session.list_tools()).tools}
    assert listed.structured_content is not None
    (device,) = listed.structured_content["devices"]
    assert (device["kind"], device["state"]) == ("simulated", "device")
    assert model == "sdk_gphone64_x86_64"
    assert "get_property" in tools and "run_shell" not in tools  # serve's default policy


def test_a_session_needs_a_device() -> None:
    async def main() -> None:
        async with serve_session():
            raise AssertionError("unreachable")

    with pytest.raises(UsageError, match="needs a device"):
        anyio.run(main)


async def test_record_then_replay(tmp_path: Path) -> None:
    fixture = tmp_path / "model.jsonl"
    with anyio.fail_after(WAIT):
        async with serve_session(simulate=True, record=fixture, note="model check") as session:
            recorded = value_of(await session.call_tool("get_property", MODEL))
        loaded = load_fixture(fixture)
        assert (loaded.header.origin, loaded.header.note) == ("simulated device", "model check")
        ends = [item.event for item in loaded.events if isinstance(item.event, End)]
        assert [end.by for end in ends] == ["host"]  # not the simulator stopping first
        async with serve_session(replay=fixture) as session:
            replayed = value_of(await session.call_tool("get_property", MODEL))
            listed = await session.call_tool("list_devices", {})
    assert replayed == recorded
    assert listed.structured_content is not None
    # everything recorded was played, and the replayed device is still there
    assert listed.structured_content["devices"][0]["state"] == "device"


async def test_unused_recording_is_an_error_or_with_strict_off_a_warning(tmp_path: Path) -> None:
    fixture = tmp_path / "two.jsonl"
    with anyio.fail_after(WAIT):
        async with serve_session(simulate=True, record=fixture) as session:
            await session.call_tool("get_property", MODEL)
            await session.call_tool("get_property", {"name": "ro.build.version.sdk"})
        with pytest.raises(ReplayMismatchError, match="did not use all of the recording"):
            async with serve_session(replay=fixture) as session:
                await session.call_tool("get_property", MODEL)
        with pytest.warns(FixtureWarning, match="did not use all of the recording"):
            async with serve_session(replay=fixture, strict=False) as session:
                await session.call_tool("get_property", MODEL)


async def test_destructive_tools_ask_through_the_elicitation_callback() -> None:
    questions: list[str] = []

    async def decline(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        questions.append(getattr(params, "message", ""))
        return types.ElicitResult(action="decline")

    arguments = {"command": "echo hi", "reason": "check the confirmation path"}
    with anyio.fail_after(WAIT):
        async with serve_session(simulate=True, profile="full", elicitation=decline) as session:
            refused = await session.call_tool("run_shell", arguments)
        async with serve_session(simulate=True, allow_destructive=True) as session:
            ran = await session.call_tool("run_shell", arguments)
    assert refused.is_error and refused.structured_content is not None
    assert refused.structured_content["error"]["code"] == "confirmation_required"
    assert len(questions) == 1 and "echo hi" in questions[0]
    assert payload_text(ran) == "hi\n"  # once, after the JSON line


async def test_the_session_factory_records_with_its_note(tmp_path: Path) -> None:
    fixture = tmp_path / "sub" / "flow.jsonl"
    recorder = SessionFactory(record="simulated", note="made by a test")
    with anyio.fail_after(WAIT):
        async with recorder(fixture) as session:
            recorded = value_of(await session.call_tool("get_property", MODEL))
        async with SessionFactory()(fixture) as session:
            replayed = value_of(await session.call_tool("get_property", MODEL))
    assert load_fixture(fixture).header.note == "made by a test"
    assert replayed == recorded


def test_placeholders_take_the_bound_value_and_type() -> None:
    bindings = {"port": 40123, "root": "/tmp/adbwire-root-x"}
    arguments = {"local_port": "${port}", "to": "${root}/a.txt", "keep": ["${port}", 7]}
    assert substitute(arguments, bindings) == {
        "local_port": 40123,
        "to": "/tmp/adbwire-root-x/a.txt",
        "keep": [40123, 7],
    }


def test_normalising_writes_bindings_back_and_masks_volatile_keys() -> None:
    bindings = {"serial": "127.0.0.1:40001", "port": 40123, "short": "1"}
    result = {
        "serial": "127.0.0.1:40001",
        "forward": {"local": "tcp:40123", "port": 40123, "seconds": 1.25},
        "count": 1,
        "flag": True,
    }
    assert normalise(result, bindings, ("seconds",)) == {
        "serial": "${serial}",
        "forward": {"local": "tcp:${port}", "port": "${port}", "seconds": MASKED},
        "count": 1,  # a binding too short to replace safely is left alone
        "flag": True,
    }
    assert json.loads(json.dumps(normalise(result, bindings))) == normalise(result, bindings)
