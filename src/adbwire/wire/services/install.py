"""Installing and uninstalling apps, as `adb install` / `adb uninstall` do.

The best method the device offers is used (client/adb_install.cpp):

* ``abb_exec:package\\0install\\0<flags…>\\0-S\\0<size>`` when the device lists `abb_exec`
  (the arguments go to the package manager's binder as they are: no shell parses them);
* else ``exec:cmd package install <flags…> -S <size>`` when it lists `cmd`;
* else the APK is pushed to /data/local/tmp, installed with `pm install`, and deleted
  whatever happened.

For the two streamed methods the APK's exact size is announced, the bytes follow on the
same stream, and the package manager answers one line: ``Success`` or ``Failure […]``.
The APK's package name and version are read from its manifest first, so a caller sees
what is being installed and a file that is not an APK never reaches the device.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from adbwire.errors import DisconnectedError, UsageError
from adbwire.wire import shell_quote
from adbwire.wire.connection import Connection
from adbwire.wire.services import shell as shell_service
from adbwire.wire.services.apk_manifest import ApkInfo, read_apk_info
from adbwire.wire.services.install_push import Progress, push_and_install
from adbwire.wire.services.install_result import (
    InstallMethod,
    InstallOptions,
    InstallResult,
    UninstallResult,
    UserSpec,
    check_package_name,
    check_user,
    parse_answer,
)
from adbwire.wire.stream import Stream
from adbwire.wire.timeouts import Deadline

log = logging.getLogger(__name__)

READ_CHUNK = 256 * 1024
MAX_ANSWER_BYTES = 64 * 1024


def choose_method(features: frozenset[str]) -> InstallMethod:
    """The method adb would use with a device that has these features."""
    if "abb_exec" in features:
        return InstallMethod.ABB_EXEC
    if "cmd" in features:
        return InstallMethod.CMD
    return InstallMethod.PUSH


def streaming_service(method: InstallMethod, options: InstallOptions, size: int) -> str:
    """The service that installs an APK of `size` bytes streamed after the OPEN."""
    if method is InstallMethod.ABB_EXEC:
        return "abb_exec:" + "\0".join(["package", "install", *options.flags(), "-S", str(size)])
    if method is InstallMethod.CMD:
        argv = ["cmd", "package", "install", *options.flags(), "-S", str(size)]
        return "exec:" + shell_quote.join(argv)
    raise UsageError(f"{method.value} is not a streaming install method")


def install(
    connection: Connection,
    apk: str | os.PathLike[str],
    options: InstallOptions | None = None,
    *,
    method: InstallMethod | None = None,
    progress: Progress | None = None,
    timeout: float | None = None,
) -> InstallResult:
    """Install the APK at `apk`; the result says whether the package manager accepted it.

    A refusal by the package manager is a result with `ok=False` (call `.check()` to
    raise); a bad file is a UsageError; a lost device is a DisconnectedError.
    """
    options = options or InstallOptions()
    path = Path(apk)
    info = read_apk_info(path)
    size = path.stat().st_size
    chosen = method or choose_method(connection.features)
    deadline = Deadline(
        connection.timeouts.operation if timeout is None else timeout,
        f"installing {path.name}",
    )
    log.debug("installing %s (%s, %d bytes) by %s", path, info.describe(), size, chosen.value)
    if chosen is InstallMethod.PUSH:
        output = push_and_install(connection, path, options, progress, deadline)
    else:
        service = streaming_service(chosen, options, size)
        output = _stream_install(
            connection, service, path, size=size, progress=progress, deadline=deadline
        )
    return _result(output, info, chosen)


def _result(output: str, info: ApkInfo, method: InstallMethod) -> InstallResult:
    answer = parse_answer(output)
    return InstallResult(answer.ok, answer.code, answer.message, info, method, output)


def _stream_install(
    connection: Connection,
    service: str,
    path: Path,
    *,
    size: int,
    progress: Progress | None,
    deadline: Deadline,
) -> str:
    with connection.open_stream(service, deadline.remaining()) as stream:
        try:
            send_file(stream, path, size, progress, deadline)
        except DisconnectedError:
            # The package manager may refuse before reading everything and close the
            # stream: its answer is then already waiting. A lost link has no answer.
            if connection.failure is not None:
                raise
        return read_answer(stream, deadline)


def send_file(
    stream: Stream, path: Path, size: int, progress: Progress | None, deadline: Deadline
) -> None:
    sent = 0
    if progress is not None:
        progress(0, size)
    with path.open("rb") as source:
        while sent < size:
            chunk = source.read(min(READ_CHUNK, size - sent))
            if not chunk:
                raise UsageError(f"{path}: the file shrank while it was being sent")
            stream.write(chunk, deadline)
            sent += len(chunk)
            if progress is not None:
                progress(sent, size)


def read_answer(stream: Stream, deadline: Deadline) -> str:
    """The package manager's answer, up to the stream's end (bounded in size)."""
    parts: list[bytes] = []
    total = 0
    while total < MAX_ANSWER_BYTES and (chunk := stream.read(None, deadline)):
        parts.append(chunk)
        total += len(chunk)
    return b"".join(parts).decode("utf-8", errors="replace")


def uninstall(
    connection: Connection,
    package: str,
    *,
    keep_data: bool = False,
    user: UserSpec | None = None,
    timeout: float | None = None,
) -> UninstallResult:
    """Uninstall `package` (keeping its data and cache with `keep_data`).

    The name is checked against Android's package-name rule before anything is sent.
    """
    check_package_name(package)
    check_user(user)
    argv = ["cmd", "package", "uninstall"] if "cmd" in connection.features else ["pm", "uninstall"]
    if keep_data:
        argv.append("-k")
    if user is not None:
        argv += ["--user", str(user)]
    argv.append(package)
    result = shell_service.run(connection, shell_quote.join(argv), timeout=timeout)
    output = (result.stdout + result.stderr).decode("utf-8", errors="replace")
    answer = parse_answer(output)
    return UninstallResult(answer.ok, answer.code, answer.message, package, output)
