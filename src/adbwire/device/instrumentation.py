"""Running an instrumented test package: ``am instrument -w -r``, read as it arrives.

Espresso, UI Automator, Compose tests and Flutter's integration_test on Android all run as
instrumentation, so one runner covers them. The test package and its runner come from
``pm list instrumentation`` (which also gives the target app, the process a cancelled run
must stop). Every byte of output goes to a log file on the host as it arrives (under a
``.part`` name until the run ended; a run that did not end, because it was cancelled, timed
out or lost its device, leaves ``NAME.incomplete.log``), and each line feeds the status
stream parser, whose start/finish events a caller turns into progress.
"""

from __future__ import annotations

import codecs
import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from adbwire.device import commands, output_cap
from adbwire.device.errors import AlreadyExistsError, NotFoundError
from adbwire.device.parsers.instrumentation import (
    CaseResult,
    CaseStarted,
    InstalledInstrumentation,
    InstrumentationReport,
    InstrumentationStream,
    parse_instrumentation_list,
)
from adbwire.errors import UsageError
from adbwire.wire import shell_quote
from adbwire.wire.client import AdbClient
from adbwire.wire.timeouts import Deadline

MAX_FILTERS = 50
MAX_ARGUMENTS = 20
MAX_ARGUMENT_VALUE = 1024
_TEST_FILTER = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:#[A-Za-z_$][\w$\[\]-]*)?$")
_ARGUMENT_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_.]{0,63}$")
_RESERVED_KEYS = frozenset({"class"})
"""Set from `tests`, so the filter has one spelling."""

Event = CaseStarted | CaseResult
EventHandler = Callable[[Event], None]


@dataclass(frozen=True)
class InstrumentationRun:
    target: InstalledInstrumentation
    report: InstrumentationReport
    duration_s: float
    log_path: Path
    log_bytes: int


def find_instrumentation(
    client: AdbClient, test_package: str, runner: str | None = None
) -> InstalledInstrumentation:
    """The instrumentation `test_package` declares (the one using `runner`, if given)."""
    listed = parse_instrumentation_list(commands.text(client, ["pm", "list", "instrumentation"]))
    mine = [i for i in listed if i.test_package == test_package]
    if runner is not None:
        mine = [i for i in mine if runner in (i.runner, i.runner.rsplit(".", 1)[-1])]
    if not mine:
        known = ", ".join(sorted({i.test_package for i in listed})[:20]) or "none"
        wanted = f"{test_package} with runner {runner}" if runner else test_package
        raise NotFoundError(f"no instrumentation {wanted} on the device; installed: {known}")
    if len(mine) > 1:
        runners = ", ".join(i.runner for i in mine)
        raise UsageError(f"{test_package} declares several runners ({runners}); pass runner")
    return mine[0]


def instrument_argv(
    target: InstalledInstrumentation,
    tests: Sequence[str] = (),
    arguments: Mapping[str, str] | None = None,
) -> list[str]:
    """``am instrument -w -r [-e class A,B#m] [-e KEY VALUE]... PKG/RUNNER``, checked."""
    if len(tests) > MAX_FILTERS:
        raise UsageError(f"at most {MAX_FILTERS} test filters")
    for test in tests:
        if not _TEST_FILTER.match(test):
            raise UsageError(f"{test!r} is not a test class or Class#method")
    arguments = dict(arguments or {})
    if len(arguments) > MAX_ARGUMENTS:
        raise UsageError(f"at most {MAX_ARGUMENTS} runner arguments")
    argv = ["am", "instrument", "-w", "-r"]
    if tests:
        argv += ["-e", "class", ",".join(tests)]
    for key, value in arguments.items():
        if not _ARGUMENT_KEY.match(key) or key in _RESERVED_KEYS:
            raise UsageError(f"runner argument {key!r} is not allowed (use `tests` for class)")
        if len(value) > MAX_ARGUMENT_VALUE or "\n" in value or "\x00" in value:
            raise UsageError(f"runner argument {key}: the value is too long or multi-line")
        argv += ["-e", key, value]
    return [*argv, target.component]


def run_instrumentation(
    client: AdbClient,
    target: InstalledInstrumentation,
    log_path: Path,
    *,
    tests: Sequence[str] = (),
    arguments: Mapping[str, str] | None = None,
    on_event: EventHandler | None = None,
    timeout: float = 900.0,
) -> InstrumentationRun:
    """Run the tests and return what the status stream says, the log kept on the host."""
    argv = instrument_argv(target, tests, arguments)
    partial = log_path.with_name(log_path.name + ".part")
    if log_path.exists():
        raise AlreadyExistsError(f"{log_path.name} exists; choose another log name")
    try:
        log_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot make the log's folder: {exc.strerror or exc}") from None
    stream = InstrumentationStream()
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    deadline = Deadline(timeout, f"am instrument {target.component}")
    started = time.monotonic()
    size = 0
    log = _new_file(partial)

    def take(data: bytes, final: bool = False) -> None:
        nonlocal size
        log.write(data)
        log.flush()
        size += len(data)
        for event in stream.feed_text(decoder.decode(data, final=final)):
            if on_event is not None:
                on_event(event)

    try:
        with (
            log,
            client.start_shell(
                shell_quote.join(argv), timeout=timeout, max_output=output_cap.current()
            ) as process,
        ):
            process.close_stdin(deadline)
            for _channel, data in process.output(deadline):
                take(data)
            take(b"" if process.v2 else process.leftover_v1, final=True)
    except BaseException:
        partial.replace(log_path.with_name(log_path.stem + ".incomplete" + log_path.suffix))
        raise
    partial.replace(log_path)
    return InstrumentationRun(
        target=target,
        report=stream.report(),
        duration_s=time.monotonic() - started,
        log_path=log_path,
        log_bytes=size,
    )


def _new_file(path: Path) -> BinaryIO:
    """Create `path` for writing; never an existing file, never through a symlink."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        return os.fdopen(os.open(path, flags, 0o644), "wb")
    except FileExistsError:
        raise AlreadyExistsError(
            f"{path.name} exists: another run is writing this log, or one was killed while "
            "writing it; choose another log name"
        ) from None
    except OSError as exc:
        raise UsageError(f"cannot create the log {path.name}: {exc.strerror or exc}") from None


def stop_target(client: AdbClient, target: InstalledInstrumentation) -> None:
    """End a run on the device: force-stopping the target app kills the process the
    instrumentation runs in (closing our stream alone leaves it running)."""
    commands.run(client, ["am", "force-stop", target.target_package], timeout=10.0)
