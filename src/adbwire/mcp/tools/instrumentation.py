"""Running an instrumented test package and reporting what its status stream says."""

from __future__ import annotations

import logging
from datetime import datetime, timezone

import anyio
import anyio.from_thread
from pydantic import Field

from adbwire.device import instrumentation as ops
from adbwire.device.parsers.instrumentation import CaseResult, CaseStarted
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.text_lines import one_line
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import DeviceArgs, Package, Result
from adbwire.mcp.tools.heavy_lock import holding_heavy_job
from adbwire.wire.aio import run_blocking

log = logging.getLogger(__name__)
MAX_FAILURES = 20
MAX_TRACE_CHARS = 4000
STOP_SECONDS = 15.0


class InstrumentArgs(DeviceArgs):
    test_package: Package
    runner: str | None = Field(default=None, max_length=200, description="if several")
    tests: list[str] = Field(
        default_factory=list, max_length=ops.MAX_FILTERS, description="Class or Class#method"
    )
    arguments: dict[str, str] = Field(
        default_factory=dict, max_length=ops.MAX_ARGUMENTS, description="-e KEY VALUE"
    )
    log: str | None = Field(default=None, max_length=512)
    timeout_s: int = Field(default=900, ge=10, le=7200)


class Failure(Result):
    test: str
    outcome: str
    message: str | None = None
    trace_lines: int = Field(default=0, description="its trace, after the JSON (text block)")


class RunReport(Result):
    success: bool
    passed: int
    failed: int
    errored: int
    skipped: int
    failures: list[Failure] = Field(description="text block: '[n] test', then failure n's trace")
    omitted_failures: int = 0
    problems: list[str]
    duration_s: float
    log: str


@tool(
    name="run_instrumentation",
    title="Run instrumented tests",
    risk=Risk.ACTION,
    input=InstrumentArgs,
    output=RunReport,
    example={"test_package": "com.example.app.test", "tests": ["com.example.app.LoginTest"]},
    host_files=True,
    long_running=True,
    idempotent=False,
    full_only=True,
)
async def run_instrumentation(call: ToolCall, args: InstrumentArgs) -> ToolOutput:
    """am instrument -w -r: counts, failures (traces after the JSON, text block), log under
    the local root; success only if codes and result agree."""
    target = await call.run(ops.find_instrumentation, call.client, args.test_package, args.runner)
    ops.instrument_argv(target, args.tests, args.arguments)  # refuse bad filters before locking
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    log_path = call.app.local_root.resolve(
        args.log or f"instrumentation/{args.test_package}-{stamp}.log"
    )
    assert call.serial is not None
    async with holding_heavy_job(call.serial, f"run_instrumentation {args.test_package}"):
        try:
            run = await call.run(
                ops.run_instrumentation,
                call.client,
                target,
                log_path,
                tests=args.tests,
                arguments=args.arguments,
                on_event=_progress(call),
                timeout=float(args.timeout_s),
            )
        except BaseException:
            # Closing our stream leaves the tests running in the app: stop it on the device.
            with anyio.CancelScope(shield=True), anyio.move_on_after(STOP_SECONDS):
                try:
                    await run_blocking(ops.stop_target, call.client, target)
                except Exception:
                    log.warning("could not stop %s after an interrupted run", target.component)
            raise
    report = run.report
    failed = [t for t in report.tests if t.outcome in ("failed", "errored", "crashed")]
    traces = [(t.trace or "")[:MAX_TRACE_CHARS].splitlines() for t in failed[:MAX_FAILURES]]
    failures = [
        Failure(
            test=test.name,
            outcome=test.outcome,
            message=test.message[:500] if test.message else None,
            trace_lines=len(trace),
        )
        for test, trace in zip(failed, traces, strict=False)
    ]
    data = RunReport(
        success=report.success,
        passed=report.count("passed"),
        failed=report.count("failed"),
        errored=report.count("errored"),
        skipped=report.count("skipped"),
        failures=failures,
        omitted_failures=max(0, len(failed) - MAX_FAILURES),
        problems=list(report.problems[:MAX_FAILURES]),
        duration_s=round(run.duration_s, 3),
        log=call.app.local_root.display(run.log_path),
    )
    verdict = "passed" if report.success else "FAILED"
    summary = (
        f"{target.test_package} {verdict}: {data.passed} passed, {data.failed} failed, "
        f"{data.errored} errored, {data.skipped} skipped in {data.duration_s:.1f}s"
    )
    return ToolOutput(summary, data, text=_traces_text(failures, traces))


def _traces_text(failures: list[Failure], traces: list[list[str]]) -> str | None:
    """Each failure's trace once, in the text block: ``[n] test``, then its lines indented."""
    lines: list[str] = []
    for number, (failure, trace) in enumerate(zip(failures, traces, strict=True), 1):
        if trace:
            lines.append(one_line(f"[{number}] {failure.test}"))
            lines.extend("  " + line for line in trace)
    return "\n".join(lines) or None


def _progress(call: ToolCall) -> ops.EventHandler:
    """One notification per test started and per test ended, from the worker thread."""
    finished, total = [0], [0]

    def report(event: CaseStarted | CaseResult) -> None:
        if isinstance(event, CaseResult):
            finished[0] += 1
            message = f"{event.name}: {event.outcome}"
        else:
            message = f"running {event.class_name}#{event.method}"
            total[0] = event.total or total[0]
        try:
            anyio.from_thread.run(
                call.progress, float(finished[0]), float(total[0]) if total[0] else None, message
            )
        except Exception:
            log.debug("progress from the test run not delivered", exc_info=True)

    return report


TOOLS = [run_instrumentation]
