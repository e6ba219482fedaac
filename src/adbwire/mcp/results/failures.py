"""Turning exceptions from the layers below into envelope failures with stable codes."""

from __future__ import annotations

from dataclasses import asdict

from adbwire import errors
from adbwire.device import errors as device_errors
from adbwire.device.heavy_jobs import HeavyJobBusyError
from adbwire.mcp.results.envelope import ErrorCode, NextAction, ToolFailure

# Most specific first: the first matching class decides the code.
_BY_TYPE: tuple[tuple[type[BaseException], ErrorCode], ...] = (
    (device_errors.NotFoundError, ErrorCode.NOT_FOUND),
    (device_errors.AlreadyExistsError, ErrorCode.ALREADY_EXISTS),
    (device_errors.RefusedError, ErrorCode.REFUSED),
    (device_errors.TooLargeError, ErrorCode.TOO_LARGE),
    (device_errors.UnsupportedError, ErrorCode.UNSUPPORTED),
    (device_errors.VerificationError, ErrorCode.VERIFICATION_FAILED),
    (device_errors.AppNotRespondingError, ErrorCode.APP_NOT_RESPONDING),
    (device_errors.AppCrashedError, ErrorCode.APP_CRASHED),
    (device_errors.LaunchNotVerifiedError, ErrorCode.LAUNCH_NOT_VERIFIED),
    (errors.UsageError, ErrorCode.INVALID_ARGUMENTS),
    (errors.KeyFileError, ErrorCode.HOST_SETUP),
    (errors.PairingCodeError, ErrorCode.INVALID_ARGUMENTS),
    (errors.PairingError, ErrorCode.PROTOCOL_ERROR),
    (errors.AuthPendingError, ErrorCode.DEVICE_UNAUTHORIZED),
    (errors.AuthError, ErrorCode.DEVICE_UNAUTHORIZED),
    (errors.DevicePermissionError, ErrorCode.HOST_SETUP),
    (errors.DeviceBusyError, ErrorCode.HOST_SETUP),
    (errors.UsbUnavailableError, ErrorCode.HOST_SETUP),
    (errors.ConnectFailedError, ErrorCode.DEVICE_UNREACHABLE),
    (errors.DisconnectedError, ErrorCode.DEVICE_DISCONNECTED),
    (errors.TransportError, ErrorCode.DEVICE_UNREACHABLE),
    (errors.LocalProtocolError, ErrorCode.INTERNAL_ERROR),
    (errors.ReplayMismatchError, ErrorCode.PROTOCOL_ERROR),
    (errors.RemoteProtocolError, ErrorCode.PROTOCOL_ERROR),
    (errors.StreamRefusedError, ErrorCode.UNSUPPORTED),
    (errors.SyncFailError, ErrorCode.COMMAND_FAILED),
    (errors.DeviceCommandError, ErrorCode.COMMAND_FAILED),
    (errors.OutputTooLargeError, ErrorCode.OUTPUT_TOO_LARGE),
    (errors.OperationCancelledError, ErrorCode.CANCELLED),
    (errors.DeviceQueueFullError, ErrorCode.DEVICE_BUSY),
    (errors.AdbTimeoutError, ErrorCode.TIMEOUT),
    (HeavyJobBusyError, ErrorCode.DEVICE_BUSY),
)


def from_exception(exc: BaseException) -> ToolFailure | None:
    """The failure for an expected exception, or None for a bug (reported as internal_error)."""
    if isinstance(exc, ToolFailure):
        return exc
    if not isinstance(exc, errors.AdbwireError):
        return None
    code = next((c for kind, c in _BY_TYPE if isinstance(exc, kind)), ErrorCode.COMMAND_FAILED)
    if code is ErrorCode.INTERNAL_ERROR:
        return None
    details: dict[str, object] = {}
    next_action: NextAction | None = None
    retryable: bool | None = None
    if isinstance(exc, (device_errors.AppCrashedError, device_errors.LaunchNotVerifiedError)):
        details.update(exc.details)
    if isinstance(exc, errors.CommandFailedError):
        details["exit_code"] = exc.exit_code
    if isinstance(exc, errors.SyncFailError):
        details["path"] = exc.path
        if "No such file" in exc.device_message:
            code = ErrorCode.NOT_FOUND
    if isinstance(exc, (errors.AuthRejectedError, errors.NoAdbInterfaceError)):
        retryable = False
    if isinstance(exc, errors.TlsRejectedError):
        retryable, next_action = False, NextAction.PAIR_DEVICE
    if isinstance(exc, errors.PairingCodeError):
        retryable = False  # the phone's code, or a new one it shows, is needed
    if isinstance(exc, errors.ReplayMismatchError):
        retryable, next_action = False, NextAction.NONE  # the session differs from the recording
    if isinstance(exc, errors.OutputTooLargeError):
        details["cap_bytes"] = exc.limit
    if isinstance(exc, HeavyJobBusyError) and exc.holder is not None:
        details["holder"] = asdict(exc.holder)
    if isinstance(exc, errors.StreamRefusedError):
        details["service"] = exc.service.split(":", 1)[0]
    return ToolFailure(code, str(exc), details, next_action, retryable)


def output_too_large(tool: str, exc: errors.OutputTooLargeError) -> ToolFailure:
    """The failure of a tool whose read went past its output cap: which cap, and who can
    raise it where."""
    return ToolFailure(
        ErrorCode.OUTPUT_TOO_LARGE,
        f"{tool}: {exc}. The cap protects the server from a device whose output never ends; "
        f"if this device's output is really this large, the operator can raise it in the "
        f"policy file: [max_output_mb] {tool} = <MiB>.",
        {
            "tool": tool,
            "cap_bytes": exc.limit,
            "read": exc.what,
            "policy_key": f"max_output_mb.{tool}",
        },
    )
