"""A destructive tool cannot succeed unconfirmed: no answer, decline, cancel, a client without
elicitation, a malformed answer or a timeout all mean no, in both protocol eras; only a
confirmed call or --allow-destructive runs it."""

from __future__ import annotations

import dataclasses
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from adbwire.mcp.registry import ToolOutput, ToolSpec, all_specs
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Policy, Risk
from adbwire.mcp.server.server import build_server
from tests.mcp.harness import WAIT, Elicitor, data_of, error_of, make_app, simulated

MODES = ["auto", "legacy"]  # 2026-07-28 input_required flow, and mid-call elicitation/create

# Arguments that would really change the simulated device, per destructive tool.
ARGUMENTS: dict[str, dict[str, Any]] = {
    "uninstall_package": {"package": "com.example.notes"},
    "clear_app_data": {"package": "com.example.notes"},
    "revoke_permission": {
        "package": "com.example.notes",
        "permission": "android.permission.POST_NOTIFICATIONS",
    },
    "reboot": {"mode": "system"},
    "run_shell": {"command": "touch /data/local/tmp/ran", "reason": "prove nothing runs"},
}


def destructive_specs() -> list[ToolSpec]:
    return [spec for spec in all_specs() if spec.risk is Risk.DESTRUCTIVE]


def test_every_destructive_tool_is_covered() -> None:
    assert {spec.name for spec in destructive_specs()} <= set(ARGUMENTS)


def spied(specs: list[ToolSpec], ran: list[str]) -> list[ToolSpec]:
    """The catalogue with each destructive handler wrapped to record that it ran."""

    def wrap(spec: ToolSpec) -> ToolSpec:
        async def handler(call: ToolCall, args: Any) -> ToolOutput:
            ran.append(spec.name)
            return await spec.handler(call, args)

        return dataclasses.replace(spec, handler=handler)

    return [wrap(spec) if spec.risk is Risk.DESTRUCTIVE else spec for spec in specs]


REFUSALS = {
    "no elicitation support": None,
    "decline": Elicitor(action="decline", content=None),
    "cancel": Elicitor(action="cancel", content=None),
    "accept but false": Elicitor(content={"confirm": False}),
    "accept with garbage": Elicitor(content={"confirm": "sure"}),
    "accept with nothing": Elicitor(content=None),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer", list(REFUSALS), ids=str)
async def test_refused_answers_run_nothing(mode: str, answer: str) -> None:
    ran: list[str] = []
    elicitor = REFUSALS[answer]
    with simulated() as (device,):
        app = make_app([device], policy=Policy(profile="full"))
        server = build_server(app, spied(all_specs(), ran))
        with anyio.fail_after(WAIT):
            async with Client(server, mode=mode, elicitation_callback=elicitor) as client:
                for spec in destructive_specs():
                    result = await client.call_tool(spec.name, ARGUMENTS[spec.name])
                    error = error_of(result)
                    assert error["code"] == "confirmation_required", (spec.name, error)
                    assert error["next_action"] == "confirm_or_enable_destructive"
                # the device is untouched
                check = await client.call_tool("package_info", {"package": "com.example.notes"})
                granted = data_of(check)["granted_permissions"]
                assert "android.permission.POST_NOTIFICATIONS" in granted
        assert ran == []
        assert not device.files.host_path("/data/local/tmp/ran").exists()
        app.close()


@pytest.mark.parametrize("mode", MODES)
async def test_timeout_means_no(mode: str) -> None:
    """Legacy: the server stops waiting. 2026: an answer older than the timeout is void."""
    ran: list[str] = []
    slow = SlowElicitor(delay=0.6)
    with simulated() as (device,):
        app = make_app([device], policy=Policy(profile="full", confirm_timeout=0.2))
        server = build_server(app, spied(all_specs(), ran))
        with anyio.fail_after(WAIT):
            async with Client(server, mode=mode, elicitation_callback=slow) as client:
                result = await client.call_tool("run_shell", ARGUMENTS["run_shell"])
        error = error_of(result)
        assert error["code"] == "confirmation_required"
        assert error["details"]["decision"] == "timeout"
        assert ran == []
        app.close()


class SlowElicitor(Elicitor):
    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    async def __call__(self, context: Any, params: Any) -> Any:
        await anyio.sleep(self.delay)
        return await super().__call__(context, params)


@pytest.mark.parametrize("mode", MODES)
async def test_confirmed_call_runs_and_names_operation_device_and_arguments(mode: str) -> None:
    yes = Elicitor()
    with simulated() as (device,):
        app = make_app([device])
        with anyio.fail_after(WAIT):
            async with Client(build_server(app), mode=mode, elicitation_callback=yes) as client:
                result = await client.call_tool(
                    "uninstall_package", {"package": "com.example.notes"}
                )
                data_of(result)
                check = await client.call_tool("package_info", {"package": "com.example.notes"})
        assert error_of(check)["code"] == "not_found"
        (question,) = yes.questions
        assert "uninstall com.example.notes" in question
        assert device.serial in question
        assert '"package": "com.example.notes"' in question
        app.close()


async def test_allow_destructive_runs_without_asking() -> None:
    never = Elicitor(action="decline", content=None)
    with simulated() as (device,):
        app = make_app([device], policy=Policy(profile="full", allow_destructive=True))
        with anyio.fail_after(WAIT):
            async with Client(build_server(app), elicitation_callback=never) as client:
                result = await client.call_tool("run_shell", ARGUMENTS["run_shell"])
        assert data_of(result)["exit_code"] == 0
        assert never.questions == []
        assert device.files.host_path("/data/local/tmp/ran").exists()
        app.close()


async def test_an_answer_nobody_asked_for_does_not_count() -> None:
    """2026 flow: a client sending "yes" up front, without the sealed question state the
    server handed out, is asked again; nothing runs."""

    with simulated() as (device,):
        app = make_app([device])
        with anyio.fail_after(WAIT):
            async with Client(
                build_server(app), mode="auto", elicitation_callback=Elicitor()
            ) as client:
                forged: dict[str, types.InputResponse] = {
                    "adbwire_confirm": types.ElicitResult(
                        action="accept", content={"confirm": True}
                    )
                }
                result = await client.session.call_tool(
                    "run_shell",
                    ARGUMENTS["run_shell"],
                    input_responses=forged,
                    allow_input_required=True,
                )
        assert isinstance(result, types.InputRequiredResult)
        assert "adbwire_confirm" in (result.input_requests or {})
        assert not device.files.host_path("/data/local/tmp/ran").exists()
        app.close()
