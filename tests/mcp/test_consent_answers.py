"""Consent is the JSON boolean `true` in the requested field and nothing else: any other
answer is a decline, in both protocol eras, through a real MCP client session. The question
asks for exactly that (a required boolean), and a long destructive call stays confirmable
with all of it shown."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientRequestContext

from adbwire.mcp.server.server import build_server
from tests.mcp.harness import WAIT, Elicitor, data_of, error_of, make_app, simulated

MODES = ["auto", "legacy"]  # 2026-07-28 input_required flow, and mid-call elicitation/create
TOUCH = {"command": "touch /data/local/tmp/ran", "reason": "prove nothing runs"}
MARKER = "/data/local/tmp/ran"

# Answers that a lax reading (pydantic's bool coercion, truthiness) would take for a yes.
NOT_CONSENT: dict[str, dict[str, Any] | None] = {
    "string yes": {"confirm": "yes"},
    "string on": {"confirm": "on"},
    "string 1": {"confirm": "1"},
    "string true": {"confirm": "true"},
    "integer 1": {"confirm": 1},
    "float 1.0": {"confirm": 1.0},
    "true with an extra key": {"confirm": True, "also": "rm -rf /sdcard"},
    "true with an extra false key": {"confirm": True, "confirm_again": False},
    "missing key": {},
    "true under another key": {"yes": True},
    "no content": None,
    "false": {"confirm": False},
}


class SchemaRecorder(Elicitor):
    """Answers as told and keeps each request's parameters."""

    def __init__(self, content: dict[str, Any] | None = None) -> None:
        super().__init__(content={"confirm": True} if content is None else content)
        self.requests: list[types.ElicitRequestParams] = []

    async def __call__(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        self.requests.append(params)
        return await super().__call__(context, params)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer", list(NOT_CONSENT), ids=str)
async def test_only_the_boolean_true_is_consent(mode: str, answer: str) -> None:
    elicitor = Elicitor(content=NOT_CONSENT[answer])
    with simulated() as (device,):
        app = make_app([device])
        with anyio.fail_after(WAIT):
            async with Client(
                build_server(app), mode=mode, elicitation_callback=elicitor
            ) as client:
                result = await client.call_tool("run_shell", TOUCH)
        error = error_of(result)
        assert error["code"] == "confirmation_required"
        assert error["details"]["decision"] == "declined"
        assert len(elicitor.questions) == 1  # it was asked, and the answer was not a yes
        assert not device.files.host_path(MARKER).exists()
        app.close()


@pytest.mark.parametrize("mode", MODES)
async def test_the_question_asks_for_one_required_boolean(mode: str) -> None:
    recorder = SchemaRecorder()
    with simulated() as (device,):
        app = make_app([device])
        with anyio.fail_after(WAIT):
            async with Client(
                build_server(app), mode=mode, elicitation_callback=recorder
            ) as client:
                data_of(await client.call_tool("run_shell", TOUCH))
        (params,) = recorder.requests
        assert isinstance(params, types.ElicitRequestFormParams)
        schema = params.requested_schema
        assert schema["type"] == "object"
        assert list(schema["properties"]) == ["confirm"]
        assert schema["properties"]["confirm"]["type"] == "boolean"
        assert schema["required"] == ["confirm"]
        assert device.files.host_path(MARKER).exists()
        app.close()


@pytest.mark.parametrize("mode", MODES)
async def test_a_long_destructive_call_is_confirmable_and_shown_whole(mode: str) -> None:
    """Arguments far past 600 characters: the user sees all of them (the part that acts
    comes last here), and a yes runs the call."""
    padding = "; ".join(f"echo step{number}" for number in range(150))
    command = f"{padding}; touch {MARKER}"
    assert len(command) > 1500
    recorder = SchemaRecorder()
    with simulated() as (device,):
        app = make_app([device])
        with anyio.fail_after(WAIT):
            async with Client(
                build_server(app), mode=mode, elicitation_callback=recorder
            ) as client:
                result = await client.call_tool(
                    "run_shell", {"command": command, "reason": "a long scripted step"}
                )
        assert data_of(result)["exit_code"] == 0
        assert device.files.host_path(MARKER).exists()
        (question,) = recorder.questions
        arguments_line = question.split("Arguments: ", 1)[1]
        assert f"touch {MARKER}" in arguments_line
        assert "a long scripted step" in arguments_line
        app.close()
