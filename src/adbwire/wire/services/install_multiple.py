"""Installing an app made of several APKs (a base and its splits), as `adb install-multiple`
does: one package-installer session.

1. ``install-create -S TOTAL [flags]`` answers ``Success: created install session [ID]``;
2. ``install-write -S SIZE ID NAME -`` per APK, its bytes streamed after the OPEN, answers
   ``Success: streamed N bytes``;
3. ``install-commit ID`` answers ``Success`` or ``Failure [CODE: message]``.

Each step goes through ``abb_exec:package\\0…`` when the device lists `abb_exec`, else
``exec:cmd package …`` (`cmd`), else ``exec:pm …``. If anything fails before the commit (a
write refused, a file unreadable, the caller interrupted), the session is abandoned
(``install-abandon ID``) and the error names the APK, whatever went wrong (a refusal, the
deadline, the device gone). Every answer is read with a size cap and the operation's
deadline.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from adbwire.errors import AdbwireError, DeviceCommandError, DisconnectedError, UsageError
from adbwire.wire import shell_quote
from adbwire.wire.connection import Connection
from adbwire.wire.services.apk_manifest import ApkInfo, read_apk_info
from adbwire.wire.services.install import read_answer, send_file
from adbwire.wire.services.install_result import InstallOptions, parse_answer
from adbwire.wire.timeouts import Deadline

log = logging.getLogger(__name__)

SplitProgress = Callable[[str, int, int], None]
"""(APK name, bytes sent, its size)"""
ABANDON_SECONDS = 10.0
_SESSION = re.compile(r"Success: created install session \[(\d+)\]")


@dataclass(frozen=True)
class MultipleInstallResult:
    ok: bool
    code: str | None
    message: str
    session: int
    apks: tuple[ApkInfo, ...]
    output: str
    """The package manager's answer to the commit."""

    def describe(self) -> str:
        return "Success" if self.ok else f"{self.code or 'failed'}: {self.message}"


class SplitWriteError(DeviceCommandError):
    """The package manager refused one APK of the set; the session was abandoned."""

    def __init__(self, path: Path, answer: str) -> None:
        super().__init__(f"failed to write {path}: {answer.strip() or 'no answer'}")
        self.path = path
        self.answer = answer


def install_multiple(
    connection: Connection,
    apks: Sequence[str | os.PathLike[str]],
    options: InstallOptions | None = None,
    *,
    progress: SplitProgress | None = None,
    timeout: float | None = None,
) -> MultipleInstallResult:
    """Install a base APK and its splits in one session (the result says whether the
    package manager accepted them; `SplitWriteError` names an APK it refused)."""
    options = options or InstallOptions()
    paths = [Path(apk) for apk in apks]
    if not paths:
        raise UsageError("install-multiple needs at least one APK")
    names = [path.name for path in paths]
    if len(set(names)) != len(names):
        raise UsageError(f"two APKs share a file name: {sorted(names)}")
    infos = tuple(read_apk_info(path) for path in paths)
    sizes = [path.stat().st_size for path in paths]
    deadline = Deadline(
        connection.timeouts.operation if timeout is None else timeout, "install-multiple"
    )
    command = _command_style(connection.features)
    answer = _run(connection, command(["install-create", "-S", str(sum(sizes)), *options.flags()]),
                  deadline)  # fmt: skip
    found = _SESSION.search(answer)
    if found is None:
        raise DeviceCommandError(f"failed to create session: {answer.strip() or 'no answer'}")
    session = int(found.group(1))
    log.debug("install session %d for %s", session, ", ".join(names))
    committed = False
    try:
        for path, size in zip(paths, sizes, strict=True):
            service = command(["install-write", "-S", str(size), str(session), path.name, "-"])
            try:
                answer = _write(
                    connection, service, path=path, size=size, deadline=deadline, progress=progress
                )
            except AdbwireError as error:
                _name_the_apk(error, path, session, left_open=connection.failure is not None)
                raise
            if not answer.startswith("Success"):
                raise SplitWriteError(path, answer)
        committed = True
        output = _run(connection, command(["install-commit", str(session)]), deadline)
    finally:
        if not committed:
            _abandon(connection, command, session)
    verdict = parse_answer(output)
    return MultipleInstallResult(verdict.ok, verdict.code, verdict.message, session, infos, output)


def _name_the_apk(error: AdbwireError, path: Path, session: int, *, left_open: bool) -> None:
    """Say which APK was being written when the write failed; the error keeps its type
    (a device that went away is still a DisconnectedError, a deadline an AdbTimeoutError).
    Without a link the session cannot be abandoned: the message gives its number."""
    note = f" (install session {session} is left open on the device)" if left_open else ""
    error.args = (f"writing {path}: {error}{note}", *error.args[1:])


def _command_style(features: frozenset[str]) -> Callable[[list[str]], str]:
    if "abb_exec" in features:
        return lambda argv: "abb_exec:" + "\0".join(["package", *argv])
    prefix = ["cmd", "package"] if "cmd" in features else ["pm"]
    return lambda argv: "exec:" + shell_quote.join([*prefix, *argv])


def _run(connection: Connection, service: str, deadline: Deadline) -> str:
    with connection.open_stream(service, deadline.remaining()) as stream:
        return read_answer(stream, deadline)


def _write(
    connection: Connection,
    service: str,
    *,
    path: Path,
    size: int,
    deadline: Deadline,
    progress: SplitProgress | None,
) -> str:
    with connection.open_stream(service, deadline.remaining()) as stream:
        try:
            send_file(stream, path, size, _per_apk(progress, path.name), deadline)
        except DisconnectedError:
            # The package manager may answer and close before reading everything.
            if connection.failure is not None:
                raise
        return read_answer(stream, deadline)


def _per_apk(progress: SplitProgress | None, name: str) -> Callable[[int, int], None] | None:
    if progress is None:
        return None
    return lambda sent, size: progress(name, sent, size)


def _abandon(connection: Connection, command: Callable[[list[str]], str], session: int) -> None:
    """Best effort, within its own short deadline. Over a dead link nothing can be sent:
    the session stays on the device until the package manager expires it (or `adb shell pm
    install-abandon ID`); the error has said its number."""
    if connection.failure is not None:
        return
    with contextlib.suppress(AdbwireError):
        answer = _run(
            connection,
            command(["install-abandon", str(session)]),
            Deadline(ABANDON_SECONDS, "abandoning the install session"),
        )
        log.debug("abandoned install session %d: %s", session, answer.strip())
