"""The shell guard's verdicts through the real MCP path (in-memory client, simulated device):
a refused line never reaches the device, an unknowable one is asked for this very call even
under --allow-destructive, an ordinary one follows the policy."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from adbwire.mcp.registry import ToolOutput, ToolSpec, all_specs
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Policy
from adbwire.mcp.server.server import build_server
from tests.mcp.harness import WAIT, Elicitor, data_of, error_of, make_app, simulated

MODES = ["auto", "legacy"]  # 2026-07-28 input_required flow, and mid-call elicitation/create
KEPT = "/sdcard/Download/groceries.txt"  # in the default scenario
MARK = "/data/local/tmp/ran"
UNKNOWABLE = f"sh -c 'touch {MARK}'"


def spied(ran: list[str]) -> list[ToolSpec]:
    def wrap(spec: ToolSpec) -> ToolSpec:
        async def handler(call: ToolCall, args: Any) -> ToolOutput:
            ran.append(spec.name)
            return await spec.handler(call, args)

        return dataclasses.replace(spec, handler=handler)

    return [wrap(spec) if spec.name == "run_shell" else spec for spec in all_specs()]


def shell(command: str) -> dict[str, Any]:
    return {"command": command, "reason": "test the shell guard"}


def audit_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("allow_destructive", [False, True])
@pytest.mark.parametrize(
    "command", ["rm -rf /sdcard", "cd /sdcard && rm -rf .", "busybox sh -c 'rm -rf /sdcard/*'"]
)
async def test_a_refused_line_never_reaches_the_device(
    mode: str, allow_destructive: bool, command: str
) -> None:
    ran: list[str] = []
    yes = Elicitor()
    with simulated() as (device,):
        assert device.files.host_path(KEPT).exists()
        policy = Policy(profile="full", allow_destructive=allow_destructive)
        app = make_app([device], policy=policy)
        with anyio.fail_after(WAIT):
            async with Client(
                build_server(app, spied(ran)), mode=mode, elicitation_callback=yes
            ) as c:
                result = await c.call_tool("run_shell", shell(command))
        error = error_of(result)
        assert error["code"] == "refused"
        assert "/sdcard" in error["message"]
        assert ran == [] and yes.questions == []
        assert device.files.host_path(KEPT).exists()
        app.close()


@pytest.mark.parametrize("mode", MODES)
async def test_an_unknowable_line_is_asked_even_under_allow_destructive(
    mode: str, tmp_path: Path
) -> None:
    ran: list[str] = []
    yes = Elicitor()
    with simulated() as (device,):
        policy = Policy(profile="full", allow_destructive=True)
        app = make_app([device], policy=policy, audit=tmp_path / "audit.jsonl")
        with anyio.fail_after(WAIT):
            async with Client(
                build_server(app, spied(ran)), mode=mode, elicitation_callback=yes
            ) as c:
                result = await c.call_tool("run_shell", shell(UNKNOWABLE))
        assert data_of(result)["exit_code"] == 0
        (question,) = yes.questions
        assert UNKNOWABLE in question
        assert "Asked every time" in question
        assert "sh -c runs a command line given as a string" in question
        assert ran == ["run_shell"]
        assert device.files.host_path(MARK).exists()
        app.close()
    assert audit_lines(tmp_path / "audit.jsonl")[-1]["confirmation"] == "approved"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "elicitor",
    [Elicitor(action="decline", content=None), Elicitor(content={"confirm": False}), None],
    ids=["decline", "false", "no elicitation"],
)
async def test_an_unknowable_line_declined_does_not_run_despite_allow_destructive(
    mode: str, elicitor: Elicitor | None
) -> None:
    ran: list[str] = []
    with simulated() as (device,):
        app = make_app([device], policy=Policy(profile="full", allow_destructive=True))
        server = build_server(app, spied(ran))
        with anyio.fail_after(WAIT):
            async with Client(server, mode=mode, elicitation_callback=elicitor) as c:
                result = await c.call_tool("run_shell", shell(UNKNOWABLE))
        error = error_of(result)
        assert error["code"] == "confirmation_required"
        assert error["details"]["decision"] != "preapproved"
        assert "Asked every time" in error["details"]["operation"]
        assert ran == []
        assert not device.files.host_path(MARK).exists()
        app.close()


@pytest.mark.parametrize("mode", MODES)
async def test_an_ordinary_line_under_allow_destructive_is_not_asked(
    mode: str, tmp_path: Path
) -> None:
    never = Elicitor(action="decline", content=None)
    with simulated() as (device,):
        policy = Policy(profile="full", allow_destructive=True)
        app = make_app([device], policy=policy, audit=tmp_path / "audit.jsonl")
        with anyio.fail_after(WAIT):
            async with Client(build_server(app), mode=mode, elicitation_callback=never) as c:
                result = await c.call_tool("run_shell", shell(f"touch {MARK}"))
        assert data_of(result)["exit_code"] == 0
        assert never.questions == []
        assert device.files.host_path(MARK).exists()
        app.close()
    assert audit_lines(tmp_path / "audit.jsonl")[-1]["confirmation"] == "preapproved"


@pytest.mark.parametrize("mode", MODES)
async def test_without_allow_destructive_an_ordinary_question_says_nothing_extra(mode: str) -> None:
    yes = Elicitor()
    with simulated() as (device,):
        app = make_app([device], policy=Policy(profile="full"))
        with anyio.fail_after(WAIT):
            async with Client(build_server(app), mode=mode, elicitation_callback=yes) as c:
                result = await c.call_tool("run_shell", shell(f"touch {MARK}"))
        assert data_of(result)["exit_code"] == 0
        (question,) = yes.questions
        assert "Asked every time" not in question
        app.close()
