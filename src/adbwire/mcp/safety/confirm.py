"""Asking the user before a destructive call, through MCP elicitation. The default is *no*.

Two protocol eras ask differently:

* up to 2025-11-25 the server sends ``elicitation/create`` mid-call and waits (bounded by the
  policy's confirm timeout);
* from 2026-07-28 the call returns ``input_required`` with the question; the client asks the
  user and repeats the call with the answer. The SDK seals our ``requestState`` and binds it
  to this tool and these arguments; we add the resolved device and the time it was asked,
  so an answer counts only for the exact question shown, and only within the timeout.

Consent is the JSON boolean ``true`` in the ``confirm`` field, with no other field: ``"yes"``,
``1``, ``"true"`` or extra keys are a decline (the SDK's typed elicitation would coerce them,
so the answer is read raw, in both eras). No answer, a decline, a cancel, a client without
elicitation, any other answer or a timeout all mean no, unless the operator started the
server with ``--allow-destructive``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

import anyio
from mcp.server.mcpserver import Context
from mcp_types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
)
from mcp_types.version import is_version_at_least

log = logging.getLogger(__name__)

ANSWER_KEY = "adbwire_confirm"
CONFIRM_FIELD = "confirm"
REQUESTED_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {CONFIRM_FIELD: {"type": "boolean", "description": "true to run it"}},
    "required": [CONFIRM_FIELD],
}
_STATE_VERSION = 1


class Decision(str, Enum):
    NOT_NEEDED = "not_needed"
    PREAPPROVED = "preapproved"
    APPROVED = "approved"
    DECLINED = "declined"
    CANCELLED = "cancelled"
    NO_ANSWER = "no_answer"
    UNSUPPORTED = "unsupported"
    TIMEOUT = "timeout"

    @property
    def allows(self) -> bool:
        return self in (Decision.APPROVED, Decision.PREAPPROVED, Decision.NOT_NEEDED)


@dataclass(frozen=True)
class Question:
    tool: str
    device: str | None
    operation: str
    """What will happen, in words: 'uninstall com.example.app (its data is deleted)'."""
    arguments: dict[str, Any]

    def message(self) -> str:
        # All of it, however long: consent covers only what the user was shown. Each tool's
        # input model bounds its arguments, so the question stays bounded too.
        arguments = json.dumps(self.arguments, ensure_ascii=False, sort_keys=True)
        return (
            f"An agent asks to run a DESTRUCTIVE operation on device {self.device or '-'}:\n"
            f"  {self.operation}\n"
            f"Tool: {self.tool}\nArguments: {arguments}\n"
            "Set confirm to true to allow it. Anything else refuses it."
        )

    def digest(self) -> str:
        canonical = json.dumps(
            [self.tool, self.device, self.operation, self.arguments], sort_keys=True, default=str
        )
        return hashlib.sha256(canonical.encode()).hexdigest()[:32]


class NeedsInput(Exception):
    """Raised to end this round with an `input_required` result carrying the question."""

    def __init__(self, result: InputRequiredResult) -> None:
        super().__init__("waiting for the user's confirmation")
        self.result = result


def _modern(ctx: Context[Any, Any]) -> bool:
    version = ctx.protocol_version
    return version is not None and is_version_at_least(version, "2026-07-28")


def _client_can_elicit(ctx: Context[Any, Any]) -> bool:
    capabilities = ctx.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


async def ask(
    ctx: Context[Any, Any], question: Question, *, timeout: float, preapproved: bool
) -> Decision:
    """The user's decision; raises NeedsInput on 2026-07-28+ when the question must go out."""
    if preapproved:
        return Decision.PREAPPROVED
    if _modern(ctx):
        return _answer_from_retry(ctx, question, timeout)
    if not _client_can_elicit(ctx):
        return Decision.UNSUPPORTED
    with anyio.move_on_after(timeout):
        try:
            answer = await ctx.request_context.session.elicit_form(
                question.message(), REQUESTED_SCHEMA, related_request_id=ctx.request_id
            )
        except Exception as exc:  # no back channel, client error: "no"
            log.info("confirmation for %s failed: %r", question.tool, exc)
            return Decision.UNSUPPORTED
        return _decision(answer)
    return Decision.TIMEOUT


def consented(content: Mapping[str, Any] | None) -> bool:
    """Only ``{"confirm": true}``: the boolean itself (not 1, "yes" or "true"), alone."""
    return (
        content is not None and list(content) == [CONFIRM_FIELD] and content[CONFIRM_FIELD] is True
    )


def _decision(answer: ElicitResult) -> Decision:
    if answer.action == "decline":
        return Decision.DECLINED
    if answer.action != "accept":
        return Decision.CANCELLED
    return Decision.APPROVED if consented(answer.content) else Decision.DECLINED


def _answer_from_retry(ctx: Context[Any, Any], question: Question, timeout: float) -> Decision:
    state = _decode(ctx.request_state)
    if state is None or state.get("q") != question.digest():
        if not _client_can_elicit(ctx):
            return Decision.UNSUPPORTED
        raise NeedsInput(_input_required(question))
    asked_at = state.get("t")
    if not isinstance(asked_at, (int, float)) or time.time() - asked_at > timeout:
        return Decision.TIMEOUT
    answer = (ctx.input_responses or {}).get(ANSWER_KEY)
    if not isinstance(answer, ElicitResult):
        return Decision.NO_ANSWER
    return _decision(answer)


def _input_required(question: Question) -> InputRequiredResult:
    request = ElicitRequest(
        params=ElicitRequestFormParams(
            message=question.message(), requested_schema=REQUESTED_SCHEMA
        )
    )
    state = json.dumps({"v": _STATE_VERSION, "q": question.digest(), "t": time.time()})
    return InputRequiredResult(input_requests={ANSWER_KEY: request}, request_state=state)


def _decode(text: str | None) -> dict[str, Any] | None:
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict) or value.get("v") != _STATE_VERSION:
        return None
    return value
