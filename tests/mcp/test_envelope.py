"""The envelope: typed results with a text mirror; failures with stable codes and next
actions; bugs logged with their traceback and returned as internal_error without internals."""

from __future__ import annotations

import logging

import mcp_types as types
import pytest
from mcp import Client
from pydantic import BaseModel

from adbwire import errors
from adbwire.device import errors as device_errors
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.envelope import ERROR_CODES, NEXT_ACTIONS, ErrorCode, ToolFailure
from adbwire.mcp.results.failures import from_exception
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.server.server import build_server
from adbwire.mcp.tools.common import Args
from tests.mcp.harness import connected, data_of, error_of, make_app


class Nothing(BaseModel):
    pass


@tool(
    name="explode",
    title="Explode",
    risk=Risk.READ,
    input=Args,
    output=Nothing,
    example={},
    needs_device=False,
)
async def explode(call: ToolCall, args: Args) -> ToolOutput:
    """Raises an unexpected error carrying a secret."""
    raise RuntimeError("secret path /home/someone/.ssh/id_rsa")


async def test_a_bug_is_internal_error_without_internals(caplog: pytest.LogCaptureFixture) -> None:
    app = make_app([])
    server = build_server(app, [explode])
    caplog.set_level(logging.ERROR)
    async with Client(server) as client:
        result = await client.call_tool("explode", {})
    error = error_of(result)
    assert (error["code"], error["next_action"]) == ("internal_error", "report_bug")
    assert "secret" not in str(result.model_dump())
    # the server log (stderr) has the whole story, with the traceback
    (record,) = [r for r in caplog.records if r.exc_info is not None]
    assert "explode" in record.getMessage()
    assert record.exc_info is not None and "secret path" in str(record.exc_info[1])


async def test_bad_arguments_name_the_fields_and_touch_nothing() -> None:
    app = make_app([])
    async with connected(app) as client:
        result = await client.call_tool("launch_app", {"package": "no spaces please", "x": 1})
    error = error_of(result)
    assert error["code"] == "invalid_arguments"
    assert error["next_action"] == "fix_arguments"
    assert error["details"]["fields"] == ["package", "x"]
    assert result.content[0].text.startswith("invalid_arguments: ")  # type: ignore[union-attr]


async def test_success_has_summary_and_the_same_json_as_text() -> None:
    app = make_app([])
    async with connected(app) as client:
        result = await client.call_tool("list_devices", {})
    assert data_of(result) == {"devices": []}
    assert result.content[0].text.startswith("0 device(s)")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("exception", "code"),
    [
        (errors.UsageError("bad"), ErrorCode.INVALID_ARGUMENTS),
        (errors.AuthPendingError("wait"), ErrorCode.DEVICE_UNAUTHORIZED),
        (errors.AuthRejectedError("no"), ErrorCode.DEVICE_UNAUTHORIZED),
        (errors.ConnectFailedError("down"), ErrorCode.DEVICE_UNREACHABLE),
        (errors.DisconnectedError("gone"), ErrorCode.DEVICE_DISCONNECTED),
        (errors.RemoteProtocolError("junk"), ErrorCode.PROTOCOL_ERROR),
        (errors.StreamRefusedError("abb_exec:x"), ErrorCode.UNSUPPORTED),
        (errors.CommandFailedError("ls", 2, "nope"), ErrorCode.COMMAND_FAILED),
        (errors.SyncFailError("/x", "No such file or directory"), ErrorCode.NOT_FOUND),
        (errors.AdbTimeoutError("slow"), ErrorCode.TIMEOUT),
        (errors.ReplayMismatchError("other bytes"), ErrorCode.PROTOCOL_ERROR),
        (errors.OperationCancelledError("stop"), ErrorCode.CANCELLED),
        (errors.KeyFileError("/k", "bad"), ErrorCode.HOST_SETUP),
        (device_errors.NotFoundError("pkg"), ErrorCode.NOT_FOUND),
        (device_errors.RefusedError("ctl"), ErrorCode.REFUSED),
        (device_errors.TooLargeError("big"), ErrorCode.TOO_LARGE),
        (device_errors.AlreadyExistsError("there"), ErrorCode.ALREADY_EXISTS),
        (device_errors.VerificationError("no effect"), ErrorCode.VERIFICATION_FAILED),
        (device_errors.AppCrashedError("boom", details={"root_cause": "X"}), ErrorCode.APP_CRASHED),
    ],
)
def test_exceptions_map_to_stable_codes(exception: Exception, code: ErrorCode) -> None:
    failure = from_exception(exception)
    assert failure is not None and failure.code is code
    body = failure.to_dict()
    assert set(body) == {"code", "message", "retryable", "next_action", "details"}
    assert body["next_action"] in {action.value for action in NEXT_ACTIONS}


def test_bugs_are_not_mapped() -> None:
    assert from_exception(RuntimeError("x")) is None
    assert from_exception(errors.LocalProtocolError("ours")) is None


def test_every_code_is_documented_with_a_next_action() -> None:
    assert set(ERROR_CODES) == set(ErrorCode)
    for meaning, action, retryable in ERROR_CODES.values():
        assert meaning and action in NEXT_ACTIONS and isinstance(retryable, bool)
    assert ToolFailure(ErrorCode.TIMEOUT, "x").retryable is True


class Picture(BaseModel):
    width: int


@tool(
    name="picture",
    title="Picture",
    risk=Risk.READ,
    input=Args,
    output=Picture,
    example={},
    needs_device=False,
)
async def picture(call: ToolCall, args: Args) -> ToolOutput:
    """Returns an image block after its typed result (the seam screenshots use)."""
    image = types.ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png")
    return ToolOutput("a picture", Picture(width=1), (image,))


async def test_extra_content_blocks_follow_the_text() -> None:
    app = make_app([])
    async with Client(build_server(app, [picture])) as client:
        result = await client.call_tool("picture", {})
    assert data_of(result) == {"width": 1}
    assert [block.type for block in result.content] == ["text", "image"]


@pytest.mark.parametrize(
    ("error", "code", "retryable"),
    [
        (errors.DevicePermissionError("no access"), "host_setup", False),
        (errors.DeviceBusyError("claimed by adb"), "host_setup", False),
        (errors.UsbUnavailableError("no libusb"), "host_setup", False),
        (errors.NoAdbInterfaceError("enable USB debugging"), "device_unreachable", False),
        (errors.ConnectFailedError("refused"), "device_unreachable", True),
    ],
)
def test_usb_setup_failures_are_not_retryable(
    error: errors.AdbwireError, code: str, retryable: bool
) -> None:
    failure = from_exception(error)
    assert failure is not None
    assert (failure.code.value, failure.retryable) == (code, retryable)
