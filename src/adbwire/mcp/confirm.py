"""Asking the user before a destructive call, through MCP elicitation. The default is *no*.

Two protocol eras ask differently:

* up to 2025-11-25 the server sends ``elicitation/create`` mid-call and waits (bounded by the
  policy's confirm timeout);
* from 2026-07-28 the call returns ``input_required`` with the question; the client asks the
  user and repeats the call with the answer. The SDK seals our ``requestState`` and binds it
  to this tool and these arguments; we add the resolved device and the time it was asked,
  so an answer counts only for the exact question shown, and only within the timeout.

No answer, a decline, a cancel, a client without elicitation, a broken answer or a timeout
all mean no, unless the operator started the server with ``--allow-destructive``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
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
from pydantic import BaseModel, Field

log = logging.getLogger(__name__)

ANSWER_KEY = "adbwire_confirm"
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


class ConfirmAnswer(BaseModel):
    confirm: bool = Field(description="true to run this operation on the device")


@dataclass(frozen=True)
class Question:
    tool: str
    device: str | None
    operation: str
    """What will happen, in words: 'uninstall com.example.app (its data is deleted)'."""
    arguments: dict[str, Any]

    def message(self) -> str:
        arguments = json.dumps(self.arguments, ensure_ascii=False, sort_keys=True)
        if len(arguments) > 600:
            arguments = arguments[:600] + "..."
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
            outcome = await ctx.elicit(question.message(), ConfirmAnswer)
        except Exception as exc:  # no back channel, client error, malformed answer: all "no"
            log.info("confirmation for %s failed: %r", question.tool, exc)
            return Decision.UNSUPPORTED
        if outcome.action == "accept":
            return Decision.APPROVED if outcome.data.confirm else Decision.DECLINED
        return Decision.DECLINED if outcome.action == "decline" else Decision.CANCELLED
    return Decision.TIMEOUT


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
    if answer.action == "decline":
        return Decision.DECLINED
    if answer.action != "accept":
        return Decision.CANCELLED
    try:
        confirmed = ConfirmAnswer.model_validate(answer.content or {}).confirm
    except ValueError:
        return Decision.DECLINED
    return Decision.APPROVED if confirmed else Decision.DECLINED


def _input_required(question: Question) -> InputRequiredResult:
    request = ElicitRequest(
        params=ElicitRequestFormParams(
            message=question.message(),
            requested_schema={
                "type": "object",
                "properties": {"confirm": {"type": "boolean", "description": "true to run it"}},
                "required": ["confirm"],
            },
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
