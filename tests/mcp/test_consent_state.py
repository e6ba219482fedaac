"""The 2026-07-28 answer is bound to the question it answers: the state the server handed out
names this tool, device, operation and arguments (a digest), its format version and when it
was asked. These drive `confirm.ask` with the few fields of an MCP context it reads; the flow
through a real session is in test_consent_binding.py."""

from __future__ import annotations

import json
import time
from dataclasses import FrozenInstanceError, replace
from types import SimpleNamespace
from typing import Any

import mcp_types as types
import pytest

from adbwire.mcp.safety import confirm
from adbwire.mcp.safety.confirm import ANSWER_KEY, Decision, NeedsInput, Question

QUESTION = Question(
    tool="uninstall_package",
    device="127.0.0.1:5555",
    operation="uninstall com.example.notes (its data is deleted)",
    arguments={"package": "com.example.notes"},
)
YES = types.ElicitResult(action="accept", content={"confirm": True})
FORM = types.ClientCapabilities(
    elicitation=types.ElicitationCapability(form=types.FormElicitationCapability())
)
TIMEOUT = 60.0


def state(**fields: Any) -> str:
    values = {"v": 1, "q": QUESTION.digest(), "t": time.time(), **fields}
    return json.dumps({key: value for key, value in values.items() if value is not None})


def context(
    request_state: str | None = None,
    answer: types.ElicitResult | None = YES,
    *,
    capabilities: types.ClientCapabilities | None = FORM,
    version: str | None = "2026-07-28",
) -> Any:
    return SimpleNamespace(
        protocol_version=version,
        request_state=request_state,
        input_responses=None if answer is None else {ANSWER_KEY: answer},
        client_capabilities=capabilities,
    )


async def decide(ctx: Any, question: Question = QUESTION) -> Decision:
    return await confirm.ask(ctx, question, timeout=TIMEOUT, preapproved=False)


async def test_the_answer_to_the_question_asked_counts() -> None:
    assert await decide(context(state())) is Decision.APPROVED


async def test_a_preapproved_call_asks_nothing() -> None:
    ctx = context(None, None, capabilities=None)
    assert await confirm.ask(ctx, QUESTION, timeout=TIMEOUT, preapproved=True) is (
        Decision.PREAPPROVED
    )


@pytest.mark.parametrize(
    "other",
    [
        replace(QUESTION, tool="clear_app_data"),
        replace(QUESTION, device="emulator-5554"),
        replace(QUESTION, device=None),
        replace(QUESTION, operation="uninstall com.example.notes (its data is kept)"),
        replace(QUESTION, arguments={"package": "com.example.mail"}),
    ],
    ids=["tool", "device", "no device", "operation", "arguments"],
)
async def test_an_answer_to_another_question_is_not_consent(other: Question) -> None:
    """The answer was given for QUESTION; the call now at hand differs in one field."""
    with pytest.raises(NeedsInput) as asked:
        await decide(context(state()), other)
    assert ANSWER_KEY in (asked.value.result.input_requests or {})


@pytest.mark.parametrize(
    "request_state",
    [
        None,
        "",
        "not json",
        "[1, 2]",
        json.dumps({"q": QUESTION.digest(), "t": 1}),  # no version
        state(v=2),
        state(v="1"),
        state(q=None),
    ],
    ids=["none", "empty", "not json", "a list", "no version", "version 2", "version text", "no q"],
)
async def test_a_state_that_is_not_ours_means_asking_again(request_state: str | None) -> None:
    with pytest.raises(NeedsInput):
        await decide(context(request_state))


@pytest.mark.parametrize(
    "request_state",
    [
        state(t=time.time() - TIMEOUT - 5),
        state(t="now"),
        json.dumps({"v": 1, "q": QUESTION.digest()}),
    ],
    ids=["older than the timeout", "not a number", "missing"],
)
async def test_an_old_or_undated_answer_is_a_timeout(request_state: str) -> None:
    assert await decide(context(request_state)) is Decision.TIMEOUT


async def test_an_answer_just_within_the_timeout_counts() -> None:
    assert await decide(context(state(t=time.time() - TIMEOUT + 5))) is Decision.APPROVED


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (None, Decision.NO_ANSWER),
        (types.ElicitResult(action="decline"), Decision.DECLINED),
        (types.ElicitResult(action="cancel"), Decision.CANCELLED),
        (types.ElicitResult(action="accept", content={"confirm": False}), Decision.DECLINED),
        (types.ElicitResult(action="accept", content={"confirm": 1}), Decision.DECLINED),
    ],
    ids=["no answer", "decline", "cancel", "false", "one"],
)
async def test_the_decision_follows_the_answer(
    answer: types.ElicitResult | None, expected: Decision
) -> None:
    assert await decide(context(state(), answer)) is expected


