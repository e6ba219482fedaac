"""Through a real MCP session: an answer counts only for the device it was asked about, and
every decision is recorded as what it was, in the tool's error and in the audit log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from adbwire.mcp.safety.confirm import ANSWER_KEY
from adbwire.mcp.safety.policy import Policy
from adbwire.mcp.server.server import build_server
from tests.mcp.harness import WAIT, Elicitor, data_of, error_of, make_app, simulated

MODES = ["auto", "legacy"]
TOUCH = {"command": "touch /data/local/tmp/ran", "reason": "prove nothing runs"}
MARKER = "/data/local/tmp/ran"
YES: dict[str, types.InputResponse] = {
    ANSWER_KEY: types.ElicitResult(action="accept", content={"confirm": True})
}


def audit_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_an_answer_for_one_device_does_not_run_on_another() -> None:
    """The tool and arguments are the same; only the device the call resolves to changed
    between the question and the answer (the one device was swapped for another). The
    answer is void, the question is asked again naming the new device, and a yes to that
    one runs there only."""
    with simulated(2) as (first, second):
        app = make_app([first])
        host, port = second.serial.rsplit(":", 1)
        with anyio.fail_after(WAIT):
            async with Client(
                build_server(app), mode="auto", elicitation_callback=Elicitor()
            ) as client:
                asked = await client.session.call_tool(
                    "run_shell", TOUCH, allow_input_required=True
                )
                assert isinstance(asked, types.InputRequiredResult)
                data_of(await client.call_tool("disconnect_device", {"serial": first.serial}))
                data_of(await client.call_tool("connect_device", {"host": host, "port": int(port)}))
                replayed = await client.session.call_tool(
                    "run_shell",
                    TOUCH,
                    input_responses=YES,
                    request_state=asked.request_state,
                    allow_input_required=True,
                )
                assert isinstance(replayed, types.InputRequiredResult), replayed
                assert not first.files.host_path(MARKER).exists()
                assert not second.files.host_path(MARKER).exists()
                (request,) = (replayed.input_requests or {}).values()
                assert isinstance(request, types.ElicitRequest)
                assert second.serial in getattr(request.params, "message", "")
                answered = await client.session.call_tool(
                    "run_shell",
                    TOUCH,
                    input_responses=YES,
                    request_state=replayed.request_state,
                    allow_input_required=True,
                )
        assert isinstance(answered, types.CallToolResult)
        data_of(answered)
        assert second.files.host_path(MARKER).exists()
        assert not first.files.host_path(MARKER).exists()
        app.close()


async def test_a_retry_without_the_answer_is_no_answer(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    with simulated() as (device,):
        app = make_app([device], audit=log)
        with anyio.fail_after(WAIT):
            async with Client(
                build_server(app), mode="auto", elicitation_callback=Elicitor()
            ) as client:
                asked = await client.session.call_tool(
                    "run_shell", TOUCH, allow_input_required=True
                )
                assert isinstance(asked, types.InputRequiredResult)
                retried = await client.session.call_tool(
                    "run_shell", TOUCH, request_state=asked.request_state
                )
        error = error_of(retried)
        assert error["code"] == "confirmation_required"
        assert error["details"]["decision"] == "no_answer"
        app.close()
        assert not device.files.host_path(MARKER).exists()
    first, second = audit_lines(log)
    assert first["outcome"] == "awaiting_confirmation"
    assert first["error_code"] is None
    assert second["confirmation"] == "no_answer"
    assert second["error_code"] == "confirmation_required"


ANSWERS = {
    "approved": Elicitor(),
    "declined": Elicitor(action="decline", content=None),
    "cancelled": Elicitor(action="cancel", content=None),
    "unsupported": None,
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("decision", list(ANSWERS))
async def test_the_decision_is_recorded_as_it_was(mode: str, decision: str, tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    with simulated() as (device,):
        app = make_app([device], audit=log)
        with anyio.fail_after(WAIT):
            async with Client(
                build_server(app), mode=mode, elicitation_callback=ANSWERS[decision]
            ) as client:
                result = await client.call_tool("run_shell", TOUCH)
        app.close()
        ran = device.files.host_path(MARKER).exists()
    record = audit_lines(log)[-1]
    assert record["tool"] == "run_shell"
    assert record["confirmation"] == decision
    if decision == "approved":
        data_of(result)
        assert record["outcome"] == "ok"
        assert ran
    else:
        error = error_of(result)
        assert error["details"]["decision"] == decision
        assert decision.replace("_", " ") in error["message"]
        assert record["outcome"] == "error"
        assert record["error_code"] == "confirmation_required"
        assert not ran


@pytest.mark.parametrize("mode", MODES)
async def test_standing_consent_is_recorded_as_preapproved(mode: str, tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    never = Elicitor(action="decline", content=None)
    with simulated() as (device,):
        app = make_app([device], audit=log, policy=Policy(profile="full", allow_destructive=True))
        with anyio.fail_after(WAIT):
            async with Client(build_server(app), mode=mode, elicitation_callback=never) as client:
                data_of(await client.call_tool("run_shell", TOUCH))
        app.close()
    (record,) = audit_lines(log)
    assert record["confirmation"] == "preapproved"
    assert record["outcome"] == "ok"
    assert never.questions == []
