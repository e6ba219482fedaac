"""The result envelope: how success and failure look to an agent.

Success is the tool's output model as structured content, plus a text block with a one-line
summary and the same data as JSON on the next line (for clients that only read text), then
any large payload, sent only there (``text_lines`` keeps lines one and two single lines). Failure is
``isError: true`` with ``structuredContent = {"error": {code, message, retryable,
next_action, details}}``. Codes and next actions are small, stable vocabularies, documented
in docs/tools.md, so an agent can switch on them instead of parsing prose.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from mcp_types import CallToolResult, ContentBlock, TextContent
from pydantic import BaseModel

from adbwire.mcp.results.text_lines import json_line, one_line


class NextAction(str, Enum):
    FIX_ARGUMENTS = "fix_arguments"
    CONNECT_DEVICE = "connect_device"
    SELECT_DEVICE = "select_device"
    ACCEPT_AUTH_PROMPT = "accept_auth_prompt_on_device"
    PAIR_DEVICE = "pair_device"
    CONFIRM_OR_ENABLE_DESTRUCTIVE = "confirm_or_enable_destructive"
    RETRY = "retry"
    INSPECT_LOGS = "inspect_logs"
    ASK_OPERATOR = "ask_operator"
    REPORT_BUG = "report_bug"
    NONE = "none"


NEXT_ACTIONS: dict[NextAction, str] = {
    NextAction.FIX_ARGUMENTS: "change the arguments as the message says, then call again",
    NextAction.CONNECT_DEVICE: "connect a device (connect_device) or check its address",
    NextAction.SELECT_DEVICE: "pass `serial`, or pick a default with select_device",
    NextAction.ACCEPT_AUTH_PROMPT: "ask the user to accept 'Allow USB debugging?' on the device",
    NextAction.PAIR_DEVICE: (
        "the wireless-debugging device does not know this server's key: pair it "
        "(pair_device with the pairing address and code under 'Pair device with pairing "
        "code'), then connect again"
    ),
    NextAction.CONFIRM_OR_ENABLE_DESTRUCTIVE: (
        "the user did not confirm: ask them, or have the operator start the server with "
        "--allow-destructive"
    ),
    NextAction.RETRY: "call again; the condition is expected to pass",
    NextAction.INSPECT_LOGS: "read the crash (last_crash, read_logcat) before going on",
    NextAction.ASK_OPERATOR: "only the person running the server can change this setting",
    NextAction.REPORT_BUG: "a bug in adbwire; the server log has the traceback",
    NextAction.NONE: "nothing to retry; read the message",
}


class ErrorCode(str, Enum):
    INVALID_ARGUMENTS = "invalid_arguments"
    NO_DEVICE = "no_device"
    DEVICE_AMBIGUOUS = "device_ambiguous"
    DEVICE_NOT_FOUND = "device_not_found"
    DEVICE_NOT_ALLOWED = "device_not_allowed"
    DEVICE_UNAUTHORIZED = "device_unauthorized"
    DEVICE_UNREACHABLE = "device_unreachable"
    DEVICE_DISCONNECTED = "device_disconnected"
    DEVICE_BUSY = "device_busy"
    NO_SESSION = "no_session"
    TIMEOUT = "timeout"
    UNSUPPORTED = "unsupported"
    COMMAND_FAILED = "command_failed"
    VERIFICATION_FAILED = "verification_failed"
    NOT_FOUND = "not_found"
    ALREADY_EXISTS = "already_exists"
    REFUSED = "refused"
    CONFIRMATION_REQUIRED = "confirmation_required"
    HOST_FILES_DISABLED = "host_files_disabled"
    PATH_NOT_ALLOWED = "path_not_allowed"
    TOO_LARGE = "too_large"
    OUTPUT_TOO_LARGE = "output_too_large"
    APP_CRASHED = "app_crashed"
    APP_NOT_RESPONDING = "app_not_responding"
    LAUNCH_NOT_VERIFIED = "launch_not_verified"
    CURSOR_EXPIRED = "cursor_expired"
    CANCELLED = "cancelled"
    PROTOCOL_ERROR = "protocol_error"
    NOT_AVAILABLE = "not_available"
    HOST_SETUP = "host_setup"
    INTERNAL_ERROR = "internal_error"


# code -> (meaning, default next action, retryable)
ERROR_CODES: dict[ErrorCode, tuple[str, NextAction, bool]] = {
    ErrorCode.INVALID_ARGUMENTS: (
        "an argument is malformed or out of range",
        NextAction.FIX_ARGUMENTS,
        False,
    ),
    ErrorCode.NO_DEVICE: ("no device is connected", NextAction.CONNECT_DEVICE, False),
    ErrorCode.DEVICE_AMBIGUOUS: ("several devices and none named", NextAction.SELECT_DEVICE, False),
    ErrorCode.DEVICE_NOT_FOUND: ("no device with that serial", NextAction.CONNECT_DEVICE, False),
    ErrorCode.DEVICE_NOT_ALLOWED: (
        "the device policy excludes this device",
        NextAction.ASK_OPERATOR,
        False,
    ),
    ErrorCode.DEVICE_UNAUTHORIZED: (
        "the device has not accepted our key",
        NextAction.ACCEPT_AUTH_PROMPT,
        True,
    ),
    ErrorCode.DEVICE_UNREACHABLE: (
        "the device address does not answer",
        NextAction.CONNECT_DEVICE,
        True,
    ),
    ErrorCode.DEVICE_DISCONNECTED: ("the device went away", NextAction.RETRY, True),
    ErrorCode.DEVICE_BUSY: (
        "the device is busy: as many calls queued as it takes, or another install or test "
        "run holds it (details.holder says who, since when)",
        NextAction.RETRY,
        True,
    ),
    ErrorCode.NO_SESSION: (
        "this connection has no session to hold a default",
        NextAction.FIX_ARGUMENTS,
        False,
    ),
    ErrorCode.TIMEOUT: ("the device did not answer in time", NextAction.RETRY, True),
    ErrorCode.UNSUPPORTED: ("the device does not offer this service", NextAction.NONE, False),
    ErrorCode.COMMAND_FAILED: ("the device ran the command and it failed", NextAction.NONE, False),
    ErrorCode.VERIFICATION_FAILED: (
        "the device does not show the expected effect",
        NextAction.NONE,
        False,
    ),
    ErrorCode.NOT_FOUND: (
        "a package, file or activity named does not exist",
        NextAction.FIX_ARGUMENTS,
        False,
    ),
    ErrorCode.ALREADY_EXISTS: (
        "the target exists and would be replaced",
        NextAction.FIX_ARGUMENTS,
        False,
    ),
    ErrorCode.REFUSED: ("a safety rule refuses this request", NextAction.NONE, False),
    ErrorCode.CONFIRMATION_REQUIRED: (
        "a destructive call was not confirmed",
        NextAction.CONFIRM_OR_ENABLE_DESTRUCTIVE,
        False,
    ),
    ErrorCode.HOST_FILES_DISABLED: (
        "host file access is off (no --local-root)",
        NextAction.ASK_OPERATOR,
        False,
    ),
    ErrorCode.PATH_NOT_ALLOWED: (
        "a path is outside the allowed places",
        NextAction.FIX_ARGUMENTS,
        False,
    ),
    ErrorCode.TOO_LARGE: ("a transfer exceeds the size cap", NextAction.FIX_ARGUMENTS, False),
    ErrorCode.OUTPUT_TOO_LARGE: (
        "the device sent more output than the tool's cap; reading stopped",
        NextAction.ASK_OPERATOR,
        False,
    ),
    ErrorCode.APP_CRASHED: ("the app's process died", NextAction.INSPECT_LOGS, False),
    ErrorCode.APP_NOT_RESPONDING: (
        "the app stopped responding (ANR)",
        NextAction.INSPECT_LOGS,
        False,
    ),
    ErrorCode.LAUNCH_NOT_VERIFIED: (
        "the app did not get the focus in time",
        NextAction.RETRY,
        True,
    ),
    ErrorCode.CURSOR_EXPIRED: ("the cursor is unknown or expired", NextAction.FIX_ARGUMENTS, False),
    ErrorCode.CANCELLED: ("the call was cancelled", NextAction.NONE, False),
    ErrorCode.PROTOCOL_ERROR: ("the device sent something that is not ADB", NextAction.RETRY, True),
    ErrorCode.NOT_AVAILABLE: ("this build cannot do that yet", NextAction.NONE, False),
    ErrorCode.HOST_SETUP: (
        "the host's ADB key or set-up is unusable",
        NextAction.ASK_OPERATOR,
        False,
    ),
    ErrorCode.INTERNAL_ERROR: ("a bug in adbwire", NextAction.REPORT_BUG, False),
}


@dataclass
class ToolFailure(Exception):
    """Raised by tool code to end a call with a structured error."""

    code: ErrorCode
    message: str
    details: dict[str, Any] = field(default_factory=dict)
    next_action: NextAction | None = None
    retryable: bool | None = None

    def __post_init__(self) -> None:
        super().__init__(self.message)
        _, action, retryable = ERROR_CODES[self.code]
        if self.next_action is None:
            self.next_action = action
        if self.retryable is None:
            self.retryable = retryable

    def to_dict(self) -> dict[str, Any]:
        assert self.next_action is not None
        return {
            "code": self.code.value,
            "message": self.message,
            "retryable": bool(self.retryable),
            "next_action": self.next_action.value,
            "details": self.details,
        }


def dump(model: BaseModel) -> dict[str, Any]:
    """The wire form of an output model: JSON types, absent values left out."""
    return model.model_dump(mode="json", exclude_none=True)


def success(
    summary: str, data: BaseModel, extra: Sequence[ContentBlock] = (), payload: str | None = None
) -> CallToolResult:
    """``payload`` (a UI tree) goes once, raw, after the JSON line of the text block."""
    structured = dump(data)
    text = one_line(summary) + "\n" + json_line(structured)
    if payload is not None:
        text += "\n" + payload
    content: list[ContentBlock] = [TextContent(type="text", text=text), *extra]
    return CallToolResult(content=content, structured_content=structured)


def failure(error: ToolFailure) -> CallToolResult:
    body = error.to_dict()
    text = f"{body['code']}: {body['message']} (next: {body['next_action']})"
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content={"error": body},
        is_error=True,
    )
