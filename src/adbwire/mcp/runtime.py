"""One tool call from arguments to envelope: the order of the checks is the safety model.

1. validate every argument (nothing touches a device before this passes);
2. refuse host-file tools when no local root is set;
3. resolve the target device (explicit serial, the session's default, or the only one) and
   apply the device policy (allow-list, emulators only);
4. for destructive tools: run the pure refusals, then ask the user (--allow-destructive
   answers for them, unless the precheck says this call must be asked every time);
   anything but a yes ends the call here, so the handler never runs unconfirmed;
5. run the handler; map errors to codes; log bugs with their traceback to stderr and
   return ``internal_error`` without internals; write the audit line.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, InputRequiredResult
from pydantic import BaseModel, ValidationError

from adbwire.device import info, output_cap, validate
from adbwire.errors import OutputTooLargeError
from adbwire.mcp.registry import ToolOutput, ToolSpec
from adbwire.mcp.results import envelope
from adbwire.mcp.results.envelope import ErrorCode, ToolFailure
from adbwire.mcp.results.failures import from_exception, output_too_large
from adbwire.mcp.safety import confirm
from adbwire.mcp.safety.audit import AuditRecord, now_iso, redact_secrets
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.server.app import App
from adbwire.mcp.server.sessions import client_name, session_token
from adbwire.wire.aio import DeviceLane, run_blocking
from adbwire.wire.client import AdbClient

if TYPE_CHECKING:
    from adbwire.mcp.trace.recorder import TracedCall

log = logging.getLogger(__name__)
P = ParamSpec("P")
T = TypeVar("T")
_EMULATOR_SERIAL = re.compile(r"^emulator-\d+$")
_LOOPBACK_EMULATOR = re.compile(r"^(?:127\.0\.0\.1|localhost|\[::1\]):(\d+)$")
RESCAN_AFTER = 1.0
"""Seconds between USB scans on the call path; a device plugged in shows up within it."""


class ToolCall:
    """What a handler gets besides its arguments: the device, the app, progress."""

    def __init__(self, app: App, spec: ToolSpec, ctx: Context[Any, Any]) -> None:
        self.app = app
        self.spec = spec
        self.ctx = ctx
        self.serial: str | None = None
        self._client: AdbClient | None = None
        self._lane: DeviceLane | None = None
        self.decision = confirm.Decision.NOT_NEEDED
        self.trace: TracedCall | None = None
        """This call's trace step while a trace is recorded (``serve --trace``)."""

    @property
    def client(self) -> AdbClient:
        if self._client is None:
            raise RuntimeError(f"{self.spec.name} has no device (needs_device is off)")
        return self._client

    @property
    def session(self) -> Any:
        return session_token(self.ctx, self.app.transport)

    async def run(self, func: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run a blocking device operation under the tool's output cap (from the policy),
        within the device's own limits (its lane: device_busy when full); cancelling the
        call closes its streams at once."""
        cap = self.app.policy.output_cap(self.spec.name)

        def capped() -> T:
            with output_cap.limited_to(cap):
                return func(*args, **kwargs)

        try:
            if self._lane is None:
                return await run_blocking(capped)
            return await self._lane.run(capped)
        except OutputTooLargeError as exc:
            if exc.limit != cap:
                raise  # a limit of the operation's own (a frame's size), not the policy's
            raise output_too_large(self.spec.name, exc) from None

    async def progress(self, done: float, total: float | None, message: str | None = None) -> None:
        try:
            await self.ctx.report_progress(done, total, message)
        except Exception:  # progress is best effort; a closed channel must not fail the call
            log.debug("progress notification not delivered", exc_info=True)

    def progress_from_thread(self, what: str) -> Callable[[int, int | None], None]:
        """A callback for worker threads: (bytes done, total) -> at most ~20 notifications."""
        last = [-1.0]

        def report(done: int, total: int | None) -> None:
            step = (done / total) if total else 0.0
            if total and step - last[0] < 0.05 and done < total:
                return
            last[0] = step
            try:
                anyio.from_thread.run(
                    self.progress, float(done), float(total) if total else None, what
                )
            except Exception:
                log.debug("progress from a worker thread not delivered", exc_info=True)

        return report

    # ----------------------------------------------------------- device targeting

    async def target(self, requested: str | None) -> str:
        devices = self.app.devices
        if devices.needs_refresh(RESCAN_AFTER):  # scanning USB blocks: off the event loop
            await anyio.to_thread.run_sync(devices.refresh)
        known = devices.serials()
        if requested is not None:
            serial = validate.serial(requested)
            if serial not in known:
                raise ToolFailure(
                    ErrorCode.DEVICE_NOT_FOUND,
                    f"no device {serial!r}; known: {', '.join(known) or 'none'}",
                    {"known": known},
                )
        else:
            default = self.app.defaults.get(self.session)
            if default in known:
                serial = default
            elif len(known) == 1:
                serial = known[0]
            elif not known:
                raise ToolFailure(ErrorCode.NO_DEVICE, "no device: use connect_device first")
            else:
                raise ToolFailure(
                    ErrorCode.DEVICE_AMBIGUOUS,
                    f"{len(known)} devices ({', '.join(known)}): pass serial or use select_device",
                    {"devices": known},
                )
        self.check_device_policy(serial)
        return serial

    def check_device_policy(self, serial: str) -> None:
        check_device_policy(self.app, serial)

    async def connect(self, serial: str) -> AdbClient:
        client = await connect_checked(self.app, serial)
        self.serial, self._client = serial, client
        self._lane = self.app.devices.lane(serial)
        return client


def check_device_policy(app: App, serial: str) -> None:
    """The checks that need no connection: --allow-device and the emulator serial form."""
    policy = app.policy
    if policy.allowed_devices and serial not in policy.allowed_devices:
        raise ToolFailure(
            ErrorCode.DEVICE_NOT_ALLOWED,
            f"{serial} is not in the operator's --allow-device list",
            {"allowed": sorted(policy.allowed_devices)},
        )
    if policy.emulators_only and not _emulator_serial(app, serial):
        raise ToolFailure(
            ErrorCode.DEVICE_NOT_ALLOWED,
            f"{serial} does not have an emulator's serial and the server runs --emulators-only",
        )


def _emulator_serial(app: App, serial: str) -> bool:
    if _EMULATOR_SERIAL.match(serial) or app.devices.kind_of(serial) == "simulated":
        return True
    match = _LOOPBACK_EMULATOR.match(serial)
    return match is not None and 5555 <= int(match.group(1)) <= 5585


async def connect_checked(app: App, serial: str) -> AdbClient:
    """A client for `serial` after every device check, including the emulator properties."""
    check_device_policy(app, serial)
    devices = app.devices
    client = devices.ready_client(serial)  # connected: no thread needed
    if client is None:  # waiting to connect takes a turn of this device's, no shared thread

        def shared_client() -> tuple[AdbClient]:
            # In a tuple: a result its cancelled caller never sees is closed, but this
            # connection is the registry's, shared by every caller of the device.
            return (devices.client(serial),)

        (fresh,) = await devices.lane(serial).run(shared_client)
        client = fresh
    if app.policy.emulators_only:
        flag = devices.cached_emulator_flag(serial)
        if flag is None:
            flag = await devices.lane(serial).run(info.reports_emulator, client)
            devices.remember_emulator_flag(serial, flag)
        if not flag:
            raise ToolFailure(
                ErrorCode.DEVICE_NOT_ALLOWED,
                f"{serial} does not report ro.kernel.qemu/ro.boot.qemu=1 and the server runs "
                "--emulators-only",
            )
    return client


async def invoke(
    app: App, spec: ToolSpec, raw: dict[str, Any], ctx: Context[Any, Any]
) -> CallToolResult | InputRequiredResult:
    started = time.monotonic()
    call = ToolCall(app, spec, ctx)
    if app.trace is not None:  # off: this test is all tracing costs
        call.trace = app.trace.start(call, raw)
    outcome, code = "ok", None
    try:
        output = await _run(call, spec, raw)
        result: CallToolResult | InputRequiredResult = envelope.success(
            output.summary, output.data, output.extra, output.text
        )
    except confirm.NeedsInput as pending:
        outcome, result = "awaiting_confirmation", pending.result
    except anyio.get_cancelled_exc_class():
        _audit(call, raw, started, "cancelled", ErrorCode.CANCELLED.value)
        if call.trace is not None:
            call.trace.cancelled()
        raise
    except Exception as exc:
        failure = from_exception(exc)
        if failure is None:
            log.exception("tool %s failed with an unexpected error", spec.name)
            failure = ToolFailure(
                ErrorCode.INTERNAL_ERROR,
                f"{spec.name} failed because of a bug in adbwire; the server log has the details",
            )
        outcome, code, result = "error", failure.code.value, envelope.failure(failure)
    _audit(call, raw, started, outcome, code)
    if call.trace is not None:
        await call.trace.finish(result, outcome)
    return result


async def _run(call: ToolCall, spec: ToolSpec, raw: dict[str, Any]) -> ToolOutput:
    try:
        args = spec.input_model.model_validate(raw)
    except ValidationError as exc:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENTS, describe_validation(exc), {"fields": _fields(exc)}
        ) from None
    if spec.host_files:
        call.app.local_root.require()
    if spec.needs_device:
        await call.connect(await call.target(getattr(args, "serial", None)))
    if spec.risk is Risk.DESTRUCTIVE:
        ask_anyway = None
        if spec.precheck is not None:  # off the event loop: a hostile line costs seconds
            ask_anyway = await anyio.to_thread.run_sync(spec.precheck, args)
        await _confirm(call, spec, args, ask_anyway)
    if call.trace is not None:
        await call.trace.before()
    return await spec.handler(call, args)


async def _confirm(
    call: ToolCall, spec: ToolSpec, args: BaseModel, ask_anyway: str | None = None
) -> None:
    """Ask the user; `ask_anyway` (why) makes --allow-destructive's standing consent not
    count for this call."""
    assert spec.describe is not None
    operation = spec.describe(args)
    if ask_anyway is not None:
        operation += f"\nAsked every time, whatever the server's settings: {ask_anyway}"
    question = confirm.Question(
        tool=spec.name,
        device=call.serial,
        operation=operation,
        arguments=args.model_dump(mode="json", exclude_none=True),
    )
    policy = call.app.policy
    preapproved = policy.allow_destructive and ask_anyway is None
    call.decision = await confirm.ask(
        call.ctx, question, timeout=policy.confirm_timeout, preapproved=preapproved
    )
    if not call.decision.allows:
        raise ToolFailure(
            ErrorCode.CONFIRMATION_REQUIRED,
            f"not run: the user's confirmation was {call.decision.value.replace('_', ' ')}",
            {"decision": call.decision.value, "operation": question.operation},
        )


def describe_validation(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors()[:5]:
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        message = str(error["msg"]).removeprefix("Value error, ")
        parts.append(f"{where}: {message}")
    return "invalid arguments: " + "; ".join(parts)


def _fields(exc: ValidationError) -> list[str]:
    return sorted({".".join(str(part) for part in error["loc"]) for error in exc.errors()})


def _audit(
    call: ToolCall, raw: dict[str, Any], started: float, outcome: str, code: str | None
) -> None:
    record = AuditRecord(
        time=now_iso(),
        client=client_name(call.ctx),
        tool=call.spec.name,
        arguments=redact_secrets(raw, call.spec.secret_args),
        device=call.serial,
        outcome=outcome,
        error_code=code,
        duration_ms=int((time.monotonic() - started) * 1000),
        confirmation=call.decision.value,
    )
    call.app.audit.write(record)