async def test_an_answer_under_another_key_is_no_answer() -> None:
    ctx = context(state(), None)
    ctx.input_responses = {"something_else": YES}
    assert await decide(ctx) is Decision.NO_ANSWER


@pytest.mark.parametrize(
    "capabilities",
    [
        None,
        types.ClientCapabilities(),
        types.ClientCapabilities(
            elicitation=types.ElicitationCapability(url=types.UrlElicitationCapability())
        ),
    ],
    ids=["none declared", "no elicitation", "url only"],
)
async def test_a_client_that_cannot_answer_a_form_is_unsupported(
    capabilities: types.ClientCapabilities | None,
) -> None:
    assert await decide(context(None, None, capabilities=capabilities)) is Decision.UNSUPPORTED


async def test_an_empty_elicitation_capability_means_forms() -> None:
    """2025-06-18 clients declare `elicitation: {}`: forms are what they support."""
    empty = types.ClientCapabilities(elicitation=types.ElicitationCapability())
    with pytest.raises(NeedsInput):
        await decide(context(None, None, capabilities=empty))


async def test_the_question_handed_out_carries_its_digest_version_and_time() -> None:
    before = time.time()
    with pytest.raises(NeedsInput) as asked:
        await decide(context(None, None))
    result = asked.value.result
    handed_out = json.loads(result.request_state or "")
    assert handed_out["v"] == 1
    assert handed_out["q"] == QUESTION.digest()
    assert before <= handed_out["t"] <= time.time()
    request = (result.input_requests or {})[ANSWER_KEY]
    assert isinstance(request, types.ElicitRequest)
    assert isinstance(request.params, types.ElicitRequestFormParams)
    assert request.params.message == QUESTION.message()
    assert request.params.requested_schema == confirm.REQUESTED_SCHEMA


def test_the_digest_is_stable_and_covers_every_field() -> None:
    assert QUESTION.digest() == replace(QUESTION).digest()
    assert len(QUESTION.digest()) == 32
    int(QUESTION.digest(), 16)
    variants = {
        replace(QUESTION, tool="reboot").digest(),
        replace(QUESTION, device="other").digest(),
        replace(QUESTION, operation="other").digest(),
        replace(QUESTION, arguments={}).digest(),
        QUESTION.digest(),
    }
    assert len(variants) == 5


def test_the_digest_does_not_depend_on_the_order_of_the_arguments() -> None:
    one = replace(QUESTION, arguments={"package": "com.example.notes", "keep_data": False})
    other = replace(QUESTION, arguments={"keep_data": False, "package": "com.example.notes"})
    assert one.digest() == other.digest()


def test_a_question_cannot_change_once_asked() -> None:
    with pytest.raises(FrozenInstanceError):
        QUESTION.device = "emulator-5554"  # type: ignore[misc]


def test_the_requested_field_is_described_for_the_user() -> None:
    field = confirm.REQUESTED_SCHEMA["properties"]["confirm"]
    assert field["description"] == "true to run it"


def test_the_question_names_operation_device_tool_and_arguments() -> None:
    message = QUESTION.message()
    assert "DESTRUCTIVE" in message
    assert "device 127.0.0.1:5555" in message
    assert f"  {QUESTION.operation}\n" in message
    assert "Tool: uninstall_package\n" in message
    assert 'Arguments: {"package": "com.example.notes"}' in message
    assert "device -:" in replace(QUESTION, device=None).message()
    unicode = replace(QUESTION, arguments={"text": "café"}).message()
    assert '"text": "café"' in unicode  # shown as typed, not as \\u escapes


@pytest.mark.parametrize(
    ("decision", "allows"),
    [
        (Decision.NOT_NEEDED, True),
        (Decision.PREAPPROVED, True),
        (Decision.APPROVED, True),
        (Decision.DECLINED, False),
        (Decision.CANCELLED, False),
        (Decision.NO_ANSWER, False),
        (Decision.UNSUPPORTED, False),
        (Decision.TIMEOUT, False),
    ],
)
def test_only_approval_allows(decision: Decision, allows: bool) -> None:
    assert decision.allows is allows


def test_decision_names_are_those_of_the_audit_log() -> None:
    assert {decision.value for decision in Decision} == {
        "not_needed",
        "preapproved",
        "approved",
        "declined",
        "cancelled",
        "no_answer",
        "unsupported",
        "timeout",
    }
