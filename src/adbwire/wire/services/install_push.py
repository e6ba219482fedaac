"""The install method for devices without `cmd` (before Android 7): push the APK to
/data/local/tmp with the file-sync service, run `pm install` on it, delete it.

The temporary file has a random name (two installs never collide, and no file of the
user's is overwritten) and is deleted whatever happened: a failed install, a push that
broke off, a cancelled call. Only a device that is gone keeps it (nothing can reach it).
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import Callable
from pathlib import Path

from adbwire.errors import AdbwireError
from adbwire.wire import shell_quote
from adbwire.wire.connection import Connection
from adbwire.wire.operation import Operation
from adbwire.wire.services import shell as shell_service
from adbwire.wire.services.install_result import InstallOptions
from adbwire.wire.timeouts import Deadline

log = logging.getLogger(__name__)

STAGING_DIRECTORY = "/data/local/tmp"
CLEANUP_TIMEOUT = 10.0

Progress = Callable[[int, int], None]
"""Called with (bytes sent so far, total bytes) as the APK goes out."""


def staging_path() -> str:
    return f"{STAGING_DIRECTORY}/adbwire-install-{secrets.token_hex(6)}.apk"


def push_and_install(
    connection: Connection,
    path: Path,
    options: InstallOptions,
    progress: Progress | None,
    deadline: Deadline,
) -> str:
    """Push `path`, `pm install` it, delete it; returns the package manager's output."""
    from adbwire.wire.services.sync.push import push_stream  # noqa: PLC0415 - optional peer

    remote = staging_path()
    size = path.stat().st_size

    def report(done: int, total: int | None) -> None:
        if progress is not None:
            progress(done, size if total is None else total)

    try:
        with path.open("rb") as source:
            push_stream(
                connection,
                source,
                remote,
                mode=0o644,
                size=size,
                progress=report,
                timeout=deadline.remaining(),
            )
        command = shell_quote.join(["pm", "install", *options.flags(), remote])
        result = shell_service.run(connection, command, timeout=deadline.remaining())
        return (result.stdout + result.stderr).decode("utf-8", errors="replace")
    finally:
        _remove(connection, remote)


def _remove(connection: Connection, remote: str) -> None:
    if connection.failure is not None:
        log.warning("could not delete %s on the device: the connection is gone", remote)
        return
    # A fresh operation: a cancelled call must still get its temporary file deleted.
    with contextlib.suppress(AdbwireError), Operation().bound():
        result = shell_service.run(
            connection, shell_quote.join(["rm", "-f", remote]), timeout=CLEANUP_TIMEOUT
        )
        if result.exit_code == 0:
            return
    log.warning("could not delete %s on the device", remote)
